// The closed form's buffers (model/template_evaluator.h): what an activation brings in and sends,
// occupancy and peaks, covers, a run's multicast sends, and the refills counted at the end.
#include <algorithm>
#include <cmath>

#include "model/template_evaluator.h"
#include "model/transfer_time.h"

namespace dfx::model::closed_form {

// The slot's slice where its access's op has the ranges `op` (take_slice of its one access), into
// `b` (ranges past its rank left as they were).
void TemplateEval::box_of(const Slot& s, const Range* op, Box& b) const {
  b.rank = static_cast<int>(s.access->index.size());
  for (int j = 0; j < b.rank; ++j) {
    const AffineIndex& ix = s.access->index[static_cast<size_t>(j)];
    if (ix.terms.empty()) {
      b.r[j] = {ix.offset, ix.offset + 1};
    } else {
      const Range& r = op[ix.terms[0].dim];
      b.r[j] = {r.first + ix.offset, std::max(r.first, r.second) + ix.offset};
    }
  }
}

int64_t plain_slice_size(const TensorAccess& access, const Range* op) {
  int64_t n = 1;
  for (const AffineIndex& ix : access.index)
    if (!ix.terms.empty()) n *= std::max<int64_t>(0, op[ix.terms[0].dim].second - op[ix.terms[0].dim].first);
  return n;
}

int64_t box_size(const Box& b) {
  int64_t n = 1;
  for (int j = 0; j < b.rank; ++j) n *= std::max<int64_t>(0, b.r[j].second - b.r[j].first);
  return n;
}

int64_t overlap(const Box& a, const Box& b) {
  int64_t n = 1;
  for (int j = 0; j < a.rank; ++j) n *= std::max<int64_t>(0, std::min(a.r[j].second, b.r[j].second) - std::max(a.r[j].first, b.r[j].first));
  return n;
}

// merged_fresh (held.h) for a buffer holding one box: what the instances newly hold together,
// without building the general sets where the new slice is apart from the held one.
int64_t merged_fresh_one(const Box& now, const Box& held, bool holds, int64_t fresh, const Spreads& spreads);

Boxes as_boxes(const Box& b, bool holds) {
  Boxes out;
  if (holds && box_size(b) > 0) out.n = 1, out.part[0] = b;
  return out;
}

int64_t merged_fresh_one(const Box& now, const Box& held, bool holds, int64_t fresh, const Spreads& spreads) {
  if (spreads.empty()) return fresh;
  if (fresh == 0) return 0;
  uint64_t axes = 0;
  bool once = true;
  for (const auto& sp : spreads) {
    const size_t axis = std::get<0>(sp);
    once = once && axis < 64 && !(axes >> axis & 1);
    if (axis < 64) axes |= uint64_t{1} << axis;
  }
  if (once && (!holds || overlap(now, held) == 0)) return spread_size(now, spreads);
  return merged_fresh(as_boxes(now, true), as_boxes(held, holds), fresh, spreads);
}

// Walker::charge_source.
void TemplateEval::charge_source(int tensor, int source, int level, bool write, int64_t n) {
  model::charge_source(r_, a_, staging_, tensor, source, level, write, n);
}

void TemplateEval::touch(int id) {
  for (size_t k = 0; k < depth_; ++k) reps_[k].touched[static_cast<size_t>(id)] = 1;
}

void TemplateEval::add_cover(int id, const Box& part) {
  auto unite = [&](Cover& into) {
    into.rank = part.rank;
    for (int j = 0; j < part.rank; ++j) into.axis[j].add_interval(part.r[j].first, part.r[j].second);
  };
  unite(slots_[static_cast<size_t>(id)].cover);
  for (size_t k = 0; k < depth_; ++k) unite(reps_[k].wrote[static_cast<size_t>(id)]);
}

void TemplateEval::add_cover(int id, size_t axis, const AxisCover& part) {
  const int rank = static_cast<int>(slots_[static_cast<size_t>(id)].access->index.size());
  auto unite = [&](Cover& into) {
    into.rank = rank;
    into.axis[axis].add(part);
  };
  unite(slots_[static_cast<size_t>(id)].cover);
  for (size_t k = 0; k < depth_; ++k) unite(reps_[k].wrote[static_cast<size_t>(id)]);
}

// Walker::activate for a buffer holding one box.
Moved TemplateEval::activate(int id, const Range* op, int64_t weight) {
  Slot& s = slots_[static_cast<size_t>(id)];
  if (!s.created) s.created = true, s.instance_weight = instance_weight_;
  if (cur_op_ >= 0) s.owners |= uint64_t{1} << cur_op_;
  // The evaluator's own box, not a fresh one: a Box starts with its ranges zeroed (a string
  // store perf found at 12% of an activation).
  Box& now = now_;
  box_of(s, op, now);
  const int64_t now_size = box_size(now);
  const int64_t held_size = s.holds ? box_size(s.held) : 0;
  const int64_t fresh = now_size - (s.holds ? overlap(now, s.held) : 0);
  int64_t merged = 1;
  for (size_t k = s.prefix; k < stack_.size(); ++k) merged *= stack_[k].count;
  const bool multicast = a_.levels[static_cast<size_t>(s.source)].multicast;
  if (multicast && merged > 1 && s.spreads_node != s.node && now_size > 0) {
    // Walker::spreads_for: per spatial level past the source's, the axis its move shifts the slice along.
    s.spreads.clear();
    for (size_t k = s.prefix; k < stack_.size(); ++k) {
      if (stack_[k].count <= 1) continue;
      int axis = -1;
      int64_t step = 0;
      for (size_t j = 0; j < s.access->index.size(); ++j) {
        const AffineIndex& ix = s.access->index[j];
        const int64_t d = ix.terms.empty() ? 0 : stack_[k].move(s.op, ix.terms[0].dim);
        if (d == 0) continue;
        if (axis >= 0) throw Refused{"a slice moving along two axes"};
        axis = static_cast<int>(j), step = d;
      }
      if (axis >= 0) s.spreads.emplace_back(static_cast<size_t>(axis), step, stack_[k].count);
    }
    s.spreads_node = s.node;
  }
  const bool over_runs = passes_level_ >= 0 && static_cast<long>(s.prefix) <= passes_level_;
  const int64_t shared = multicast && over_runs ? sent_over_runs(id, now, merged, fresh)
                         : merged == 1          ? fresh
                         : multicast            ? merged_fresh_one(now, s.held, s.holds, fresh, s.spreads)
                                                : fresh * merged;
  const int64_t source_weight = divide(weight, merged);
  const bool takes_back = s.write && fresh > 0 && (past_first_ & ~s.dims) != 0;
  add_occupancy(s.level, s.tensor, s.row, now_size - held_size);
  s.mc_count = multicast ? merged : 1;
  if (s.write) {
    s.write_entries += fresh * weight;
    s.mc_write_entries += shared * source_weight;
    if (now_size > 0) add_cover(id, now);
  } else {
    r_.traffic[static_cast<size_t>(s.level)][static_cast<size_t>(s.tensor)].fill += fresh * weight;
  }
  charge_source(s.tensor, s.source, s.level, s.write, shared * source_weight);
  s.held = now, s.holds = now_size > 0;
  touch(id);
  const int64_t row = now.rank == 0 ? 1 : now.r[now.rank - 1].second - now.r[now.rank - 1].first;
  Moved m;
  (s.write ? m.store : m.load) = transfer_time(a_, s.source, s.level, s.write, row, fresh, shared).cycles;
  if (takes_back) m.load = transfer_time(a_, s.source, s.level, false, row, fresh, shared).cycles;
  if (!computed_) first_loads_ += m.load;
  return m;
}

// Walker::sent_over_passes and sent_apart: what a run's multicast source sends, against what the
// earlier runs' sent in this step: nothing where it is the same spread box, all of it where it
// is apart from them.
int64_t TemplateEval::sent_over_runs(int id, const Box& now, int64_t merged, int64_t fresh) {
  Slot& s = slots_[static_cast<size_t>(id)];
  const auto live = sent_.begin() + static_cast<long>(st_.sent_live);
  auto found = std::find_if(sent_.begin(), live, [&](const Sent& e) { return e.node == s.node && e.tensor == s.tensor; });
  // A new entry in kept storage (entries are made by the thousand a search: their lists'
  // allocations were half of this function).
  auto fresh_entry = [&]() -> Sent& {
    if (st_.sent_live == sent_.size()) sent_.emplace_back();
    Sent& e = sent_[st_.sent_live++];
    e.node = s.node, e.tensor = s.tensor;
    e.slots.assign(1, id), e.spread.clear();
    return e;
  };
  if (fresh == 0) {
    if (found == live) {
      fresh_entry();
    } else {
      s.twins = found->slots;
      found->slots.push_back(id);
    }
    return 0;
  }
  if (s.holds && overlap(now, s.held) != 0) throw Refused{"a run sending part of what it holds"};
  SpreadBox& sent = st_.send;  // kept: its list's storage is reused
  sent.box = now;
  sent.spreads.clear();
  if (merged > 1) {
    uint64_t axes = 0;
    for (const auto& sp : s.spreads) {
      const size_t axis = std::get<0>(sp);
      if (axis >= 64 || (axes >> axis & 1)) throw Refused{"a run's send spread twice along one axis"};
      axes |= uint64_t{1} << axis;
    }
    sent.spreads = s.spreads;
  }
  if (found == live) {
    fresh_entry().spread.push_back(sent);
    return sent.size();
  }
  bool same = false, apart = true;
  for (const SpreadBox& b : found->spread) same = same || b == sent, apart = apart && b.apart_from(sent);
  if (!same && !apart) throw Refused{"a run's send meeting an earlier one's in part"};
  s.twins = found->slots;
  found->slots.push_back(id);
  if (same) return 0;
  found->spread.push_back(sent);
  return sent.size();
}

// Walker::add_leaf.
void TemplateEval::add_leaf(int leaf, int64_t points, int64_t weight) {
  add_leaf_counts(r_, w_, f_, p_, leaf, points, weight);
  // Walker::check_fill, at the first leaf of the tree or of a root phase: then every part returns
  // at once (an exception unwinding the recursion cost more than the evaluation it saved).
  if (!computed_ && give_up_.bar != INFINITY && give_up_.floor + first_loads_ > give_up_.bar)
    gave_up_ = true, at_least_ = give_up_.floor + first_loads_;
  computed_ = true;
}

// Walker::finish_write_streams: refills of partial sums.
void TemplateEval::finish(int group) {
  for (size_t i = 0; i < st_.live; ++i) {
    Slot& s = slots_[i];
    if (s.finished || (group >= 0 && s.group != group)) continue;
    s.finished = true;
    if (!s.write || s.cover.empty()) continue;
    auto size_of = [](const Cover& c) {
      int64_t n = 1;
      for (int j = 0; j < c.rank; ++j) n *= c.axis[j].size();
      return n;
    };
    const int64_t distinct = size_of(s.cover) * s.instance_weight;
    r_.traffic[static_cast<size_t>(s.level)][static_cast<size_t>(s.tensor)].fill += s.write_entries - distinct;
    // The instances' covers together: spread_set on each spread axis.
    auto spread_cover = [](const Slot& x) {
      Cover c = x.cover;
      for (const auto& [axis, step, count] : x.spreads) c.axis[axis].add_translates(step, count - 1);
      return c;
    };
    const Cover merged = spread_cover(s);
    int64_t merged_distinct = size_of(merged);
    // A later run: what the earlier runs wrote was counted with theirs.
    if (!s.twins.empty()) {
      Region before;
      for (const int twin : s.twins)
        if (!slots_[static_cast<size_t>(twin)].cover.empty()) before.unite(Region::of(spread_cover(slots_[static_cast<size_t>(twin)]).slice()));
      merged_distinct = Region::of(merged.slice()).size_outside(before);
    }
    merged_distinct *= s.instance_weight / s.mc_count;
    charge_source(s.tensor, s.source, s.level, false, s.mc_write_entries - merged_distinct);
  }
}
}  // namespace dfx::model::closed_form
