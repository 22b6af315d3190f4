#pragma once
// The closed form's state and steps (model/template_eval.h): its buffers held as one box each,
// the thread-kept storage, and the evaluator, whose steps live in template_eval.cpp (loops,
// groups, phases), template_slots.cpp (buffers: activations, covers, sends, refills) and
// template_nests.cpp (the ops' nests). Each step mirrors the walk's step named in its comment
// (model/walk.cpp, walk_streams.cpp, walk_nest.cpp). Internal to model/.
#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "model/axis_cover.h"
#include "model/held.h"
#include "model/nest_plan.h"
#include "model/phase_cache.h"
#include "model/template_plan.h"
#include "model/tree_shape.h"
#include "model/walk.h"
#include "model/walk_support.h"

namespace dfx::model::closed_form {

// What a written buffer covered: a set per axis (the walk's cover), as runs where it can.
struct Cover {
  int rank = 0;  // 0: nothing yet
  AxisCover axis[kMaxBoxRank];
  bool empty() const { return rank == 0; }
  void clear() {
    for (int j = 0; j < rank; ++j) axis[j].clear();
    rank = 0;
  }
  Slice slice() const {
    Slice out;
    for (int j = 0; j < rank; ++j) out.push_back(axis[j].set());
    return out;
  }
};

// A buffer (the walk's Stream) holding one box.
struct Slot {
  int node = -1, tensor = -1, level = 0, source = 0;
  bool write = false;
  size_t op = 0;
  const TensorAccess* access = nullptr;
  uint64_t dims = 0;  // the dims that index it
  size_t prefix = 0;  // spatial levels before its source's (source_prefixes)
  size_t row = 0;     // its occupancy row (instance context)
  int klass = -1;         // TreeShape::buffer_class
  uint64_t owners = 0;    // the group's ops whose tiles activated it (a Seq drops it for another)
  Box held;
  bool holds = false, created = false;
  Spreads spreads;
  int spreads_node = -1;  // the tile its spreads were worked out for (Walker::spreads_for)
  int64_t write_entries = 0, mc_write_entries = 0, mc_count = 1, instance_weight = 1;
  int group = 0;
  bool finished = false;
  std::vector<int> twins;  // the earlier runs' slots of its buffer (Stream::twins)
  Cover cover;  // what it wrote
  // A new slot's state, keeping the storage of its lists (slots are kept from walk to walk; a
  // fresh Slot assigned over it cost a tenth of an evaluation, its covers' sets built and moved).
  void reset() {
    node = tensor = -1, level = source = 0, write = false, op = 0, access = nullptr, dims = 0, prefix = row = 0;
    klass = -1, owners = 0, holds = created = false, spreads_node = -1;
    held.rank = 0;  // its ranges are read up to its rank only (a new Box zeroes them all)
    write_entries = mc_write_entries = 0, mc_count = instance_weight = 1, group = 0, finished = false;
    spreads.clear(), twins.clear(), cover.clear();
  }
};

// A spatial loop around: its instances, and how its next instance moves the ops' boxes (an
// outer loop's move, or a nest's spread moving its one op along one dim).
struct SpatialLevel {
  int64_t count = 1;
  const OpBoxes* delta = nullptr;
  size_t op = 0;
  int dim = -1;
  int64_t chunk = 0;
  int64_t move(size_t o, int d) const {
    return delta ? (*delta)[o][static_cast<size_t>(d)].first : o == op && d == dim ? chunk : 0;
  }
};

// What the closed form met that it does not model: thrown to the top (template_walk).
struct Refused {
  const char* why;
};

struct Moved {
  double load = 0, store = 0;
};

// Walker::Passes, for a nest's first step run in runs: what the runs' sources sent per buffer
// (spread boxes only; the walk's regions are refused).
struct Sent {
  int node = 0, tensor = 0;
  std::vector<int> slots;
  std::vector<SpreadBox> spread;
};

// The runs of a nest's instances where its spreads are classed (at most two: runs within runs,
// the first spread's outside), as registers_nest finds them in one visit.
struct NestRuns {
  struct Classing {
    int spread = -1;  // its index among the nest's spatial loops
    int dim = -1;
    int padded = -1;  // the temporal loop over its dim whose last step is partial (-1: none)
    size_t sets = 1;  // all its runs (TemplateOp::Classed::runs): a stride of the buffers' sets
    size_t runs_full = 1, runs_partial = 1;  // present in a full step, and in the partial one
    int64_t run_first[kMaxNestRuns] = {0}, run_count[kMaxNestRuns] = {1};
  };
  Classing at[TemplateOp::kMaxClassed];
  size_t classings = 0;
  uint64_t padded_loops = 0;  // the temporal loops whose last step is partial
  // A run of each classed spread: one set of buffers.
  struct Pair {
    size_t run[TemplateOp::kMaxClassed] = {0};
    size_t set = 0;  // registers_of's run
    bool started = false;
    bool first() const { return set == 0; }
  };
  // The next pair present in a full step, in the walk's order: false past the last.
  bool next(Pair& p) const {
    if (!p.started) return p.started = true;
    for (size_t x = classings; x-- > 0;) {
      if (++p.run[x] < at[x].runs_full) {
        p.set = 0;
        for (size_t y = 0; y < classings; ++y) p.set = p.set * at[y].sets + p.run[y];
        return true;
      }
      p.run[x] = 0;
    }
    return false;
  }
  // NestPlan::for_run for a pair: its instances, without the partial steps it sits out.
  NestPlan plan_for(const NestPlan& plan, const Pair& p) const {
    NestPlan out = plan;
    for (size_t x = 0; x < classings; ++x) {
      const Classing& c = at[x];
      out.instances = out.instances / out.spatial_trips[c.spread] * c.run_count[p.run[x]];
      out.spatial_trips[c.spread] = c.run_count[p.run[x]];
      if (c.padded >= 0 && p.run[x] >= c.runs_partial) --out.steps[c.padded].trips;
    }
    out.count_steps();
    return out;
  }
  // Whether an earlier pair in the same step already had a multicast slice indexed by `dims`:
  // one that differs only in runs of spreads whose dims do not index it.
  bool sent_before(const Pair& p, uint64_t dims) const {
    for (size_t x = 0; x < classings; ++x)
      if (p.run[x] > 0 && !(dims >> at[x].dim & 1)) return true;
    return false;
  }
};

// A nest's spread: its dim, chunk and factor, and its classed spread's index in NestRuns::at
// (-1: its instances all alike).
struct NestSpread {
  int dim;
  int64_t chunk, factor;
  int classing;
};

// Representative steps being visited: per level, the slots touched and what each wrote.
struct Representing {
  std::vector<char> touched;
  std::vector<Cover> wrote;
};

// What an evaluation builds, kept by the thread from one to the next (walk_kept): a search runs
// thousands a second, and allocating it anew each time cost more than the arithmetic.
struct TemplateStore {
  std::vector<Slot> slots;  // [0, live)
  size_t live = 0;
  // Slots are made group by group: group g's are [group_from[g], group_from[g + 1]), its group
  // tile's first, up to tile_to[g]; then each op's: op o (numbered over all groups, from
  // op_from[g]) has runs of per_run[o] registers from reg_from[o]. Its tile's buffers are
  // tile_slots[tile_from[o], tile_from[o + 1]): the slot and the tile's access to it (the ops'
  // tiles of one group may share a buffer: one class, one context, one partition).
  std::vector<int> group_from, tile_to, op_from, tile_from, reg_from, per_run;
  struct TileSlot {
    int id;
    size_t op;
    const TensorAccess* access;
  };
  std::vector<TileSlot> tile_slots;
  std::vector<size_t> core_row;
  std::vector<SpatialLevel> stack;
  std::vector<std::pair<int, int64_t>> homes;  // intermediates at their home: (tensor, elements)
  std::vector<Sent> sent;  // [0, sent_live): this nest's first step's (their storage kept)
  size_t sent_live = 0;
  SpreadBox send;  // sent_over_runs' (its storage kept)
  // registers_nest's first step's ranges of its op, and each run's (as arrays of kMaxDims ranges
  // on its stack they were zeroed on every nest: 5.6 M instructions a search).
  Range nest_first[kMaxDims], nest_at[kMaxDims];
  NestOperand nest_operands[kMaxNestOperands];  // later_steps' first run's
  std::vector<int64_t> occupancy;  // [(row * levels + level) * (tensors + 1) + tensor], totals at tensor == tensors
  std::vector<Representing> reps;  // [0, depth): the ones being visited (their storage kept)
  void clear() {
    live = 0;
    group_from.clear(), tile_to.clear(), op_from.clear(), tile_from.clear(), reg_from.clear(), per_run.clear(), core_row.clear();
    tile_slots.clear();
    stack.clear(), homes.clear(), occupancy.clear();
    sent_live = 0;
  }
  int add_slot() {
    if (live == slots.size()) slots.emplace_back();
    else slots[live].reset();
    return static_cast<int>(live++);
  }
};

class TemplateEval {
 public:
  TemplateEval(const arch::Arch& a, const Workload& w, const Dataflow& f, const TreeShape& shape, const TemplatePlan& plan,
               PhaseCache* phases, CyclesBar give_up)
      : a_(a), w_(w), f_(f), s_(shape), p_(shape.placement), plan_(plan), phase_cache_(phases), give_up_(give_up) {}

