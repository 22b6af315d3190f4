// An op's own tiles in closed form: a tile whose loops cut its op's box into equal steps, above its
// leaf or above a loop-less tile that holds the op's operands (a PE array's registers). The
// first step is walked; every later one differs from the step before only in which operands'
// slices moved, which follows from the loop that advanced, so the later steps are counted class
// by class (the step after loop j advanced) instead of walked, and their time summed in the
// walk's order: the same counts, states and sums as walking them, to the bit
// (tests/unit/held_test.cpp holds it to the walk with sets, which walks every step).
#include <algorithm>
#include <type_traits>

#include "model/transfer_time.h"
#include "model/walker.h"

namespace dfx::model {

NestPlan NestPlan::for_run(size_t r) const {
  NestPlan p = *this;
  if (classed >= 0) {
    p.instances = instances / spatial_trips[classed] * run_count[r];
    p.spatial_trips[classed] = run_count[r];
  }
  if (padded >= 0 && r >= runs_partial) --p.steps[padded].trips;  // it sits the partial step out
  p.count_steps();
  return p;
}

void NestPlan::count_steps() {
  total = 1;
  for (size_t j = 0; j < temporal; ++j) after[j] = total * (steps[j].trips - 1), total *= steps[j].trips;
}

bool NestPlan::moves(uint64_t dims, size_t j) const {
  for (size_t k = j; k < temporal; ++k)
    if ((k == j || steps[k].trips > 1) && (dims >> steps[k].dim & 1)) return true;
  return false;
}

template <class Held>
bool Walker<Held>::nest_shape(int node) {
  signed char& known = nest_shape_[static_cast<size_t>(node)];
  if (known >= 0) return known == 1;
  known = 0;
  const TreeNode& n = f_.nodes[static_cast<size_t>(node)];
  // A tile with loops above one op alone (the op's own tiles, or the inner ones of them).
  if (n.is_leaf || n.children.size() != 1 || n.loops.empty() || n.loops.size() > kMaxNestLoops || w_.dims.size() > 64) return false;
  // Below the tile: the leaf (no buffers: any loops), or a loop-less tile holding operands above it.
  const int reg = n.children[0];
  const TreeNode& r = f_.nodes[static_cast<size_t>(reg)];
  if (r.is_leaf) return known = 1, true;
  if (!r.loops.empty() || r.children.size() != 1 || !f_.nodes[static_cast<size_t>(r.children[0])].is_leaf) return false;
  const int leaf = r.children[0];
  // Operands each read or written once by the op (one box, moved as the op's box moves).
  size_t operands = 0;
  for (const int t : owned_[static_cast<size_t>(reg)]) {
    ++operands;
    const BufferAccesses::Accesses by = accesses_.of(reg, t);
    if (by.end() - by.begin() != 1) return false;
  }
  if (operands > kMaxNestOperands) return false;
  bool spatial = false;  // temporal loops first, then spatial ones
  for (const Loop& l : n.loops) {
    if (spatial && !l.spatial) return false;
    spatial = spatial || l.spatial;
  }
  // Each index of the op's accesses one dim or none: a step moves a slice along its loop's dim.
  const Op& op = w_.ops[static_cast<size_t>(f_.nodes[static_cast<size_t>(leaf)].op)];
  auto plain = [](const TensorAccess& a) {
    for (const auto& ix : a.index)
      if (ix.terms.size() > 1) return false;
    return true;
  };
  bool all = plain(op.out);
  for (const auto& in : op.inputs) all = all && plain(in);
  known = all ? 1 : 0;
  return all;
}

// The nest's steps as the walk would cut them here, or false where it must walk them: a problem
// to report, a step not even but one temporal loop's last (padding the spatial loop over its dim,
// whose instances then run in the scan's classes), runs within runs.
template <class Held>
bool Walker<Held>::plan_nest(int node, const OpBoxes& boxes, NestPlan& plan) const {
  const TreeNode& n = f_.nodes[static_cast<size_t>(node)];
  const Op& op = w_.ops[plan.op];
  int64_t left[64];
  for (size_t d = 0; d < w_.dims.size(); ++d) left[d] = boxes[plan.op][d].second - boxes[plan.op][d].first;
  for (size_t li = 0; li < n.loops.size(); ++li) {
    const Loop& l = n.loops[li];
    const bool used = op.uses_dim(l.dim);
    int64_t& e = left[static_cast<size_t>(l.dim)];
    if (!used || e <= 0) {
      if (l.spatial) return false;
      plan.steps[plan.temporal++] = {l.dim, e, 1, false};
      continue;
    }
    if (l.factor > e && partial_ == 0) return false;  // a problem the walk reports
    const Cut c = cut(e, l.factor);
    if (l.spatial) {
      if (!plan_spatial(node, li, e, c, plan)) return false;
    } else {
      if (l.dim == plan.padded_dim) return false;  // a loop inside the partial step's: other cuts there
      if (c.last != c.chunk) {
        if (plan.padded >= 0) return false;
        plan.padded = static_cast<int>(plan.temporal), plan.padded_dim = l.dim, plan.padded_extent = c.last;
      }
      plan.steps[plan.temporal++] = {l.dim, c.chunk, c.trips, true};
    }
    e = c.chunk;
  }
  if (plan.padded >= 0 && plan.classed < 0) return false;  // the partial step's slices would be smaller
  plan.count_steps();
  for (int d : op.dims) plan.points *= std::max<int64_t>(0, left[static_cast<size_t>(d)]);
  return plan.total > 1;
}

// A spatial loop of the nest: its instances alike in every step, or (one loop) run in the scan's
// classes — over the padded dim, or in every step alike here — each run's instances alike, with
// the same chunk in the partial step, as Walker::spatial_split_ok would take them.
template <class Held>
bool Walker<Held>::plan_spatial(int node, size_t li, int64_t e, const Cut& c, NestPlan& plan) const {
  const Loop& l = f_.nodes[static_cast<size_t>(node)].loops[li];
  if (c.last != c.chunk) return false;
  const SpatialSplit* it = spatial_splits_.find(node, li);
  const bool listed = classes_ && classes_->count({node, li});
  const bool over_padded = l.dim == plan.padded_dim;
  if (!listed) {
    if (over_padded) return false;
    if (it && (it->extent != e || it->counts.size() != 1 || !it->even)) return false;
  } else {
    if (plan.classed >= 0) return false;  // runs within runs
    const std::vector<int64_t>& counts = classes_->at({node, li});
    if (counts.size() > kMaxNestRuns) return false;
    if (it && (!it->even || it->chunk != c.chunk || it->counts.size() + 1 >= kMaxPasses)) return false;
    auto listed_count = [&](int64_t trips) { return std::binary_search(counts.begin(), counts.end(), trips); };
    if (!listed_count(c.trips)) return false;
    plan.runs = counts.size();
    int64_t from = 0;
    for (size_t r = 0; r < plan.runs; ++r) plan.run_first[r] = from, plan.run_count[r] = counts[r] - from, from = counts[r];
    auto present = [&](int64_t trips) {
      size_t k = 0;
      while (k < plan.runs && counts[k] <= trips) ++k;
      return k;
    };
    plan.runs_full = plan.runs_partial = present(c.trips);
    if (over_padded) {
      const Cut p = cut(plan.padded_extent, l.factor);
      if (p.last != p.chunk || p.chunk != c.chunk || !listed_count(p.trips)) return false;
      plan.runs_partial = present(p.trips);
    }
    plan.classed = static_cast<int>(plan.spatial);
  }
  plan.instances *= c.trips;
  plan.spatial_trips[plan.spatial++] = c.trips;
  return true;
}


// A tile with only its op's leaf below holds no buffers: its time and work follow from the box's
// extents alone, step class by step class — the first step, the one standing for the middle
// ones, a partial last one, runs of instances — with the walk's checks on its spatial loops made
// in the walk's order. Nothing is walked.
template <class Held>
bool Walker<Held>::leaf_nest(int node, const OpBoxes& boxes, int64_t weight, Time& out) {
  const TreeNode& n = f_.nodes[static_cast<size_t>(node)];
  const int leaf = n.children[0];
  const auto o = static_cast<size_t>(f_.nodes[static_cast<size_t>(leaf)].op);
  const Op& op = w_.ops[o];
  struct SplitCall {
    size_t li;
    int64_t extent;
    Cut cut;
  };
  SplitCall calls[4 * kMaxNestLoops];
  size_t ncalls = 0;
  bool ok = true;
  int64_t extents[64];
  for (size_t d = 0; d < w_.dims.size(); ++d) extents[d] = boxes[o][d].second - boxes[o][d].first;
  auto note = [&](size_t li, int64_t extent, const Cut& c) {
    if (ncalls == std::size(calls)) return false;
    calls[ncalls++] = {li, extent, c};
    return true;
  };
  const double latency = leaf_nest_time(n, op, 0, extents, partial_, ok, note);
  if (!ok || !splits_would_hold(node, calls, ncalls)) return false;
  for (size_t i = 0; i < ncalls; ++i) spatial_split_ok(node, calls[i].li, calls[i].extent, calls[i].cut);
  // Every point of the box once, whatever the steps and runs.
  int64_t points = 1;
  for (int d : op.dims) points *= std::max<int64_t>(0, boxes[o][static_cast<size_t>(d)].second - boxes[o][static_cast<size_t>(d)].first);
  add_leaf(leaf, points, weight);
  out = Time();
  out.latency = latency;
  ++r_.nests_counted;
  return true;
}

template <class Held>
template <class Calls>
bool Walker<Held>::splits_would_hold(int node, const Calls& calls, size_t count) const {
  // Walker::spatial_split_ok's problems, on copies of the splits it would keep (in place: this
  // runs for every visit of a vector op's tile).
  struct Seen {
    size_t li;
    int64_t extent, chunk;
    bool even;
    int64_t counts[kMaxPasses];
    size_t n;
  };
  Seen seen[kMaxNestLoops];
  size_t known = 0;
  for (size_t i = 0; i < count; ++i) {
    const auto& call = calls[i];
    Seen* it = std::find_if(seen, seen + known, [&](const Seen& s) { return s.li == call.li; });
    if (it == seen + known) {
      if (known == kMaxNestLoops) return false;
      it = &seen[known++];
      const SpatialSplit* split = spatial_splits_.find(node, call.li);
      if (split) {
        if (split->counts.size() >= static_cast<size_t>(kMaxPasses)) return false;
        *it = {call.li, split->extent, split->chunk, split->even, {}, split->counts.size()};
        std::copy(split->counts.begin(), split->counts.end(), it->counts);
      } else {
        *it = {call.li, call.extent, call.cut.chunk, call.cut.last == call.cut.chunk, {}, 0};
      }
    }
    const bool even = call.cut.last == call.cut.chunk;
    if (it->extent != call.extent && (it->chunk != call.cut.chunk || !it->even || !even)) return false;
    int64_t* at = std::lower_bound(it->counts, it->counts + it->n, call.cut.trips);
    if (at == it->counts + it->n || *at != call.cut.trips) {
      if (it->n + 1 >= static_cast<size_t>(kMaxPasses)) return false;
      std::copy_backward(at, it->counts + it->n, it->counts + it->n + 1);
      *at = call.cut.trips, ++it->n;
    }
    const bool alike = even && it->n == 1;
    if (!alike && !nothing_steps_below(node, call.li)) return false;
  }
  return true;
}

// A leaf's work and its operands' accesses for `points` points at `weight` (visit_leaf's, and a
// counted tile's later steps').
// The fill is final here: loads count in it only until a leaf has run (activate), and spatial
// runs after the first put it back as the first left it (spatial()). Not where the walk may be
// thrown away: a walk whose phase cache met a buffer an earlier phase left (entangled_) or whose
// instance scan missed a count (needs_classes_) is walked again, and its fill may differ.
template <class Held>
void Walker<Held>::check_fill() {
  if (give_up_.bar == INFINITY || !fill_in_cycles_ || instructions_.decoupled() || entangled_ || needs_classes_) return;
  const double at_least = give_up_.floor + first_loads_;
  if (at_least > give_up_.bar) gave_up_ = true, at_least_ = at_least;
}

// The root's phases run one after another, each its whole cycles (fill and drain included), so
// the tree's cycles are the phases' sum, and a phase takes at least its compute. As for the
// fill, not where the walk may be thrown away.
template <class Held>
void Walker<Held>::check_phases_done(size_t phase, double done) {
  if (later_floors_.empty() || instructions_.decoupled() || entangled_ || needs_classes_) return;
  const double at_least = done + later_floors_[phase];
  if (at_least > give_up_.bar) gave_up_ = true, at_least_ = at_least;
}

template <class Held>
void Walker<Held>::add_leaf(int leaf, int64_t points, int64_t weight) {
  add_leaf_counts(r_, w_, f_, p_, leaf, points, weight);
  if (!computed_) check_fill();
  computed_ = true;
}

template <class Held>
bool Walker<Held>::own_nest(int node, const OpBoxes& boxes, int64_t weight, Time& out) {
  if constexpr (!std::is_same_v<Held, Boxes>) {
    return false;
  } else {
    if (instructions_.decoupled() || !nest_shape(node)) return false;
    const int reg = f_.nodes[static_cast<size_t>(node)].children[0];
    if (f_.nodes[static_cast<size_t>(reg)].is_leaf) return leaf_nest(node, boxes, weight, out);
    // Runs of instances of a spatial loop above keep what their sources send to themselves.
    if (passes_ || !stepping_runs_.empty() || untimed_ != 0) return false;
    const int leaf = f_.nodes[static_cast<size_t>(reg)].children[0];
    NestPlan plan;
    plan.op = static_cast<size_t>(f_.nodes[static_cast<size_t>(leaf)].op);
    if (!plan_nest(node, boxes, plan)) return false;
    // The first step, walked: the spatial loops, the registers' activations and the leaf.
    BoxPool::Lease first(pool_, boxes);
    for (size_t i = 0; i < plan.temporal; ++i)
      if (plan.steps[i].cuts) index_.restrict(node, plan.steps[i].dim, 0, plan.steps[i].chunk, *first);
    const Time first_time = loops(node, plan.temporal, *first, weight);
    if (gave_up_) return out = Time(), true;
    NestOperand first_run[kMaxNestOperands];
    const size_t count = count_later_steps(node, reg, leaf, plan, weight, first_run);
    if (plan.padded >= 0) {  // the walk's split bookkeeping for the partial step (checked in plan_spatial)
      const size_t li = plan.temporal + static_cast<size_t>(plan.classed);
      spatial_split_ok(node, li, plan.padded_extent, cut(plan.padded_extent, f_.nodes[static_cast<size_t>(node)].loops[li].factor));
    }
    out = Time();
    auto stored = [&](double store) { last_store_ = store, ++stores_; };
    const uint64_t padded_loops = plan.padded >= 0 ? uint64_t{1} << plan.padded : 0;
    out.latency = nest_time(plan, padded_loops, first_run, count, first_time.latency, w_.ops[plan.op].ops_per_point, past_first_,
                            stored);
    ++r_.nests_counted;
    return true;
  }
}

// The later steps' traffic, buffer states and work, run by run: each run's operands' buffers in
// the instances' context the first step entered. Returns how many operands, the first run's in
// `first_run` (the nest's time is theirs).
template <class Held>
size_t Walker<Held>::count_later_steps(int node, int reg, int leaf, const NestPlan& plan, int64_t weight, NestOperand* first_run) {
  const TreeNode& n = f_.nodes[static_cast<size_t>(node)];
  const int classed_dim = plan.classed >= 0 ? n.loops[plan.temporal + static_cast<size_t>(plan.classed)].dim : -1;
  size_t count = 0;
  const int saved_ctx = inst_ctx_;
  for (size_t r = 0; r < plan.runs_full; ++r) {
    const NestPlan run = plan.for_run(r);
    inst_ctx_ = saved_ctx;
    for (size_t li = plan.temporal, k = 0; li < n.loops.size(); ++li, ++k)
      inst_ctx_ = contexts_.enter(inst_ctx_, instance_key(node, li, static_cast<int>(k) == plan.classed ? static_cast<int64_t>(r) : 0));
    count = 0;
    for (const int t : owned_[static_cast<size_t>(reg)]) {
      NestOperand h = nest_operand(reg, t, run, weight);
      // A later run sends what the earlier ones did not: nothing where its slice is theirs.
      if (r > 0 && h.multicast && !(h.dims >> classed_dim & 1)) h.shared = 0;
      move_on(h, run, weight * run.instances);
      if (r == 0) first_run[count] = h;
      ++count;
    }
    add_leaf(leaf, plan.points * (run.total - 1), weight * run.instances);
  }
  inst_ctx_ = saved_ctx;
  return count;
}

// An operand's buffer after the first step: what a later step that moves its slice brings in.
template <class Held>
NestOperand Walker<Held>::nest_operand(int reg, int t, const NestPlan& plan, int64_t weight) {
  NestOperand h;
  h.id = stream_for(reg, t);
  const Stream<Held>& s = streams_[static_cast<size_t>(h.id)];
  h.write = s.write;
  h.dims = indexed_by(reg, t);
  if (h.write)
    for (auto* rec : recorders_) rec->unindexing_written |= ~h.dims;  // as activate() notes it
  // A moved slice is apart from the one before (a loop's chunks do not overlap): all of it is
  // new, and the instances' union is the slice spread (model::merged_fresh).
  h.fresh = s.resident.size();
  const auto prefix = static_cast<size_t>(mc_prefix_[static_cast<size_t>(reg) * w_.tensors.size() + static_cast<size_t>(t)]);
  int64_t merged = 1;
  for (size_t k = prefix; k < spatial_stack_.size(); ++k) merged *= spatial_stack_[k].count;
  for (size_t k = 0; k < plan.spatial; ++k)
    if (spatial_stack_.size() + k >= prefix) merged *= plan.spatial_trips[k];
  const bool multicast = a_.levels[static_cast<size_t>(s.source)].multicast;
  h.multicast = multicast;
  h.shared = merged == 1 ? h.fresh : multicast ? merged_fresh(s.resident, Held(), h.fresh, s.spreads) : h.fresh * merged;
  h.time = transfer_time(a_, s.source, s.level, s.write, row_of(s.resident), h.fresh, h.shared).cycles;
  if (s.write) h.back_time = transfer_time(a_, s.source, s.level, false, row_of(s.resident), h.fresh, h.shared).cycles;
  h.source_weight = weight * plan.instances / merged;
  return h;
}

// The later steps' effect on an operand's buffer: its traffic, and the state the walk leaves — the
// last step's slice, the boxes moved on, every step's slice covered where it is written.
template <class Held>
void Walker<Held>::move_on(const NestOperand& h, const NestPlan& plan, int64_t step_weight) {
  const int64_t moves = plan.steps_moving(h.dims);
  if (!recorders_.empty()) note_change(h.id);
  Stream<Held>& s = streams_[static_cast<size_t>(h.id)];
  count_moves(s, h, step_weight, moves, r_.traffic[static_cast<size_t>(s.level)][static_cast<size_t>(s.tensor)],
              [&](int64_t sent) { charge_source(s.tensor, s.source, s.level, s.write, sent); });
  const TensorAccess& acc = *accesses_.of(s.owner, s.tensor).begin()->access;
  const bool covers = s.write && moves > 0 && !s.resident.empty();
  Slice cover;
  if (covers) cover = first_part(s.resident);
  shift_.assign(acc.index.size(), 0);
  for (size_t j = 0; j < plan.temporal; ++j) {
    const NestPlan::Step& step = plan.steps[j];
    if (step.trips <= 1) continue;
    const int64_t by = step.chunk * (step.trips - 1);
    for (size_t x = 0; x < acc.index.size(); ++x) {
      if (acc.index[x].terms.empty() || acc.index[x].terms[0].dim != step.dim) continue;
      shift_[x] += by;
      if (covers) cover[x].add_translates(step.chunk, step.trips - 1);
    }
    Range& r = s.snapshot[plan.op][static_cast<size_t>(step.dim)];
    r.first += by, r.second += by;
  }
  if (!s.resident.empty()) s.resident.shift(shift_);
  if (covers) add_cover(h.id, cover);
  if (representing_) touched_.push_back(h.id);
}

template class Walker<MultiSlice>;
template class Walker<Boxes>;

}  // namespace dfx::model
