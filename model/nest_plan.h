#pragma once
// An op's own tiles counted in closed form, shared by the walk (model/walk_nest.cpp) and the
// template's closed form (model/template_eval.cpp): how a tile's loops cut the op's box into
// steps, what an operand's buffer does in the steps that move its slice, and a vector op's time
// from its extents. Internal to model/.
#include <algorithm>
#include <cstdint>

#include "model/dataflow.h"
#include "model/report.h"
#include "model/walk_support.h"
#include "model/workload.h"

namespace dfx::model {

// An op's own tiles above its operands' registers, walked in closed form after their first step
// (model/walk_nest.cpp): how the tile's loops cut the op's box.
constexpr size_t kMaxNestLoops = 16, kMaxNestOperands = 8, kMaxNestRuns = 8;
struct NestPlan {
  struct Step {
    int dim = 0;
    int64_t chunk = 0, trips = 1;
    bool cuts = false;  // the walk restricts the boxes (not a loop over a dim the op does not use)
  };
  size_t op = 0;
  Step steps[kMaxNestLoops];  // the temporal loops, outermost first
  size_t temporal = 0;
  int64_t spatial_trips[kMaxNestLoops];  // the spatial loops' instances
  size_t spatial = 0;
  int64_t instances = 1;  // all spatial loops' together
  int64_t total = 1;      // temporal steps
  int64_t after[kMaxNestLoops];  // how many steps follow an advance of temporal loop j
  int64_t points = 1;     // the leaf's points in a step
  // Padding: the temporal loop whose last step is partial (-1: none), over `padded_dim`, where the
  // spatial loop over that dim (`classed`, an index among the spatial loops) runs fewer instances.
  // Instances run in runs of alike ones (the scan's classes; one run when no loop is classed).
  // These and for_run() are the walk's; the closed form, which takes two classed spreads, keeps
  // its runs apart (closed_form::NestRuns, model/template_evaluator.h).
  int padded = -1, padded_dim = -1;
  int classed = -1;
  int64_t padded_extent = 0;      // the classed loop's extent in the partial step
  size_t runs = 1, runs_full = 1, runs_partial = 1;  // runs of instances: in a full step, in the partial one
  int64_t run_first[kMaxNestRuns] = {0}, run_count[kMaxNestRuns] = {1};
  // Whether a slice indexed by `dims` moves in the step after loop j advanced (the loops inside
  // it back at their first step).
  bool moves(uint64_t dims, size_t j) const;
  // How many of the later steps move a slice indexed by `dims` (each one brings it in anew).
  int64_t steps_moving(uint64_t dims) const {
    int64_t n = 0;
    for (size_t j = 0; j < temporal; ++j)
      if (steps[j].trips > 1 && moves(dims, j)) n += after[j];
    return n;
  }
  // This plan for run r: its instances, and without the partial step if the run sits it out.
  NestPlan for_run(size_t r) const;
  // `total` and `after` from the steps' trip counts.
  void count_steps();
};
// The latency of a tile's loops li.. over its op's leaf alone (Walker::leaf_nest; the closed
// form's vector ops), as Walker::loops sums it: the first step, the one standing for the middle
// ones (the first's again: a leaf's time holds no buffer state, so a nest of d loops costs 2^d
// evaluations, not 3^d), a partial last one; a spread's first run timed, a shorter last instance
// cut but not timed. `extents`: per dim, cut in place and put back. `partial`: partial steps
// around. `on_spread(li, extent, cut)` sees each spread's split, in the walk's order; it, or a
// factor above its extent in a full step, ends the count (`ok` false).
template <class OnSpread>
double leaf_nest_time(const TreeNode& n, const Op& op, size_t li, int64_t* extents, int partial, bool& ok, OnSpread& on_spread) {
  if (!ok) return 0;
  if (li == n.loops.size()) {
    int64_t points = 1;
    for (int d : op.dims) points *= std::max<int64_t>(0, extents[static_cast<size_t>(d)]);
    return static_cast<double>(points * op.ops_per_point);
  }
  const Loop& loop = n.loops[li];
  int64_t& e = extents[static_cast<size_t>(loop.dim)];
  const int64_t extent = op.uses_dim(loop.dim) ? e : -1;
  if (extent <= 0) return leaf_nest_time(n, op, li + 1, extents, partial, ok, on_spread);
  if (loop.factor > extent && partial == 0) return ok = false, 0.0;  // a problem the walk reports
  const Cut c = cut(extent, loop.factor);
  const int64_t saved = e;
  double latency = 0;
  if (loop.spatial) {
    if (!on_spread(li, extent, c)) return ok = false, 0.0;
    e = c.chunk;
    latency = leaf_nest_time(n, op, li + 1, extents, partial, ok, on_spread);  // the first run's instances: whole chunks
    if (c.last != c.chunk) e = c.last, leaf_nest_time(n, op, li + 1, extents, partial + 1, ok, on_spread);  // untimed
  } else {
    const int64_t full = c.last == c.chunk ? c.trips : c.trips - 1;
    e = c.chunk;
    double first = 0;
    if (full >= 1) first = leaf_nest_time(n, op, li + 1, extents, partial, ok, on_spread), latency += first;
    if (full >= 2) {
      const int64_t middle = full - 1;
      latency += middle == 1 ? first : first * static_cast<double>(middle);
    }
    if (full < c.trips) e = c.last, latency += leaf_nest_time(n, op, li + 1, extents, partial + 1, ok, on_spread);
  }
  e = saved;
  return latency;
}

// One operand's buffer in the steps that move its slice.
struct NestOperand {
  int id = 0;
  bool write = false;
  uint64_t dims = 0;        // the dims that index the tensor
  double time = 0;          // the transfer in such a step
  double back_time = 0;     // written: the time to take the slice's partial sums back
  int64_t fresh = 0, shared = 0;  // elements new to the buffer, and what its source sends
  int64_t source_weight = 0;
  bool multicast = false;
};

// What the later steps that move an operand's slice bring into its buffer (`moves` of them, each
// the slice anew): a read buffer's fills, a written one's entries, and what its source sends
// (`charge(n)`: charge_source). `Buffer`: the walk's Stream or the closed form's Slot.
template <class Buffer, class Charge>
void count_moves(Buffer& s, const NestOperand& h, int64_t step_weight, int64_t moves, Traffic& fills, Charge&& charge) {
  if (moves <= 0) return;
  if (s.write) {
    s.write_entries += h.fresh * step_weight * moves;
    s.mc_write_entries += h.shared * h.source_weight * moves;
  } else {
    fills.fill += h.fresh * step_weight * moves;
  }
  charge(h.shared * h.source_weight * moves);
}

namespace nest_detail {

// nest_time from loop i, after loop `advanced` moved (-1: none); `moving[k]`: the loops after
// whose advance operand k's slice moves (bit j: NestPlan::moves(dims, j)).
template <class Stored>
double time_from(const NestPlan& plan, uint64_t padded_loops, const NestOperand* operands, const uint32_t* moving, size_t count,
                 double first, int64_t ops_per_point, size_t i, int advanced, uint64_t past_first, Stored& stored) {
  if (i == plan.temporal) {
    if (advanced < 0) return first;
    double load = 0, store = 0;
    for (size_t k = 0; k < count; ++k) {
      const NestOperand& h = operands[k];
      if (!(moving[k] >> advanced & 1)) continue;
      (h.write ? store : load) += h.time;
      if (h.write && (past_first & ~h.dims) != 0) load += h.back_time;
    }
    if (store > 0) stored(store);
    return std::max({load, static_cast<double>(plan.points * ops_per_point), store});
  }
  double latency = time_from(plan, padded_loops, operands, moving, count, first, ops_per_point, i + 1, advanced, past_first, stored);
  const bool padded = padded_loops >> i & 1;
  const int64_t full = plan.steps[i].trips - (padded ? 1 : 0);
  if (full < 2 && !padded) return latency;
  // The middle steps and the partial last one both follow loop i's advance: the same time (the
  // partial step's slices are the full ones', runs taking part or not).
  const double next = time_from(plan, padded_loops, operands, moving, count, first, ops_per_point, i + 1, static_cast<int>(i),
                                past_first | uint64_t{1} << plan.steps[i].dim, stored);
  if (full >= 2) {
    const int64_t middle = full - 1;
    latency += middle == 1 ? next : next * static_cast<double>(middle);
  }
  if (padded) latency += next;
  return latency;
}

}  // namespace nest_detail

// The nest's time, in the walk's order: each loop's first step, then its next one standing for
// the rest, then a partial last one (Walker::loops; `padded_loops`: the temporal loops whose last
// step is partial), down to the first run's activation after the loop that advanced last (none:
// the first step's, `first`, walked); later runs' time is the first's. `past_first`: the dims of
// the loops around that are past their first step (a written operand takes back its partial sums
// where one is a dim it is not indexed by). `stored(store)` hears each step's store where it has
// one, in the walk's order. Shared by Walker::own_nest and the closed form, so that both form
// every double alike.
template <class Stored>
double nest_time(const NestPlan& plan, uint64_t padded_loops, const NestOperand* operands, size_t count, double first,
                 int64_t ops_per_point, uint64_t past_first, Stored& stored) {
  static_assert(kMaxNestLoops <= 32, "a loop per bit");
  uint32_t moving[kMaxNestOperands];
  for (size_t k = 0; k < count; ++k) {
    moving[k] = 0;
    for (size_t j = 0; j < plan.temporal; ++j)
      if (plan.moves(operands[k].dims, j)) moving[k] |= uint32_t{1} << j;
  }
  return nest_detail::time_from(plan, padded_loops, operands, moving, count, first, ops_per_point, 0, -1, past_first, stored);
}

}  // namespace dfx::model
