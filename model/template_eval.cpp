// template_walk(): the walk of a template tree in closed form. Each function below mirrors the
// walk's step named in its comment (model/walk.cpp, walk_streams.cpp, walk_nest.cpp), on buffers
// that each hold one box: the same counts in the same order, and every double formed by the same
// operations in the same order as the walk without replay (which the walk with replay equals to
// the bit). What it does not model yet it refuses (nullopt), and the tree is walked.
#include "model/template_eval.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "model/cycles_floor.h"
#include "model/template_evaluator.h"

namespace dfx::model {
namespace closed_form {

void TemplateEval::time_own_op(int node, double latency) {
  const int op = s_.own_op[static_cast<size_t>(node)];
  if (op >= 0) r_.op_cycles[static_cast<size_t>(op)] += latency * repeat_;
}

// Walker::loops over the outer tile's loops (core loops, then temporal ones), then the group tile.
double TemplateEval::outer_loops(size_t li, const OpBoxes& boxes, int64_t weight) {
  const TreeNode& n = f_.nodes[static_cast<size_t>(g_->outer)];
  if (li == n.loops.size()) {
    const double t = group_tile(boxes, weight);
    if (g_->tile != g_->outer) time_own_op(g_->tile, t);  // else: the outer tile's visit, timed once
    return t;
  }
  const Loop& loop = n.loops[li];
  const int64_t extent = s_.index.extent(g_->outer, loop.dim, boxes);
  if (extent <= 0) return outer_loops(li + 1, boxes, weight);
  const Cut c = cut(extent, loop.factor);
  // The first loop's boxes are the whole problem's; the others', cut at this tile before.
  auto at = [&](int64_t i) {
    BoxPool::Lease b(pool_, boxes);
    if (li == 0) s_.index.restrict(g_->outer, loop.dim, i * c.chunk, i * c.chunk + c.chunk, *b);
    else s_.index.restrict_projected(g_->outer, loop.dim, i * c.chunk, i * c.chunk + c.chunk, *b);
    return b;
  };
  if (loop.spatial) {  // even (the plan's): its instances alike
    BoxPool::Lease first = at(0);
    const OpBoxes& b0 = *first;
    BoxPool::Lease delta(pool_, b0);
    if (c.trips > 1) (*delta).assign_move(b0, *at(1));
    else (*delta).assign_zero(b0);
    SpatialLevel level;
    level.count = c.trips, level.delta = &*delta;
    stack_.push_back(level);
    const int64_t saved = instance_weight_;
    instance_weight_ *= c.trips;
    const double t = outer_loops(li + 1, b0, weight * c.trips);
    instance_weight_ = saved;
    stack_.pop_back();
    return t;
  }
  return temporal_steps(loop, c, at, [&](const OpBoxes& b, int64_t w) { return outer_loops(li + 1, b, w); }, weight);
}

// Walker::translate_since: the slots the representative step touched stand for `extra` more
// steps: moved on, and what they wrote repeated at each step.
void TemplateEval::translate(const OpBoxes& delta, int64_t extra) {
  const Representing& rep = reps_[--depth_];
  for (size_t id = 0; id < st_.live; ++id) {
    if (!rep.touched[id]) continue;
    Slot& s = slots_[id];
    int64_t shift[kMaxBoxRank] = {0};
    for (size_t j = 0; j < s.access->index.size(); ++j)
      if (!s.access->index[j].terms.empty()) shift[j] = delta[s.op][static_cast<size_t>(s.access->index[j].terms[0].dim)].first;
    if (s.write && !rep.wrote[id].empty()) {  // Walker::extend_cover
      for (int j = 0; j < rep.wrote[id].rank; ++j) {
        AxisCover added = rep.wrote[id].axis[j];
        if (shift[j] != 0) added.add_translates(shift[j], extra);
        add_cover(static_cast<int>(id), static_cast<size_t>(j), added);
      }
    }
    if (!s.holds) continue;
    for (int j = 0; j < s.held.rank; ++j) s.held.r[j].first += shift[j] * extra, s.held.r[j].second += shift[j] * extra;
  }
}

// Walker::visit_node on the group tile: its buffers' activations, then its children.
double TemplateEval::group_tile(const OpBoxes& boxes, int64_t weight) {
  double load = 0, store = 0;
  cur_op_ = -1;
  for (int id = st_.group_from[gi_]; id < st_.tile_to[gi_]; ++id) {
    const Moved m = activate(id, boxes[slots_[static_cast<size_t>(id)].op], weight);
    load += m.load, store += m.store;
  }
  // Walker::children: the intermediates fused here live at their home while the children run.
  const size_t core_row = st_.core_row[gi_];
  const size_t homes_from = homes_.size();
  for (const int t : s_.fused[static_cast<size_t>(g_->tile)]) {
    const Op& prod = w_.ops[static_cast<size_t>(w_.tensors[static_cast<size_t>(t)].producer)];
    const int64_t elems = plain_slice_size(prod.out, boxes[static_cast<size_t>(w_.tensors[static_cast<size_t>(t)].producer)]);
    add_occupancy(p_.tensors[static_cast<size_t>(t)].home, t, core_row, elems);
    homes_.push_back({t, elems});
  }
  const bool drop = g_->prim == Prim::Seq && g_->ops.size() > 1;
  double total = 0;  // Time::beside (Pipe) or then: the latencies' max or sum
  for (size_t k = 0; k < g_->ops.size(); ++k) {
    if (drop)  // Walker::drop_for_sibling: the buffers of the ops' tiles this one never used
      for (int id = st_.tile_to[gi_]; id < st_.group_from[gi_ + 1]; ++id) {
        Slot& s = slots_[static_cast<size_t>(id)];
        if (!s.holds || (s.owners >> k & 1)) continue;
        add_occupancy(s.level, s.tensor, s.row, -box_size(s.held));
        s.holds = false;
      }
    const double t = op_tile(k, boxes, weight);
    if (gave_up_) return 0;
    total = g_->prim == Prim::Pipe ? std::max(total, t) : total + t;
  }
  for (size_t h = homes_from; h < homes_.size(); ++h)
    add_occupancy(p_.tensors[static_cast<size_t>(homes_[h].first)].home, homes_[h].first, core_row, -homes_[h].second);
  homes_.resize(homes_from);
  if (store > 0) last_store_ = store;
  return std::max({load, total, store});
}

// An op's own tile (its loops, as Walker::loops takes them) or, without one, its tile.
double TemplateEval::op_tile(size_t k, const OpBoxes& boxes, int64_t weight) {
  const TemplateOp& t = g_->ops[k];
  if (t.own < 0) return op_visit(k, boxes, weight);
  const double latency = own_loops(k, 0, boxes, weight);
  time_own_op(t.own, latency);
  return latency;
}

double TemplateEval::own_loops(size_t k, size_t li, const OpBoxes& boxes, int64_t weight) {
  const TemplateOp& t = g_->ops[k];
  const TreeNode& n = f_.nodes[static_cast<size_t>(t.own)];
  if (li == n.loops.size()) return op_visit(k, boxes, weight);
  const Loop& loop = n.loops[li];
  const int64_t extent = s_.index.extent(t.own, loop.dim, boxes);
  if (extent <= 0) return own_loops(k, li + 1, boxes, weight);
  const Cut c = cut(extent, loop.factor);
  auto at = [&](int64_t i) {
    BoxPool::Lease b(pool_, boxes);
    s_.index.restrict(t.own, loop.dim, i * c.chunk, i * c.chunk + c.chunk, *b);
    return b;
  };
  return temporal_steps(loop, c, at, [&](const OpBoxes& b, int64_t w) { return own_loops(k, li + 1, b, w); }, weight);
}

// Walker::visit_node on an op's tile: its buffers' activations (below an own tile), its nest.
double TemplateEval::op_visit(size_t k, const OpBoxes& boxes, int64_t weight) {
  const TemplateOp& t = g_->ops[k];
  double load = 0, store = 0;
  cur_op_ = static_cast<int>(k);
  const auto o = static_cast<size_t>(st_.op_from[gi_]) + k;
  for (int x = st_.tile_from[o]; x < st_.tile_from[o + 1]; ++x) {
    const TemplateStore::TileSlot& ts = st_.tile_slots[static_cast<size_t>(x)];
    Slot& s = slots_[static_cast<size_t>(ts.id)];
    s.node = t.tile, s.op = ts.op, s.access = ts.access;  // the buffer seen from this tile
    const Moved m = activate(ts.id, boxes[ts.op], weight);
    load += m.load, store += m.store;
  }
  const double inner = t.registers < 0 ? vector_nest(t, boxes, weight) : registers_nest(k, boxes, weight);
  if (gave_up_) return 0;
  if (store > 0) last_store_ = store;
  const double latency = std::max({load, inner, store});
  time_own_op(t.tile, latency);
  return latency;
}

// Walker::loops on a temporal loop cut `c`: the first step, the one standing for the middle ones
// (its slots moved on after it by translate), a partial last one; `at(i)`: step i's boxes,
// `inner(boxes, weight)`: the loops inside.
template <class At, class Inner>
double TemplateEval::temporal_steps(const Loop& loop, const Cut& c, At at, Inner inner, int64_t weight) {
  const int64_t full = c.last == c.chunk ? c.trips : c.trips - 1;
  double latency = 0;
  BoxPool::Lease b0 = at(0);
  if (full >= 1) latency += inner(*b0, weight);
  if (gave_up_) return latency;
  const uint64_t past_first = past_first_;
  if (loop.dim < 64) past_first_ |= uint64_t{1} << loop.dim;
  if (full >= 2) {
    const int64_t middle = full - 1;
    BoxPool::Lease b1 = at(1);
    if (middle == 1) {
      latency += inner(*b1, weight);
    } else {
      if (depth_ == reps_.size()) reps_.emplace_back();
      Representing& rep = reps_[depth_++];
      rep.touched.assign(st_.live, 0);
      rep.wrote.resize(st_.live);
      for (Cover& x : rep.wrote) x.clear();
      const double repeat = repeat_;
      repeat_ *= static_cast<double>(middle);
      latency += inner(*b1, weight * middle) * static_cast<double>(middle);
      repeat_ = repeat;
      // One step's move (the plan's accesses are not clipped: every step moves alike).
      (*b0).assign_move(*b0, *b1);
      translate(*b0, middle - 1);
    }
  }
  if (full < c.trips) latency += inner(*at(c.trips - 1), weight);
  past_first_ = past_first;
  return latency;
}

// Walker::phase: a group as a phase of its own, with its own fill and last store; its cycles.
double TemplateEval::group_phase(const OpBoxes& whole) {
  const bool computed = computed_;
  const double first_loads = first_loads_;
  computed_ = false, first_loads_ = 0, last_store_ = 0;
  const double t = outer_loops(0, whole, 1);
  time_own_op(g_->outer, t);
  const double cycles = t + first_loads_ + last_store_;
  computed_ = computed || computed_, first_loads_ = first_loads, last_store_ = 0;
  return cycles;
}

// Walker::on_chip_empty.
bool TemplateEval::on_chip_empty() const {
  const size_t per_level = w_.tensors.size() + 1, per_row = a_.levels.size() * per_level;
  for (size_t at = 0; at + per_row <= occupancy_.size(); at += per_row)
    for (size_t level = 1; level < a_.levels.size(); ++level)
      if (occupancy_[at + level * per_level + w_.tensors.size()] != 0) return false;
  return true;
}


// Walker::cached_phase: a group's phase looked up, or computed with a result of its own and
// kept on the walk's conditions (on chip empty as it starts, DRAM untouched).
double TemplateEval::cached_phase(const OpBoxes& whole) {
  PhaseKey key = phase_key(f_, g_->outer);
  const bool clean = on_chip_empty();
  if (const auto hit = clean ? phase_cache_->find(key) : nullptr) {
    add_phase_counts(r_, hit->walk);
    computed_ = computed_ || hit->computed;
    return hit->walk.cycles;
  }
  const bool computed = computed_;
  WalkResult outside = std::exchange(r_, WalkResult());
  empty_result();
  computed_ = false;
  const double t = group_phase(whole);
  if (gave_up_) {  // nothing kept
    recycle_walk_result(std::move(outside));
    return t;
  }
  finish(static_cast<int>(gi_));
  PhaseResult mine{std::exchange(r_, std::move(outside)), computed_};
  mine.walk.cycles = t;
  add_phase_counts(r_, mine.walk);
  computed_ = computed || mine.computed;
  const bool dram_untouched = mine.walk.level_peak_elems[0] == 0;
  if (clean && dram_untouched) phase_cache_->insert(std::move(key), std::move(mine));
  else recycle_walk_result(std::move(mine.walk));
  return t;
}
std::optional<WalkResult> TemplateEval::run() {
  empty_result();
  st_.clear();
  // source_prefixes for one buffer: the spatial loops above its source's buffer.
  auto spatial_above = [&](int node, bool own) {
    int n = 0;
    for (const Loop& l : f_.nodes[static_cast<size_t>(node)].loops) n += own && l.spatial;
    for (int p = f_.nodes[static_cast<size_t>(node)].parent; p >= 0; p = f_.nodes[static_cast<size_t>(p)].parent)
      for (const Loop& l : f_.nodes[static_cast<size_t>(p)].loops) n += l.spatial;
    return n;
  };
  auto add_slot = [&](int node, int tensor, size_t row) {
    const int id = st_.add_slot();
    Slot& s = slots_[static_cast<size_t>(id)];
    s.node = node, s.tensor = tensor, s.row = row;
    s.klass = s_.buffer_class[static_cast<size_t>(node) * w_.tensors.size() + static_cast<size_t>(tensor)];
    const TensorPlacement& tp = p_.tensors[static_cast<size_t>(tensor)];
    s.level = tp.level[static_cast<size_t>(node)], s.source = tp.source[static_cast<size_t>(node)];
    s.write = tp.writes[static_cast<size_t>(node)];
    const BufferAccesses::Accesses by = s_.accesses.of(node, tensor);
    s.op = static_cast<size_t>(by.begin()->op), s.access = by.begin()->access;
    for (const BufferAccesses::Access& acc : by)
      for (const auto& ix : acc.access->index)
        for (const auto& term : ix.terms) s.dims |= uint64_t{1} << term.dim;
    const int anchor = s_.source_anchors[static_cast<size_t>(node) * w_.tensors.size() + static_cast<size_t>(tensor)];
    s.prefix = static_cast<size_t>(anchor >= 0 ? spatial_above(anchor, false) : anchor <= -2 ? spatial_above(-2 - anchor, true) : 0);
    s.group = static_cast<int>(st_.group_from.size()) - 1;
    return id;
  };
  // Occupancy rows, one per instance context: the root's (0), each group's cores', each op's
  // spreads' (or its group's where it has none).
  size_t rows = 1;
  for (const TemplateGroup& g : plan_.groups) {
    const auto& outer = f_.nodes[static_cast<size_t>(g.outer)].loops;
    const size_t core_row = std::any_of(outer.begin(), outer.end(), [](const Loop& l) { return l.spatial; }) ? rows++ : 0;
    st_.core_row.push_back(core_row);
    st_.group_from.push_back(static_cast<int>(st_.live));  // first: add_slot numbers the slot's group by it
    for (const int t : s_.owned[static_cast<size_t>(g.tile)]) add_slot(g.tile, t, core_row);
    st_.tile_to.push_back(static_cast<int>(st_.live));
    st_.op_from.push_back(static_cast<int>(st_.reg_from.size()));
    for (size_t k = 0; k < g.ops.size(); ++k) {
      const TemplateOp& op = g.ops[k];
      st_.tile_from.push_back(static_cast<int>(st_.tile_slots.size()));
      for (const int t : s_.owned[static_cast<size_t>(op.tile)]) {
        // Outside a Pipe the ops' tiles run in one partition: a buffer of one class is one.
        const int klass = s_.buffer_class[static_cast<size_t>(op.tile) * w_.tensors.size() + static_cast<size_t>(t)];
        int id = -1;
        if (g.prim != Prim::Pipe)
          for (int x = st_.tile_to.back(); x < static_cast<int>(st_.live) && id < 0; ++x)
            if (slots_[static_cast<size_t>(x)].klass == klass && slots_[static_cast<size_t>(x)].row == core_row) id = x;
        if (id < 0) id = add_slot(op.tile, t, core_row);
        const BufferAccesses::Access& acc = *s_.accesses.of(op.tile, t).begin();
        st_.tile_slots.push_back({id, static_cast<size_t>(acc.op), acc.access});
      }
      st_.reg_from.push_back(static_cast<int>(st_.live));
      st_.per_run.push_back(op.registers < 0 ? 0 : static_cast<int>(s_.owned[static_cast<size_t>(op.registers)].size()));
      if (op.registers < 0) continue;
      const auto& loops = f_.nodes[static_cast<size_t>(op.tile)].loops;
      const bool spreads = std::any_of(loops.begin(), loops.end(), [](const Loop& l) { return l.spatial; });
      // Each run of instances keeps buffers of its own (its own context).
      for (size_t r = 0; r < op.runs; ++r) {
        const size_t row = spreads ? rows++ : core_row;
        for (const int t : s_.owned[static_cast<size_t>(op.registers)]) add_slot(op.registers, t, row);
      }
    }
  }
  st_.group_from.push_back(static_cast<int>(st_.live));
  st_.tile_from.push_back(static_cast<int>(st_.tile_slots.size()));
  // Walker::children of the root: the intermediates fused there live at their home meanwhile;
  // each group drops what the others left on chip (a Seq), and runs as a phase of its own where
  // they hand data over through a level no program addresses.
  const OpBoxes whole = OpBoxes::whole(w_);
  std::vector<std::pair<int, int64_t>> homes;
  for (const int t : s_.fused[0]) {
    const int producer = w_.tensors[static_cast<size_t>(t)].producer;
    const int64_t elems = plain_slice_size(w_.ops[static_cast<size_t>(producer)].out, whole[static_cast<size_t>(producer)]);
    add_occupancy(p_.tensors[static_cast<size_t>(t)].home, t, 0, elems);
    homes.push_back({t, elems});
  }
  const bool phases = runs_in_phases(a_, f_, p_, s_.fused, 0);
  const bool drop = plan_.groups.size() > 1;
  // Walker::check_phases_done: after each phase but the last, the phases done and the later
  // ones' floors against the bar.
  const std::vector<double> later_floors =
      phases && give_up_.bar != INFINITY ? floors_of_later_children(a_, w_, f_, 0) : std::vector<double>();
  double latency = 0;
  for (gi_ = 0; gi_ < plan_.groups.size(); ++gi_) {
    g_ = &plan_.groups[gi_];
    if (drop)
      for (size_t other = 0; other < plan_.groups.size(); ++other) {
        if (other == gi_) continue;
        auto drop_slot = [&](int id) {
          Slot& s = slots_[static_cast<size_t>(id)];
          if (!s.holds) return;
          add_occupancy(s.level, s.tensor, s.row, -box_size(s.held));
          s.holds = false;
        };
        for (int id = st_.group_from[other]; id < st_.group_from[other + 1]; ++id) drop_slot(id);
      }
    if (!phases) {
      const double t = outer_loops(0, whole, 1);
      time_own_op(g_->outer, t);
      latency += t;
    } else {
      latency += phase_cache_ && plan_.groups.size() >= 2 ? cached_phase(whole) : group_phase(whole);
    }
    // Not after a phase that gave up at its fill (the walk leaves its children there): its
    // cycles are partial, and the fill's figure stands.
    if (!gave_up_ && !later_floors.empty() && gi_ + 1 < plan_.groups.size() && latency + later_floors[gi_] > give_up_.bar)
      gave_up_ = true, at_least_ = latency + later_floors[gi_];
    if (gave_up_) {
      recycle_walk_result(std::move(r_));
      WalkResult r;
      r.gave_up = true, r.at_least = at_least_;
      return r;
    }
  }
  for (const auto& [t, elems] : homes) add_occupancy(p_.tensors[static_cast<size_t>(t)].home, t, 0, -elems);
  time_own_op(0, latency);
  finish();
  r_.cycles = latency + first_loads_ + last_store_;
  return std::move(r_);
}
}  // namespace closed_form

using closed_form::Refused;
using closed_form::TemplateEval;

std::optional<WalkResult> template_walk(const arch::Arch& a, const Workload& w, const Dataflow& f, const TreeShape& shape,
                                        const TemplatePlan& plan, PhaseCache* phases, CyclesBar give_up, std::string* why) {
  auto refuse = [&](const char* reason) -> std::optional<WalkResult> {
    if (why) *why = reason;
    return std::nullopt;
  };
  try {
    return TemplateEval(a, w, f, shape, plan, phases, give_up).run();
  } catch (const Refused& r) {
    return refuse(r.why);
  }
}

}  // namespace dfx::model