  std::optional<WalkResult> run();

 private:
  const arch::Arch& a_;
  const Workload& w_;
  const Dataflow& f_;
  const TreeShape& s_;
  const Placement& p_;
  const TemplatePlan& plan_;
  StagingLevels staging_;
  PhaseCache* phase_cache_;
  CyclesBar give_up_;
  const TemplateGroup* g_ = nullptr;  // the group being visited
  size_t gi_ = 0;                     // its index
  WalkResult r_;
  TemplateStore& st_ = walk_kept<TemplateStore>();
  BoxPool& pool_ = walk_kept<BoxPool>();  // the walk's: one of the two runs at a time
  std::vector<Slot>& slots_ = st_.slots;
  std::vector<SpatialLevel>& stack_ = st_.stack;
  std::vector<std::pair<int, int64_t>>& homes_ = st_.homes;
  std::vector<Sent>& sent_ = st_.sent;
  std::vector<int64_t>& occupancy_ = st_.occupancy;
  std::vector<Representing>& reps_ = st_.reps;
  size_t depth_ = 0;
  // While a nest's first step runs in runs, the place in stack_ of its first classed spread that
  // runs more than one (the walk's Passes level; -1: none).
  long passes_level_ = -1;
  int64_t instance_weight_ = 1;
  double repeat_ = 1;
  uint64_t past_first_ = 0;
  bool computed_ = false;
  double first_loads_ = 0, last_store_ = 0;

