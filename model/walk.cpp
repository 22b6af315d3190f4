// The fast walk: the oracle's semantics (tests/property/oracle.cpp) computed on the boundaries
// between time steps only. This file walks the tree; model/walk_streams.cpp keeps the buffers.
#include <algorithm>
#include <string>
#include <utility>

#include "arch/unit_costs.h"
#include "model/cycles_floor.h"
#include "model/template_eval.h"
#include "model/walker.h"

namespace dfx::model {

template <class Held>
WalkResult Walker<Held>::run() {
  streams_.clear(), recordings_.clear();  // this thread's, kept from its last walk
  contexts_.reset(), spatial_splits_.start(f_), spatial_stack_.clear();
  if (class_streams_.size() < buffer_classes_) class_streams_.resize(buffer_classes_);
  for (size_t k = 0; k < buffer_classes_; ++k) class_streams_[k].clear();
  touched_.clear(), cover_log_.clear(), homes_.clear();
  OpBoxes boxes = OpBoxes::whole(w_);
  if (!phase_cache_) scan_classes(0, boxes);  // else each phase walked is scanned first
  const Time t = visit(0, boxes, 1);
  if (gave_up_) {
    r_.gave_up = true, r_.at_least = at_least_;
    return std::move(r_);
  }
  finish_write_streams();
  r_.cycles = cycles_of(t);
  return std::move(r_);  // a walker runs once
}

template <class Held>
double Walker<Held>::cycles_of(const Time& t) const {
  return instructions_.decoupled() ? t.cycles_decoupled(first_loads_, after_last_load_, last_store_, last_store_port_)
                                   : t.latency + first_loads_ + last_store_;
}

template <class Held>
void Walker<Held>::problem(const SourceLoc& loc, const std::string& msg) {
  for (const auto& pr : r_.problems)
    if (pr.message == msg) return;
  r_.problems.push_back({loc, msg});
}

template <class Held>
Time Walker<Held>::visit_leaf(int node, const OpBoxes& boxes, int64_t weight) {
  const TreeNode& n = f_.nodes[static_cast<size_t>(node)];
  const Op& op = w_.ops[static_cast<size_t>(n.op)];
  const int64_t points = box_points(w_, n.op, boxes);
  add_leaf(node, points, weight);
  return Time::on_unit(op.unit, static_cast<double>(points * op.ops_per_point));
}

template <class Held>
Time Walker<Held>::visit(int node, const OpBoxes& boxes, int64_t weight) {
  if (gave_up_) return Time();
  const Time t = visit_node(node, boxes, weight);
  time_own_op(node, t);
  return t;
}

template <class Held>
Time Walker<Held>::visit_node(int node, const OpBoxes& boxes, int64_t weight) {
  const TreeNode& n = f_.nodes[static_cast<size_t>(node)];
  if (n.is_leaf) return visit_leaf(node, boxes, weight);
  double load = 0, store = 0, moved_in = 0, moved_out = 0, port = 0, store_port = 0, colliding_store_port = 0;
  double colliding_waits[2] = {0, 0}, colliding[2] = {0, 0};  // [0] loads, [1] stores
  double deferred = 0, staged = 0;
  std::vector<std::pair<size_t, double>> later;
  for (const int owned : owned_[static_cast<size_t>(node)]) {
    const auto t = static_cast<size_t>(owned);
    const bool computed = computed_;
    const Moved m = activate(node, static_cast<int>(t), boxes, weight);
    if (const size_t reader = later_reader(node, static_cast<int>(t)); reader > 0 && m.load > 0) {
      later.push_back({reader, m.load});
      deferred += m.load;
      if (!computed) first_loads_ -= m.load;
    }
    load += m.load, store += m.store, port += m.load_port + m.store_port;
    store_port += m.store_port;
    if (m.store > 0 && m.colliding_wait > 0) colliding_store_port += m.store_port;
    if (m.colliding_wait > 0) colliding_waits[m.store > 0] += m.colliding_wait, ++colliding[m.store > 0];
    if (a_.addressable(p_.tensors[t].level[static_cast<size_t>(node)])) {
      moved_in += m.load, moved_out += m.store;
      const int source = p_.tensors[t].source[static_cast<size_t>(node)];
      if (source != 0 && a_.addressable(source)) staged += m.load + m.store;  // between two on-chip levels
    }
  }
  deferred_loads_ = std::move(later), deferred_node_ = node;
  Time inner;
  if (!own_nest(node, boxes, weight, inner)) inner = loops(node, 0, boxes, weight);
  if (instructions_.times(node)) {
    const Time blocked = instructions_.time(node, boxes, untimed_ == 0 ? &r_.op_instruction_cycles : nullptr, repeat_);
    after_last_load_ += blocked.compute;
    if (instructions_.only(node)) inner = blocked;
    else inner.beside(blocked);
  }
  // Programs move data only between the levels they address; a unit writing its registers
  // back is part of its instructions, not a store that runs after the last of them.
  if (store > 0 && (moved_out > 0 || !instructions_.decoupled())) last_store_ = store, last_store_port_ = store_port, ++stores_;
  Time t = inner;
  t.latency = std::max({load, inner.latency, store});
  t.compute = std::max({load - moved_in, inner.compute, store - moved_out});
  t.load_first(moved_in - deferred);
  // A store whose pieces outlast the DRAM latency cannot hide in the loads' waits for it: it
  // delays the load engine for as much of its time as the loads spend moving pieces.
  const double piece_share = moved_in > 0 ? (port - store_port) / moved_in : 0;
  t.engine += moved_in - deferred + colliding_store_port * piece_share;
  t.in += moved_in, t.out += moved_out, t.port += port, t.staged += staged;
  for (int k = 0; k < 2; ++k) t.colliding_waits[k] += colliding_waits[k], t.colliding[k] += colliding[k];
  return t;
}

// The lowering issues a loop-less tile's loads together, ahead of its first child, and a unit
// that runs in that child waits for all of them. A load that only a later child reads, on a unit
// the earlier children do not use, is the chain's concern only from that child — unless an
// enclosing loop the load does not move (but the earlier children's loads do) hoists it ahead of
// theirs. Tabulated once per tree: which child that is, per tile and tensor.
template <class Held>
void Walker<Held>::note_later_readers() {
  const size_t tensors = w_.tensors.size();
  std::vector<uint64_t> reads(f_.nodes.size(), 0);  // per node: the tensors (below 64) its subtree reads
  std::vector<unsigned> units(f_.nodes.size(), 0);  // per node: its subtree's units (1 << UnitKind)
  for (size_t i = f_.nodes.size(); i-- > 0;) {
    const TreeNode& n = f_.nodes[i];
    if (n.is_leaf) {
      const Op& op = w_.ops[static_cast<size_t>(n.op)];
      for (const auto& in : op.inputs)
        if (in.tensor < 64) reads[i] |= uint64_t{1} << in.tensor;
      units[i] = 1u << static_cast<unsigned>(op.unit);
    }
    for (int c : n.children) reads[i] |= reads[static_cast<size_t>(c)], units[i] |= units[static_cast<size_t>(c)];
  }
  std::vector<uint64_t> indexed_by(tensors, 0);  // per tensor: the dims its accesses index
  auto note = [&](const TensorAccess& acc) {
    for (const auto& ix : acc.index)
      for (const auto& term : ix.terms) indexed_by[static_cast<size_t>(acc.tensor)] |= uint64_t{1} << term.dim;
  };
  for (const Op& op : w_.ops) {
    note(op.out);
    for (const auto& in : op.inputs) note(in);
  }
  later_reader_.assign(f_.nodes.size() * tensors, 0);
  for (size_t node = 0; node < f_.nodes.size(); ++node) {
    const TreeNode& n = f_.nodes[node];
    if (n.is_leaf || !n.loops.empty() || n.children.size() < 2) continue;
    for (size_t t = 0; t < tensors && t < 64; ++t) {
      if (!p_.tensors[t].owner[node] || !a_.addressable(p_.tensors[t].level[node])) continue;
      size_t reader = 0;
      while (reader < n.children.size() && !(reads[static_cast<size_t>(n.children[reader])] >> t & 1)) ++reader;
      if (reader == 0 || reader == n.children.size()) continue;
      unsigned earlier_units = 0;
      uint64_t earlier_dims = 0;  // what indexes the earlier children's loads from this tile
      for (size_t i = 0; i < reader; ++i) {
        const auto child = static_cast<size_t>(n.children[i]);
        earlier_units |= units[child];
        for (size_t u = 0; u < tensors && u < 64; ++u)
          if (p_.tensors[u].owner[node] && (reads[child] >> u & 1)) earlier_dims |= indexed_by[u];
      }
      if (earlier_units & units[static_cast<size_t>(n.children[reader])]) continue;
      bool hoisted = false;
      for (int p = n.parent; p >= 0 && !hoisted; p = f_.nodes[static_cast<size_t>(p)].parent)
        for (const Loop& l : f_.nodes[static_cast<size_t>(p)].loops)
          hoisted |= !l.spatial && l.factor > 1 && (earlier_dims >> l.dim & 1) && !(indexed_by[t] >> l.dim & 1);
      if (!hoisted) later_reader_[node * tensors + t] = reader;
    }
  }
}

template <class Held>
Time Walker<Held>::children(int node, const OpBoxes& boxes, int64_t weight) {
  const TreeNode& n = f_.nodes[static_cast<size_t>(node)];
  std::vector<std::pair<size_t, double>> later;
  if (deferred_node_ == node) later = std::move(deferred_loads_), deferred_node_ = -1;
  // An intermediate whose fusion point is this tile lives at its home while the children run
  // (on a stack the nested calls share: no vector per call).
  const size_t homes_from = homes_.size();
  for (const int fused : fused_[static_cast<size_t>(node)]) {
    const auto t = static_cast<size_t>(fused);
    const auto& tp = p_.tensors[t];
    const Op& prod = w_.ops[static_cast<size_t>(w_.tensors[t].producer)];
    int64_t elems = slice_size(access_slice(prod.out, boxes[static_cast<size_t>(w_.tensors[t].producer)]));
    add_occupancy(tp.home, static_cast<int>(t), inst_ctx_, elems);
    homes_.push_back({static_cast<int>(t), elems});
  }
  const bool split = (n.prim == Prim::Para || n.prim == Prim::Pipe) && n.children.size() > 1;
  const bool drop = n.prim == Prim::Seq && n.children.size() > 1;
  // Children in turn that hand an intermediate over through DRAM (or any level no program
  // addresses): each drains before the next starts.
  const bool phases = runs_in_phases(a_, f_, p_, fused_, node);
  const bool root_phases = phases && node == 0 && n.loops.empty() && give_up_.bar != INFINITY;
  if (root_phases) later_floors_ = floors_of_later_children(a_, w_, f_, 0);
  Time total;
  for (size_t i = 0; i < n.children.size(); ++i) {
    if (drop) drop_for_sibling(node, n.children[i]);
    const int saved_part = part_ctx_;
    if (split) part_ctx_ = contexts_.enter(part_ctx_, static_cast<int64_t>(node) * 1024 + static_cast<int64_t>(i));
    for (const auto& [reader, load] : later)
      if (reader == i) total.then(Time::engine_only(load)), after_last_load_ = 0, ++load_resets_;
    const Time t = phases && node == 0 && phase_cache_ ? cached_phase(n.children[i], boxes, weight)
                   : phases                           ? phase(n.children[i], boxes, weight)
                                                      : visit(n.children[i], boxes, weight);
    part_ctx_ = saved_part;
    if (gave_up_) break;
    // Units that take whole instructions from in-order queues run the children of a Para or
    // Pipe in program order too (no stage of one is interleaved with another's).
    if (n.prim == Prim::Seq || n.prim == Prim::Shar || instructions_.decoupled()) total.then(t);
    else total.beside(t);
    if (root_phases && i + 1 < n.children.size()) {
      check_phases_done(i, total.latency);
      if (gave_up_) break;
    }
  }
  for (size_t k = homes_from; k < homes_.size(); ++k)
    add_occupancy(p_.tensors[static_cast<size_t>(homes_[k].first)].home, homes_[k].first, inst_ctx_, -homes_[k].second);
  homes_.resize(homes_from);
  return total;
}

template <class Held>
Time Walker<Held>::phase(int child, const OpBoxes& boxes, int64_t weight) {
  const bool computed = computed_, fill_in_cycles = fill_in_cycles_;
  const double first_loads = first_loads_;
  computed_ = false, first_loads_ = 0, last_store_ = 0, last_store_port_ = 0, after_last_load_ = 0;
  // The root's phases run one after another, each with its own fill: any one of them adds its
  // fill to the tree's cycles. A phase deeper down may run beside other work that hides it.
  fill_in_cycles_ = fill_in_cycles && f_.nodes[static_cast<size_t>(child)].parent == 0;
  const double t = cycles_of(visit(child, boxes, weight));
  fill_in_cycles_ = fill_in_cycles;
  computed_ = computed || computed_, first_loads_ = first_loads, last_store_ = 0, last_store_port_ = 0, after_last_load_ = 0;
  ++stores_, ++load_resets_;
  return Time::exclusive(t);
}

template <class Held>
Time Walker<Held>::loops(int node, size_t li, const OpBoxes& boxes, int64_t weight) {
  const TreeNode& n = f_.nodes[static_cast<size_t>(node)];
  if (li == n.loops.size()) return children(node, boxes, weight);
  const Loop& loop = n.loops[li];
  const int64_t extent = index_.extent(node, loop.dim, boxes);
  if (extent <= 0) return loops(node, li + 1, boxes, weight);
  // In a partial tile (the last step of a loop above that does not divide its extent) a loop
  // with more trips than elements steps one element at a time (a spatial one leaves the rest of
  // its instances idle): the factors a tree gives its full tiles need not fit the remainder. In
  // full tiles it is a mistake.
  if (loop.factor > extent && partial_ == 0) {
    problem(f_.loc_of(loop), "factor " + std::to_string(loop.factor) + " for '" +
                          w_.dims[static_cast<size_t>(loop.dim)].name + "' exceeds its extent " +
                          std::to_string(extent) + " here");
    return {};
  }
  const Cut steps = cut(extent, loop.factor);
  const auto [chunk, trips, last] = steps;
  auto at = [&, chunk = chunk](int64_t i) { return step_boxes(node, loop.dim, chunk, i, boxes); };
  if (loop.spatial) {
    if (!spatial_split_ok(node, li, extent, steps)) return {};
    return spatial(node, li, weight, trips, last != chunk, at);
  }
  // Temporal: first iteration, then the identical middle ones once with a weight, then a
  // partial last one. Fusion can clip a producer's box near an edge; then the middle
  // iterations are not alike and each is visited (exact, but no longer shape-only in cost).
  const int64_t full = last == chunk ? trips : trips - 1;
  Time latency, one;
  if (full >= 1) {
    BoxPool::Lease b0 = at(0);
    one = loops(node, li + 1, *b0, weight);
    latency.next_iteration(one);
    if (gave_up_) return latency;
  }
  const uint64_t past_first = past_first_;  // the later steps revisit what its dim does not index
  if (loop.dim < 64) past_first_ |= uint64_t{1} << loop.dim;
  if (full >= 2) {
    const int64_t middle = full - 1;
    BoxPool::Lease b1 = at(1);
    if (middle == 1) {
      latency.next_iteration(step(node, li + 1, *b1, weight));
    } else if (BoxPool::Lease b2 = at(2);
               (!index_.steps_alike(node, loop.dim, boxes, chunk, full) && !evenly_spaced(*b1, *b2, *at(full - 1), full - 2)) ||
               moves_accesses_apart(node, *b1, *b2)) {
      for (int64_t i = 1; i < full; ++i) {
        BoxPool::Lease bi = at(i);
        latency.next_iteration(loops(node, li + 1, *bi, weight));
      }
    } else {
      size_t mark = touched_.size(), cover_mark = cover_log_.size();
      ++representing_;
      const double repeat = repeat_;
      repeat_ *= static_cast<double>(middle);
      latency.next_iteration(step(node, li + 1, *b1, weight * middle).times(static_cast<double>(middle)));
      repeat_ = repeat;
      --representing_;
      // One step's move, in the starts of b2 (the walk below reads boxes, never writes them).
      (*b2).assign_move(*b1, *b2);
      translate_since(mark, cover_mark, *b2, middle - 1);
      if (!representing_) touched_.clear(), cover_log_.clear();
    }
  }
  if (full < trips) {
    BoxPool::Lease bl = at(trips - 1);
    ++partial_;
    latency.next_iteration(step(node, li + 1, *bl, weight, true));
    --partial_;
  }
  past_first_ = past_first;
  latency.pipeline_iterations(one, trips);
  return latency;
}

template <class Held>
template <class At>
Time Walker<Held>::spatial(int node, size_t li, int64_t weight, int64_t trips, bool uneven, At at) {
  // Instances run side by side, and alike ones are walked as one (checked in loops()).
  const int64_t key = instance_key(node, li, 0);
  const Runs runs = instance_runs(node, li, trips, uneven);
  auto run = [&](int pass) {
    const auto [first, count] = runs.run[static_cast<size_t>(pass)];
    BoxPool::Lease b = at(first);
    if (count == 1) {
      // An uneven loop's last instance is a partial tile: a spatial loop after it may find
      // less than its factor there.
      const bool partial = uneven && first == trips - 1;
      partial_ += partial;
      Time t;
      // moves_apart still asks how the loop moves the accesses, where a tensor is read two ways.
      if (trips > 1 && accesses_.some_tensor_read_two_ways()) {
        BoxPool::Lease i0 = at(0), i1 = at(1);
        t = instances(node, li, weight, 1, key + pass, *b, nullptr, &*i0, &*i1);
      } else {
        t = instances(node, li, weight, 1, key + pass, *b, nullptr);
      }
      partial_ -= partial;
      return t;
    }
    BoxPool::Lease b1 = at(first + 1);
    return instances(node, li, weight, count, key + pass, *b, &*b1);
  };
  if (runs.size == 1) return run(0);
  // The first run (in every step the one that does most), then the others beside it: their
  // walks must not move the pipeline's first loads or last store either. Where nothing steps
  // below, a second such loop later in the tile walks its runs inside each of this one's: one
  // activation per buffer below for every pair of runs, all kept in the outer loop's Passes.
  // Where loops follow, each run is walked as a tree of its own, and a later run's shared
  // sources send nothing for tensors the loop's dim does not index (sent_by_an_earlier_run).
  const bool stepping = !nothing_steps_below(node, li);
  const bool outermost = !stepping && (!passes_ || passes_->node != node);
  std::optional<Passes> outer;
  if (outermost) outer = std::move(passes_), passes_ = Passes{node, spatial_stack_.size(), {}};
  if (stepping) stepping_runs_.push_back({spatial_stack_.size(), &split_with_uses(node, li).uses, 0});
  const size_t mine = stepping ? stepping_runs_.size() - 1 : 0;
  Time t = run(0);
  const bool computed = computed_;
  const double first_loads = first_loads_, last_store = last_store_, last_store_port = last_store_port_,
               after_last_load = after_last_load_;
  for (int pass = 1; pass < static_cast<int>(runs.size) && !gave_up_; ++pass) {
    if (stepping) stepping_runs_[mine].run = pass;
    ++untimed_;
    run(pass);
    --untimed_;
    computed_ = computed, first_loads_ = first_loads, last_store_ = last_store, last_store_port_ = last_store_port,
    after_last_load_ = after_last_load;
  }
  if (outermost) passes_ = std::move(outer);
  if (stepping) stepping_runs_.pop_back();
  return t;
}

template <class Held>
Time Walker<Held>::instances(int node, size_t li, int64_t weight, int64_t count, int64_t ctx_key, const OpBoxes& first,
                       const OpBoxes* next, const OpBoxes* several_from, const OpBoxes* several_to) {
  const int64_t saved_weight = instance_weight_;
  SpatialLevel& level = spatial_stack_.push();
  level.count = count;
  if (next) level.delta.assign_move(first, *next);  // reuses the level's storage
  else level.delta.assign_zero(first);
  level.node = node, level.li = li;
  level.several = several_to != nullptr;
  if (level.several) level.several_move.assign_move(*several_from, *several_to);
  const int saved_inst = inst_ctx_;
  inst_ctx_ = contexts_.enter(inst_ctx_, ctx_key);
  instance_weight_ = saved_weight * count;
  Time latency = loops(node, li + 1, first, weight * count);
  inst_ctx_ = saved_inst;
  spatial_stack_.pop();
  instance_weight_ = saved_weight;
  return latency;
}

template class Walker<MultiSlice>;
template class Walker<Boxes>;

namespace {

template <class Held>
WalkResult walk_holding(const arch::Arch& a, const Workload& w, const Dataflow& f, const TreeShape& p, PhaseCache* phases,
                        StepReplay replay, CyclesBar give_up) {
  Walker<Held> walker(a, w, f, p, phases, nullptr, replay, give_up);
  WalkResult r = walker.run();
  if (r.gave_up) return r;
  if (walker.needs_classes()) {
    const InstanceCounts classes = walker.instance_counts();
    Walker<Held> again(a, w, f, p, phases, &classes, replay);
    r = again.run();
    if (again.must_walk_again()) r = Walker<Held>(a, w, f, p, nullptr, &classes, replay).run();
    r.classes_missed = true;
    return r;
  }
  if (walker.must_walk_again()) return Walker<Held>(a, w, f, p, nullptr, nullptr, replay).run();
  return r;
}

}  // namespace

WalkResult walk_tree(const arch::Arch& a, const Workload& w, const Dataflow& f, const Placement& p, PhaseCache* phases,
                     StepReplay replay, HeldAs held) {
  return walk_tree(a, w, f, TreeShape(w, f, p), phases, replay, held);
}

WalkResult walk_tree(const arch::Arch& a, const Workload& w, const Dataflow& f, const TreeShape& p, PhaseCache* phases,
                     StepReplay replay, HeldAs held, CyclesBar give_up, ClosedForm closed) {
  if (closed == ClosedForm::Use && held == HeldAs::Boxes && replay != StepReplay::Off) {
    TemplatePlan& plan = walk_kept<TemplatePlan>();
    if (!template_plan(a, w, f, p, plan))
      if (std::optional<WalkResult> r = template_walk(a, w, f, p, plan, phases, give_up)) return std::move(*r);
  }
  if (held == HeldAs::Boxes && p.boxes) {
    try {
      return walk_holding<Boxes>(a, w, f, p, phases, replay, give_up);
    } catch (const TooManyBoxes&) {  // a tensor five ops touch in one tile: as sets
    }
  }
  return walk_holding<MultiSlice>(a, w, f, p, phases, replay, give_up);
}

}  // namespace dfx::model
