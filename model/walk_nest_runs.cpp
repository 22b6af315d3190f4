// An op's own tiles whose steps are not all alike — a temporal loop's partial last step, so that
// the spatial loop over the same dim runs fewer instances there (padding) — walked class by class
// after their first step: the step classes Walker::loops takes (a first step, one standing for
// the middle ones, a partial last one) and, in each, the runs of alike instances Walker::spatial
// takes, with the operands' boxes alone: no tiles visited, no boxes copied. The same counts,
// states and sums as walking them (tests/unit/box_walk_test.cpp holds it to the walk with sets).
#include <algorithm>
#include <type_traits>

#include "model/transfer_time.h"
#include "model/walker.h"

namespace dfx::model {

template <class Held>
bool Walker<Held>::padded_nest(int node, const OpBoxes& boxes, int64_t weight, int reg, int leaf, Time& out) {
  if constexpr (!std::is_same_v<Held, Boxes>) {
    return false;
  } else {
    PaddedNest pad;
    pad.node = node;
    if (!plan_padded(node, boxes, leaf, pad)) return false;
    // The first step, walked.
    const TreeNode& n = f_.nodes[static_cast<size_t>(node)];
    BoxPool::Lease first(pool_, boxes);
    for (size_t i = 0; i < pad.temporal; ++i) {
      const int64_t e = (*first)[pad.op][static_cast<size_t>(n.loops[i].dim)].second - (*first)[pad.op][static_cast<size_t>(n.loops[i].dim)].first;
      if (pad.cuts[i]) index_.restrict(node, n.loops[i].dim, 0, cut(e, n.loops[i].factor).chunk, *first);
    }
    const Time first_time = loops(node, pad.temporal, *first, weight);
    // Each run's operands, in the contexts the first step entered.
    const int outer_ctx = inst_ctx_;
    for (size_t r = 0; r < pad.first_present; ++r) {
      int ctx = outer_ctx;
      for (size_t li = pad.temporal; li < n.loops.size(); ++li)
        ctx = contexts_.enter(ctx, (static_cast<int64_t>(node) * 4096 + static_cast<int64_t>(li)) * kMaxPasses +
                                       (li == pad.classed ? static_cast<int64_t>(r) : 0));
      inst_ctx_ = ctx;
      pad.count[r] = 0;
      for (size_t t = 0; t < w_.tensors.size(); ++t) {
        if (!p_.tensors[t].owner[static_cast<size_t>(reg)]) continue;
        PaddedOperand& h = pad.operands[r][pad.count[r]++];
        h.id = stream_for(reg, static_cast<int>(t));
        const Stream<Held>& s = streams_[static_cast<size_t>(h.id)];
        const auto prefix = static_cast<size_t>(mc_prefix_[static_cast<size_t>(reg) * w_.tensors.size() + t]);
        h.merged = 1;
        for (size_t k = prefix; k < spatial_stack_.size(); ++k) h.merged *= spatial_stack_[k].count;
        for (size_t k = 0, li = pad.temporal; li < n.loops.size(); ++li, ++k)
          if (spatial_stack_.size() + k >= prefix) h.merged *= li == pad.classed ? pad.run_count[r] : pad.trips[li];
        h.multicast = a_.levels[static_cast<size_t>(s.source)].multicast;
        if (!recorders_.empty()) note_change(h.id);
        h.active = 0;
        for (int d : w_.ops[pad.op].dims) h.last_lo[d] = 0, h.last_len[d] = 0;
        h.cover = Slice();
      }
    }
    inst_ctx_ = outer_ctx;
    pad.weight = weight;
    pad.leaf = leaf;
    pad.reg = reg;
    pad.first_time = first_time.latency;
    pad.level = spatial_stack_.size() + (pad.classed - pad.temporal);
    pad.dry = false;
    const double t = padded_classes(node, pad, 0, partial_, true);
    for (size_t r = 0; r < pad.first_present; ++r)
      for (size_t i = 0; i < pad.count[r]; ++i) {
        PaddedOperand& h = pad.operands[r][i];
        Stream<Held>& s = streams_[static_cast<size_t>(h.id)];
        if (h.active > 0)
          for (int d : w_.ops[pad.op].dims) {
            const auto k = static_cast<size_t>(d);
            s.snapshot[pad.op][k] = {pad.start[k] + h.last_lo[k], pad.start[k] + h.last_lo[k] + h.last_len[k]};
          }
        if (s.write && !h.cover.empty()) add_cover(h.id, h.cover);
        if (representing_) touched_.push_back(h.id);
      }
    out = Time();
    out.latency = t;
    ++r_.nests_counted;
    return true;
  }
}

// The nest's loops as they cut its op's box here: every class of steps checked (a dry walk of
// them) — no problem to report, at most one spatial loop whose instance count changes (listed by
// the scan), the others alike in every step, every spatial split even — and not too many classes.
template <class Held>
bool Walker<Held>::plan_padded(int node, const OpBoxes& boxes, int leaf, PaddedNest& pad) {
  const TreeNode& n = f_.nodes[static_cast<size_t>(node)];
  pad.op = static_cast<size_t>(f_.nodes[static_cast<size_t>(leaf)].op);
  const Op& op = w_.ops[pad.op];
  if (n.loops.size() > kMaxNestLoops) return false;
  pad.temporal = 0;
  while (pad.temporal < n.loops.size() && !n.loops[pad.temporal].spatial) ++pad.temporal;
  pad.classed = n.loops.size();
  for (size_t li = pad.temporal; li < n.loops.size(); ++li) {
    if (!classes_ || !classes_->count({node, li})) continue;
    if (pad.classed != n.loops.size()) return false;  // runs within runs: walked
    pad.classed = li;
  }
  for (size_t d = 0; d < w_.dims.size(); ++d) {
    pad.start[d] = boxes[pad.op][d].first, pad.lo[d] = 0, pad.len[d] = boxes[pad.op][d].second - boxes[pad.op][d].first;
  }
  for (size_t li = 0; li < pad.temporal; ++li) {
    const int dim = n.loops[li].dim;
    pad.cuts[li] = std::find(op.dims.begin(), op.dims.end(), dim) != op.dims.end() && pad.len[static_cast<size_t>(dim)] > 0;
  }
  if (pad.classed < n.loops.size()) {
    const std::vector<int64_t>& counts = classes_->at({node, pad.classed});
    if (counts.size() > kMaxNestRuns) return false;
    pad.runs = counts.size();
    int64_t from = 0;
    for (size_t r = 0; r < pad.runs; ++r) pad.run_first[r] = from, pad.run_count[r] = counts[r] - from, from = counts[r];
  } else {
    pad.runs = 1;
  }
  pad.dry = true, pad.classes = 0, pad.mult = 1;
  return padded_classes(node, pad, 0, partial_, true) >= 0 && pad.classes <= kMaxNestClasses;
}

// The spatial loops in a step of the nest: how they cut the op's box (instance extents per dim)
// and how many instances the classed loop runs; false where the walk would not take them alike.
template <class Held>
bool Walker<Held>::padded_spatial(int node, PaddedNest& pad, int partial) {
  const TreeNode& n = f_.nodes[static_cast<size_t>(node)];
  const Op& op = w_.ops[pad.op];
  for (size_t d = 0; d < w_.dims.size(); ++d) pad.inst_len[d] = pad.len[d];
  pad.present = pad.runs;
  for (size_t li = pad.temporal; li < n.loops.size(); ++li) {
    const Loop& l = n.loops[li];
    const auto d = static_cast<size_t>(l.dim);
    if (std::find(op.dims.begin(), op.dims.end(), l.dim) == op.dims.end() || pad.inst_len[d] <= 0) return false;
    const int64_t e = pad.inst_len[d];
    if (l.factor > e && partial == 0) return false;
    const Cut c = cut(e, l.factor);
    if (c.last != c.chunk) return false;
    if (pad.dry) {
      // The extent the walk's split saw first (or will see): the same chunk every step.
      const auto it = spatial_splits_.find({node, li});
      const int64_t seen_chunk = it != spatial_splits_.end() ? it->second.chunk : pad.trips[li] > 0 ? pad.chunks[li] : c.chunk;
      if (c.chunk != seen_chunk || (it != spatial_splits_.end() && !it->second.even)) return false;
      if (pad.trips[li] == 0) pad.trips[li] = c.trips, pad.chunks[li] = c.chunk;
      if (li == pad.classed) {
        const std::vector<int64_t>& counts = classes_->at({node, li});
        if (!std::binary_search(counts.begin(), counts.end(), c.trips)) return false;
      } else if (c.trips != pad.trips[li]) {
        return false;
      }
    }
    if (!pad.dry) spatial_split_ok(node, li, e, c);  // the walk's bookkeeping, as it would do it (checked dry)
    if (li == pad.classed) {
      pad.present = 0;
      while (pad.present < pad.runs && pad.run_first[pad.present] + pad.run_count[pad.present] <= c.trips) ++pad.present;
      pad.classed_dim = l.dim, pad.classed_chunk = c.chunk;
    }
    pad.inst_len[d] = c.chunk;
  }
  return true;
}

// Loops i.. of the nest from its current box; with `dry`, only checks (-1: not taken alike).
template <class Held>
double Walker<Held>::padded_classes(int node, PaddedNest& pad, size_t i, int partial, bool first_path) {
  if (i == pad.temporal) {
    ++pad.classes;
    if (!padded_spatial(node, pad, partial)) return -1;
    if (pad.dry) {
      if (first_path) pad.first_present = pad.present;
      return pad.present <= pad.first_present ? 0 : -1;
    }
    return first_path ? pad.first_time : padded_activation(pad);
  }
  const Loop& loop = f_.nodes[static_cast<size_t>(node)].loops[i];
  const auto d = static_cast<size_t>(loop.dim);
  if (!pad.cuts[i] || pad.len[d] <= 0) return padded_classes(node, pad, i + 1, partial, first_path);
  const int64_t extent = pad.len[d];
  if (loop.factor > extent && partial == 0) return -1;
  const Cut c = cut(extent, loop.factor);
  const int64_t lo = pad.lo[d], len = pad.len[d];
  const int64_t full = c.last == c.chunk ? c.trips : c.trips - 1;
  auto step = [&](int64_t k, int64_t extent_k, int partial_k, bool first_k) {
    pad.lo[d] = lo + k * c.chunk, pad.len[d] = extent_k;
    return padded_classes(node, pad, i + 1, partial_k, first_k);
  };
  double latency = 0;
  if (full >= 1) {
    const double first = step(0, c.chunk, partial, first_path);
    if (first < 0) return -1;
    latency += first;
  }
  if (full >= 2) {
    const int64_t middle = full - 1;
    const bool standing = middle > 1 && !pad.dry;
    if (standing) pad.open_representative();
    pad.mult *= middle;
    const double next = step(1, c.chunk, partial, false);
    pad.mult /= middle;
    if (next < 0) return -1;
    latency += middle == 1 ? next : next * static_cast<double>(middle);
    if (standing) padded_translate(pad, loop.dim, c.chunk, middle - 1);
  }
  if (full < c.trips) {
    const double last = step(c.trips - 1, c.last, partial + 1, false);
    if (last < 0) return -1;
    latency += last;
  }
  pad.lo[d] = lo, pad.len[d] = len;
  return latency;
}

// One step's activations of the registers, run by run as Walker::spatial takes them (the first
// run timed; the sources of later ones sending only what the earlier did not), and the leaf.
template <class Held>
double Walker<Held>::padded_activation(PaddedNest& pad) {
  if constexpr (!std::is_same_v<Held, Boxes>) {
    return 0;
  } else {
    const Op& op = w_.ops[pad.op];
    int64_t points = 1;
    for (int d : op.dims) points *= std::max<int64_t>(0, pad.inst_len[static_cast<size_t>(d)]);
    int64_t others = 1;  // instances of the spatial loops that are not classed
    for (size_t li = pad.temporal; li < f_.nodes[static_cast<size_t>(pad.node)].loops.size(); ++li)
      if (li != pad.classed) others *= pad.trips[li];
    if (pad.present > 1) passes_ = Passes{pad.node, pad.level, {}};
    double load = 0, store = 0;
    for (size_t r = 0; r < pad.present; ++r) {
      const int64_t count = pad.classed < f_.nodes[static_cast<size_t>(pad.node)].loops.size() ? pad.run_count[r] : 1;
      const int64_t weight = pad.weight * others * count * pad.mult;
      for (size_t i = 0; i < pad.count[r]; ++i) {
        PaddedOperand& h = pad.operands[r][i];
        Stream<Held>& s = streams_[static_cast<size_t>(h.id)];
        const TensorAccess& acc = *accesses_.of(s.owner, s.tensor).begin()->access;
        Boxes now;
        now.n = 1;
        Box& b = now.part[0];
        b.rank = static_cast<int>(acc.index.size());
        for (size_t x = 0; x < acc.index.size(); ++x) {
          const AffineIndex& ix = acc.index[x];
          if (ix.terms.empty()) {
            b.r[x] = {ix.offset, ix.offset + 1};
            continue;
          }
          const int dim = ix.terms[0].dim;
          const auto k = static_cast<size_t>(dim);
          const int64_t from = ix.offset + pad.start[k] + pad.lo[k] + (dim == pad.classed_dim ? pad.run_first[r] * pad.classed_chunk : 0);
          b.r[x] = {from, from + pad.inst_len[k]};
          if (pad.inst_len[k] <= 0) now.n = 0;
        }
        const int64_t fresh = now.minus_size(s.resident);
        const int64_t shared = !h.multicast ? (h.merged == 1 ? fresh : fresh * h.merged)
                               : passes_    ? sent_over_passes(pad.reg, s.tensor, h.id, now, h.merged, fresh)
                               : h.merged == 1 ? fresh
                                               : merged_fresh(now, s.resident, fresh, s.spreads);
        const int64_t source_weight = weight / h.merged;
        if (const int64_t grown = now.size() - s.resident.size(); grown != 0) add_occupancy(s.level, s.tensor, s.inst_ctx, grown);
        if (s.write) {
          s.write_entries += fresh * weight;
          s.mc_write_entries += shared * source_weight;
          if (!now.empty()) pad.wrote(r, i, first_part(now));
        } else {
          r_.traffic[static_cast<size_t>(s.level)][static_cast<size_t>(s.tensor)].fill += fresh * weight;
        }
        charge_source(s.tensor, s.source, s.level, s.write, shared * source_weight);
        s.resident = now;
        ++h.active;
        for (int d : op.dims) {
          const auto k = static_cast<size_t>(d);
          h.last_lo[k] = pad.lo[k] + (d == pad.classed_dim ? pad.run_first[r] * pad.classed_chunk : 0), h.last_len[k] = pad.inst_len[k];
        }
        if (r == 0) (s.write ? store : load) += transfer_time(a_, s.source, s.level, s.write, row_of(now), fresh, shared).cycles;
      }
      add_leaf(pad.leaf, points, weight);
    }
    passes_.reset();
    if (store > 0) last_store_ = store, ++stores_;
    return std::max({load, static_cast<double>(points * op.ops_per_point), store});
  }
}

// After a step standing for `extra` more along `dim`: the operands it activated moved on, and
// what they wrote repeated at each step (Walker::translate_since).
template <class Held>
void Walker<Held>::padded_translate(PaddedNest& pad, int dim, int64_t chunk, int64_t extra) {
  if constexpr (std::is_same_v<Held, Boxes>) {
    const int64_t by = chunk * extra;
    auto& opened = pad.opened.back();
    for (size_t r = 0; r < pad.first_present; ++r)
      for (size_t i = 0; i < pad.count[r]; ++i) {
        PaddedOperand& h = pad.operands[r][i];
        if (h.active == opened.active[r][i]) continue;  // not activated in the step
        Stream<Held>& s = streams_[static_cast<size_t>(h.id)];
        const TensorAccess& acc = *accesses_.of(s.owner, s.tensor).begin()->access;
        Slice& wrote = opened.written[r][i];
        for (size_t x = 0; x < acc.index.size(); ++x) {
          if (acc.index[x].terms.empty() || acc.index[x].terms[0].dim != dim) continue;
          if (!s.resident.empty()) s.resident.part[0].r[x].first += by, s.resident.part[0].r[x].second += by;
          if (!wrote.empty()) wrote[x] = wrote[x].united(wrote[x].with_translates(chunk, 1, extra));
        }
        h.last_lo[static_cast<size_t>(dim)] += by;
      }
    pad.close_representative();
  }
}

template class Walker<MultiSlice>;
template class Walker<Boxes>;

}  // namespace dfx::model