  // The slots of op k of the group being visited, run r: [first, second).
  std::pair<int, int> registers_of(size_t k, size_t r) const {
    const auto o = static_cast<size_t>(st_.op_from[gi_]) + k;
    const int from = st_.reg_from[o] + static_cast<int>(r) * st_.per_run[o];
    return {from, from + st_.per_run[o]};
  }
  int cur_op_ = -1;  // the op of the group whose tile is activating buffers (-1: the group tile)
  bool gave_up_ = false;  // the tree's cycles are certainly above the bar (CyclesBar)
  double at_least_ = 0;
  int64_t sent_over_runs(int id, const Box& now, int64_t merged, int64_t fresh);
  void empty_result() { r_ = empty_walk_result(a_, w_); }
  void box_of(const Slot& s, const Range* op, Box& b) const;
  Box now_;  // activate's slice
  void add_occupancy(int level, int tensor, size_t row, int64_t delta);  // inline, below
  void charge_source(int tensor, int source, int level, bool write, int64_t n);
  // Walker::add_cover: the cover, and what each representative step being visited wrote.
  void add_cover(int id, const Box& part);
  void add_cover(int id, size_t axis, const AxisCover& part);  // one axis of a part
  void touch(int id);
  Moved activate(int id, const Range* op, int64_t weight);  // `op`: the ranges of the slot's op
  void add_leaf(int leaf, int64_t points, int64_t weight);
  void time_own_op(int node, double latency);
  double outer_loops(size_t li, const OpBoxes& boxes, int64_t weight);
  void translate(const OpBoxes& delta, int64_t extra);
  double group_tile(const OpBoxes& boxes, int64_t weight);
  double op_tile(size_t k, const OpBoxes& boxes, int64_t weight);
  double own_loops(size_t k, size_t li, const OpBoxes& boxes, int64_t weight);
  double op_visit(size_t k, const OpBoxes& boxes, int64_t weight);
  template <class At, class Inner>
  double temporal_steps(const Loop& loop, const Cut& c, At at, Inner inner, int64_t weight);
  double vector_nest(const TemplateOp& t, const OpBoxes& boxes, int64_t weight);
  double registers_nest(size_t k, const OpBoxes& boxes, int64_t weight);
  void plan_nest(const TemplateOp& t, const OpBoxes& boxes, NestPlan& plan, NestRuns& runs, NestSpread* spreads,
                 Range* first) const;
  double first_step(size_t k, const OpBoxes& boxes, const NestPlan& plan, const NestRuns& runs, const NestSpread* spreads,
                    const Range* first, int64_t weight);
  double later_steps(size_t k, const NestPlan& plan, const NestRuns& runs, int64_t weight, double first_time);
  void finish(int group = -1);  // the slots of `group` (-1: all) not finished yet
  double group_phase(const OpBoxes& whole);
  double cached_phase(const OpBoxes& whole);
  bool on_chip_empty() const;
};


int64_t box_size(const Box& b);
// slice_size(access_slice(access, op)) for an access whose every index is plainly one dim or a
// constant (the plan's trees): the product of the dims' extents.
int64_t plain_slice_size(const TensorAccess& access, const Range* op);
int64_t overlap(const Box& a, const Box& b);
// merged_fresh (held.h) for a buffer holding one box: what the instances newly hold together,
// without building the general sets where the new slice is apart from the held one.
int64_t merged_fresh_one(const Box& now, const Box& held, bool holds, int64_t fresh, const Spreads& spreads);

// Walker::add_occupancy.
inline void TemplateEval::add_occupancy(int level, int tensor, size_t row, int64_t delta) {
  const size_t per_level = w_.tensors.size() + 1, per_row = a_.levels.size() * per_level;
  if (occupancy_.size() < (row + 1) * per_row) occupancy_.resize((row + 1) * per_row, 0);
  int64_t* at = occupancy_.data() + row * per_row + static_cast<size_t>(level) * per_level;
  int64_t& lv = at[w_.tensors.size()];
  lv += delta;
  r_.level_peak_elems[static_cast<size_t>(level)] = std::max(r_.level_peak_elems[static_cast<size_t>(level)], lv);
  int64_t& tv = at[tensor];
  tv += delta;
  auto& peak = r_.peak_elems[static_cast<size_t>(level)][static_cast<size_t>(tensor)];
  peak = std::max(peak, tv);
}

}  // namespace dfx::model::closed_form
