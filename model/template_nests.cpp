// The closed form's op nests (model/template_evaluator.h): a vector op's time from its extents,
// and a nest with registers from its first step and its counted later steps, run by run.
#include <algorithm>
#include <cmath>

#include "model/template_evaluator.h"
#include "model/transfer_time.h"

namespace dfx::model::closed_form {

// Walker::leaf_nest: a vector op's time from its extents alone (the plan checked its splits).
double TemplateEval::vector_nest(const TemplateOp& t, const OpBoxes& boxes, int64_t weight) {
  const TreeNode& n = f_.nodes[static_cast<size_t>(t.tile)];
  const Op& op = w_.ops[t.op];
  int64_t extents[kMaxDims];
  for (size_t d = 0; d < w_.dims.size(); ++d) extents[d] = boxes[t.op][d].second - boxes[t.op][d].first;
  // The plan checked the splits and the factors (with the partial steps around: told here as
  // one, which only the factors' check reads).
  bool ok = true;
  auto any_spread = [](size_t, int64_t, const Cut&) { return true; };
  const double latency = leaf_nest_time(n, op, 0, extents, 1, ok, any_spread);
  int64_t points = 1;
  for (int d : op.dims) points *= std::max<int64_t>(0, boxes[t.op][static_cast<size_t>(d)].second - boxes[t.op][static_cast<size_t>(d)].first);
  add_leaf(t.leaf, points, weight);
  return latency;
}

// Walker::own_nest for an op with registers: its first step from the first chunk of every loop
// (the spreads' instances in their runs), its later steps counted run by run (count_later_steps,
// nest_time). Where two spreads are classed, the walk runs the second's runs inside each of the
// first's (Walker::spatial): pairs of runs, each with buffers of its own, counted alike.
double TemplateEval::registers_nest(size_t k, const OpBoxes& boxes, int64_t weight) {
  NestPlan plan;
  NestRuns runs;
  NestSpread spreads[kMaxNestLoops];
  Range* first = st_.nest_first;  // kept: a fresh array of kMaxDims ranges is zeroed on every nest
  plan_nest(g_->ops[k], boxes, plan, runs, spreads, first);
  const double first_time = first_step(k, boxes, plan, runs, spreads, first, weight);
  if (gave_up_) return 0;
  if (plan.total <= 1) return first_time;  // the walk walks a nest of one step
  return later_steps(k, plan, runs, weight, first_time);
}

// The plan of op tile t's nest (Walker::plan_nest and plan_spatial): its steps, its spreads and
// the runs of its classed ones, and the first step's ranges of the op (`first`; the only op
// below its tile: restricting cuts its own).
void TemplateEval::plan_nest(const TemplateOp& t, const OpBoxes& boxes, NestPlan& plan, NestRuns& runs, NestSpread* spreads,
                             Range* first) const {
  const TreeNode& n = f_.nodes[static_cast<size_t>(t.tile)];
  const Op& op = w_.ops[t.op];
  plan.op = t.op;
  runs.classings = t.classings;
  int64_t left[kMaxDims];
  for (size_t d = 0; d < w_.dims.size(); ++d) left[d] = boxes[t.op][d].second - boxes[t.op][d].first;
  std::copy(boxes[t.op], boxes[t.op] + w_.dims.size(), first);
  int padded_loop[kMaxDims];  // per dim: the temporal loop over it whose last step is partial (-1: none)
  int64_t padded_extent[kMaxDims];
  std::fill(padded_loop, padded_loop + w_.dims.size(), -1);
  for (size_t li = 0; li < n.loops.size(); ++li) {
    const Loop& l = n.loops[li];
    int64_t& e = left[static_cast<size_t>(l.dim)];
    if (!op.uses_dim(l.dim) || e <= 0) {
      if (l.spatial) throw Refused{"a spread over a dim the op does not use"};
      plan.steps[plan.temporal++] = {l.dim, e, 1, false};
      continue;
    }
    const Cut c = cut(e, l.factor);
    Range& r = first[l.dim];
    r.second = std::min(r.first + c.chunk, r.second);
    if (l.spatial) {
      int classing = -1;
      for (size_t x = 0; x < t.classings; ++x)
        if (t.classed[x].loop == static_cast<int>(li)) classing = static_cast<int>(x), runs.at[x].spread = static_cast<int>(plan.spatial);
      spreads[plan.spatial] = {l.dim, c.chunk, l.factor, classing};
      plan.instances *= c.trips;
      plan.spatial_trips[plan.spatial++] = c.trips;
    } else {
      if (c.last != c.chunk) {
        padded_loop[l.dim] = static_cast<int>(plan.temporal);
        padded_extent[l.dim] = c.last;
      }
      plan.steps[plan.temporal++] = {l.dim, c.chunk, c.trips, true};
    }
    e = c.chunk;
  }
  plan.count_steps();
  for (int d : op.dims) plan.points *= std::max<int64_t>(0, left[static_cast<size_t>(d)]);
  for (size_t d = 0; d < w_.dims.size(); ++d) {  // plan_spatial: a partial step's spread runs in classes
    if (padded_loop[d] < 0) continue;
    const bool classed = std::any_of(runs.at, runs.at + t.classings, [&](const NestRuns::Classing& c) { return spreads[c.spread].dim == static_cast<int>(d); });
    if (!classed) throw Refused{"a partial step whose spread is not classed"};
    runs.padded_loops |= uint64_t{1} << padded_loop[d];
  }
  for (size_t x = 0; x < t.classings; ++x) {  // the runs present in a full step and in the partial one
    NestRuns::Classing& c = runs.at[x];
    const TemplateOp::Classed& tc = t.classed[x];
    const NestSpread& sp = spreads[c.spread];
    int64_t from = 0;
    for (size_t r = 0; r < tc.runs; ++r) c.run_first[r] = from, c.run_count[r] = tc.counts[r] - from, from = tc.counts[r];
    auto present = [&](int64_t trips) {
      size_t i = 0;
      while (i < tc.runs && tc.counts[i] <= trips) ++i;
      return i;
    };
    c.dim = sp.dim, c.sets = tc.runs;
    c.runs_full = c.runs_partial = present(plan.spatial_trips[c.spread]);
    c.padded = padded_loop[sp.dim];
    if (c.padded >= 0) c.runs_partial = present(cut(padded_extent[sp.dim], sp.factor).trips);
  }
}

// The nest's first step: the spreads' instances, run by run (Walker::spatial; the later runs are
// not timed and leave the fill and the last store as the first left them), each activating its
// registers and running its leaf. Sends are compared across runs from the first classed spread
// that runs more than one (Walker::Passes). Its time (0 where the evaluation gives up).
double TemplateEval::first_step(size_t k, const OpBoxes& boxes, const NestPlan& plan, const NestRuns& runs, const NestSpread* spreads,
                                const Range* first, int64_t weight) {
  const TemplateOp& t = g_->ops[k];
  const Op& op = w_.ops[t.op];
  const size_t outer_levels = stack_.size();
  const int64_t saved_weight = instance_weight_;
  for (size_t x = 0; x < t.classings && passes_level_ < 0; ++x)
    if (runs.at[x].runs_full > 1) passes_level_ = static_cast<long>(outer_levels) + runs.at[x].spread, st_.sent_live = 0;
  double first_time = 0;
  bool computed = false;
  double first_loads = 0, last_store = 0;
  for (NestRuns::Pair p; runs.next(p);) {
    Range* at = st_.nest_at;  // kept, as `first`
    std::copy(first, first + w_.dims.size(), at);
    int64_t instances = 1;
    for (size_t j = 0; j < plan.spatial; ++j) {
      SpatialLevel level;
      level.count = plan.spatial_trips[j], level.op = t.op, level.dim = spreads[j].dim, level.chunk = spreads[j].chunk;
      if (spreads[j].classing >= 0) {
        const NestRuns::Classing& c = runs.at[spreads[j].classing];
        const size_t r = p.run[spreads[j].classing];
        level.count = c.run_count[r];
        Range& x = at[spreads[j].dim];
        const int64_t lo = boxes[t.op][spreads[j].dim].first + c.run_first[r] * spreads[j].chunk;
        x = {lo, std::min(lo + spreads[j].chunk, boxes[t.op][spreads[j].dim].second)};
      }
      instances *= level.count;
      stack_.push_back(level);
    }
    instance_weight_ = saved_weight * instances;
    const int64_t inner_weight = weight * instances;
    double load = 0, store = 0;
    for (auto [id, end] = registers_of(k, p.set); id < end; ++id) {
      const Moved m = activate(id, at, inner_weight);
      load += m.load, store += m.store;
    }
    int64_t points = 1;
    for (int d : op.dims) points *= std::max<int64_t>(0, at[d].second - at[d].first);
    add_leaf(t.leaf, points, inner_weight);
    if (store > 0) last_store_ = store;
    stack_.resize(outer_levels);
    if (gave_up_) break;
    if (p.first()) {
      first_time = std::max({load, static_cast<double>(points * op.ops_per_point), store});
      computed = computed_, first_loads = first_loads_, last_store = last_store_;
    } else {
      computed_ = computed, first_loads_ = first_loads, last_store_ = last_store;
    }
  }
  passes_level_ = -1;
  instance_weight_ = saved_weight;
  return gave_up_ ? 0 : first_time;
}

// Walker::count_later_steps, nest_operand and move_on, run by run, then nest_time: the steps
// after the first (`first_time`) of op k's nest `plan`, whose instances run in `runs`.
double TemplateEval::later_steps(size_t k, const NestPlan& plan, const NestRuns& runs, int64_t weight, double first_time) {
  const Op& op = w_.ops[plan.op];
  NestOperand* operands = st_.nest_operands;  // kept, as registers_nest's ranges
  size_t count = 0;
  for (NestRuns::Pair p; runs.next(p);) {
    const NestPlan run = runs.plan_for(plan, p);
    count = 0;
    for (auto [id, end] = registers_of(k, p.set); id < end; ++id) {
      Slot& s = slots_[static_cast<size_t>(id)];
      NestOperand h;
      h.write = s.write, h.dims = s.dims;
      h.fresh = s.holds ? box_size(s.held) : 0;
      int64_t merged = 1;
      for (size_t j = s.prefix; j < stack_.size(); ++j) merged *= stack_[j].count;
      for (size_t j = 0; j < run.spatial; ++j)
        if (stack_.size() + j >= s.prefix) merged *= run.spatial_trips[j];
      const bool multicast = a_.levels[static_cast<size_t>(s.source)].multicast;
      h.multicast = multicast;
      h.shared = merged == 1 ? h.fresh : multicast ? merged_fresh_one(s.held, s.held, false, h.fresh, s.spreads) : h.fresh * merged;
      const int64_t row = s.held.rank == 0 ? 1 : s.held.r[s.held.rank - 1].second - s.held.r[s.held.rank - 1].first;
      h.time = transfer_time(a_, s.source, s.level, s.write, row, h.fresh, h.shared).cycles;
      if (s.write) h.back_time = transfer_time(a_, s.source, s.level, false, row, h.fresh, h.shared).cycles;
      h.source_weight = divide(weight * run.instances, merged);
      // A later run sends what the earlier ones did not: nothing where its slice is theirs (a
      // run past the first of a classed spread whose dim does not index it). The walk compares
      // sends only for buffers whose source is above the runs' level (Walker::activate's
      // over_passes); a register's source is at or above the op's tile, so always.
      if (h.multicast && runs.sent_before(p, h.dims)) h.shared = 0;
      // move_on
      const int64_t step_weight = weight * run.instances;
      const int64_t moves = run.steps_moving(h.dims);
      count_moves(s, h, step_weight, moves, r_.traffic[static_cast<size_t>(s.level)][static_cast<size_t>(s.tensor)],
                  [&](int64_t sent) { charge_source(s.tensor, s.source, s.level, s.write, sent); });
      // Axis by axis: what the later steps wrote (the slice and its translates), then the slice
      // moved to the last step's.
      const bool covers = s.write && moves > 0 && s.holds;
      for (size_t x = 0; x < s.access->index.size(); ++x) {
        const int dim = s.access->index[x].terms.empty() ? -1 : s.access->index[x].terms[0].dim;  // -1: a constant
        if (covers) {
          AxisCover part;
          part.add_interval(s.held.r[x].first, s.held.r[x].second);
          for (size_t j = 0; j < run.temporal; ++j)
            if (run.steps[j].trips > 1 && run.steps[j].dim == dim) part.add_translates(run.steps[j].chunk, run.steps[j].trips - 1);
          add_cover(id, x, part);
        }
        int64_t by = 0;
        for (size_t j = 0; j < run.temporal; ++j)
          if (run.steps[j].trips > 1 && run.steps[j].dim == dim) by += run.steps[j].chunk * (run.steps[j].trips - 1);
        s.held.r[x].first += by, s.held.r[x].second += by;
      }
      touch(id);
      if (p.first()) operands[count] = h;
      ++count;
    }
    add_leaf(g_->ops[k].leaf, plan.points * (run.total - 1), weight * run.instances);
  }
  // nest_time: the first run's operands, in the walk's order.
  auto stored = [&](double store) { last_store_ = store; };
  return nest_time(plan, runs.padded_loops, operands, count, first_time, op.ops_per_point, past_first_, stored);
}
}  // namespace dfx::model::closed_form
