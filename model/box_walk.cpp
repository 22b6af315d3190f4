// The box walk's tree: visits, children, phases and loops, as model/walk.cpp takes them on archs
// whose units the tree times (a part's time is its latency alone, one double).
#include <algorithm>

#include "model/box_walker.h"

namespace dfx::model {

bool box_walk_applies(const arch::Arch& a, const Workload& w) {
  if (a.instruction_timed()) return false;
  auto intervals = [](const TensorAccess& acc) {
    if (acc.index.size() > static_cast<size_t>(kMaxBoxRank)) return false;
    for (const auto& ix : acc.index) {
      uint64_t dims = 0;
      for (const auto& term : ix.terms) {
        if (term.coef != 1 || term.dim >= 64 || (dims >> term.dim & 1)) return false;
        dims |= uint64_t{1} << term.dim;
      }
    }
    return true;
  };
  for (const Op& op : w.ops) {
    if (!intervals(op.out)) return false;
    for (const auto& in : op.inputs)
      if (!intervals(in)) return false;
  }
  return true;
}

std::optional<WalkResult> box_walk(const arch::Arch& a, const Workload& w, const Dataflow& f, const Placement& p,
                                   PhaseCache* phases) {
  try {
    BoxWalker walker(a, w, f, p, phases);
    WalkResult r = walker.run();
    if (walker.must_walk_again()) return BoxWalker(a, w, f, p, nullptr).run();
    return r;
  } catch (const BoxWalker::Uncovered&) {
    return std::nullopt;
  }
}

BoxWalker::BoxWalker(const arch::Arch& a, const Workload& w, const Dataflow& f, const Placement& p, PhaseCache* phases)
    : a_(a), w_(w), f_(f), p_(p), index_(w, f, p), accesses_(w, f, p), scan_(w, f, index_) {
  r_ = empty_result();
  const TreeNode& root = f.root();
  // The root's children are phases of their own (Walker::root_phases_separable).
  if (phases && !root.is_leaf && root.prim == Prim::Seq && root.children.size() >= 2 && root.loops.empty() && root.keep.empty())
    phase_cache_ = phases;
  mc_prefix_ = source_prefixes(w, f, p);
  subtree_end_ = subtree_ends(f);
  own_op_ = own_ops(f);
  replay_places_ = replay_places(f, false);
  recording_slot_.assign(2 * replay_places_.at.back(), -1);
  streams_.reserve(4 * f.nodes.size());
}

WalkResult BoxWalker::empty_result() const {
  WalkResult r;
  r.traffic.assign(a_.levels.size(), std::vector<Traffic>(w_.tensors.size()));
  r.peak_elems.assign(a_.levels.size(), std::vector<int64_t>(w_.tensors.size(), 0));
  r.level_peak_elems.assign(a_.levels.size(), 0);
  r.feed_reads.assign(a_.levels.size(), 0);
  r.feed_updates.assign(a_.levels.size(), 0);
  r.op_work.assign(w_.ops.size(), 0);
  r.op_cycles.assign(w_.ops.size(), 0);
  r.op_instruction_cycles.assign(w_.ops.size(), 0);
  return r;
}

WalkResult BoxWalker::run() {
  const OpBoxes boxes = OpBoxes::whole(w_);
  if (!phase_cache_) scan_.scan(0, boxes, classes_);  // else each phase walked is scanned first
  const double t = visit(0, boxes, 1);
  finish_write_streams();
  r_.cycles = cycles_of(t);
  return r_;
}

double BoxWalker::visit(int node, const OpBoxes& boxes, int64_t weight) {
  const double t = visit_node(node, boxes, weight);
  const int op = own_op_[static_cast<size_t>(node)];
  if (op >= 0 && untimed_ == 0) {
    r_.op_cycles[static_cast<size_t>(op)] += t * repeat_;
    if (!recorders_.empty()) note_own_time(op, t, repeat_);
  }
  return t;
}

double BoxWalker::visit_leaf(int node, const OpBoxes& boxes, int64_t weight) {
  const TreeNode& n = f_.nodes[static_cast<size_t>(node)];
  const Op& op = w_.ops[static_cast<size_t>(n.op)];
  int64_t points = 1;
  for (int d : op.dims) {
    const Range& r = boxes[static_cast<size_t>(n.op)][static_cast<size_t>(d)];
    points *= r.second - r.first;
  }
  const int64_t work = points * op.ops_per_point * weight;
  (op.unit == arch::UnitKind::Matrix ? r_.macs : r_.vector_ops) += work;
  r_.op_work[static_cast<size_t>(n.op)] += work;
  computed_ = true;
  for (const auto& in : op.inputs) {
    const int lv = p_.tensors[static_cast<size_t>(in.tensor)].level[static_cast<size_t>(node)];
    r_.traffic[static_cast<size_t>(lv)][static_cast<size_t>(in.tensor)].read += points * weight;
  }
  const int lv = p_.tensors[static_cast<size_t>(op.out.tensor)].level[static_cast<size_t>(node)];
  r_.traffic[static_cast<size_t>(lv)][static_cast<size_t>(op.out.tensor)].update += points * weight;
  return static_cast<double>(points * op.ops_per_point);
}

double BoxWalker::visit_node(int node, const OpBoxes& boxes, int64_t weight) {
  if (f_.nodes[static_cast<size_t>(node)].is_leaf) return visit_leaf(node, boxes, weight);
  double load = 0, store = 0;
  for (size_t t = 0; t < w_.tensors.size(); ++t) {
    if (!p_.tensors[t].owner[static_cast<size_t>(node)]) continue;
    const Moved m = activate(node, static_cast<int>(t), boxes, weight);
    load += m.load, store += m.store;
  }
  const double inner = loops(node, 0, boxes, weight);
  if (store > 0) last_store_ = store, ++stores_;
  return std::max({load, inner, store});
}

double BoxWalker::children(int node, const OpBoxes& boxes, int64_t weight) {
  const TreeNode& n = f_.nodes[static_cast<size_t>(node)];
  // An intermediate whose fusion point is this tile lives at its home while the children run
  // (kept on a stack shared by the nested calls: no vector per call).
  const size_t homes_from = homes_.size();
  for (size_t t = 0; t < w_.tensors.size(); ++t) {
    const auto& tp = p_.tensors[t];
    if (!w_.tensors[t].is_intermediate() || tp.region != node) continue;
    const int producer = w_.tensors[t].producer;
    const int64_t elems = slice_size(access_slice(w_.ops[static_cast<size_t>(producer)].out, boxes[static_cast<size_t>(producer)]));
    add_occupancy(tp.home, static_cast<int>(t), inst_ctx_, elems);
    homes_.push_back({static_cast<int>(t), elems});
  }
  const bool split = (n.prim == Prim::Para || n.prim == Prim::Pipe) && n.children.size() > 1;
  const bool drop = n.prim == Prim::Seq && n.children.size() > 1;
  bool phases = false;
  for (size_t t = 0; drop && t < w_.tensors.size(); ++t)
    phases |= w_.tensors[t].is_intermediate() && p_.tensors[t].region == node && !a_.addressable(p_.tensors[t].home);
  double total = 0;
  for (size_t i = 0; i < n.children.size(); ++i) {
    if (drop) drop_for_sibling(node, n.children[i]);
    const int saved_part = part_ctx_;
    if (split) part_ctx_ = contexts_.enter(part_ctx_, static_cast<int64_t>(node) * 1024 + static_cast<int64_t>(i));
    const double t = phases && node == 0 && phase_cache_ ? cached_phase(n.children[i], boxes, weight)
                     : phases                           ? phase(n.children[i], boxes, weight)
                                                        : visit(n.children[i], boxes, weight);
    part_ctx_ = saved_part;
    total = n.prim == Prim::Seq || n.prim == Prim::Shar ? total + t : std::max(total, t);
  }
  for (size_t i = homes_from; i < homes_.size(); ++i)
    add_occupancy(p_.tensors[static_cast<size_t>(homes_[i].first)].home, homes_[i].first, inst_ctx_, -homes_[i].second);
  homes_.resize(homes_from);
  return total;
}

double BoxWalker::phase(int child, const OpBoxes& boxes, int64_t weight) {
  const bool computed = computed_;
  const double first_loads = first_loads_;
  computed_ = false, first_loads_ = 0, last_store_ = 0;
  const double t = cycles_of(visit(child, boxes, weight));
  computed_ = computed || computed_, first_loads_ = first_loads, last_store_ = 0;
  ++stores_;
  return t;
}

bool BoxWalker::on_chip_empty() const {
  for (const auto& [key, elems] : level_occupancy_)
    if (elems != 0 && ((key >> 16) & 0xff) != 0) return false;
  return true;
}

void BoxWalker::add_phase(const WalkResult& r) {
  for (size_t l = 0; l < r.traffic.size(); ++l) {
    for (size_t t = 0; t < r.traffic[l].size(); ++t) {
      Traffic& to = r_.traffic[l][t];
      to.fill += r.traffic[l][t].fill, to.read += r.traffic[l][t].read, to.update += r.traffic[l][t].update;
      r_.peak_elems[l][t] = std::max(r_.peak_elems[l][t], r.peak_elems[l][t]);
    }
    r_.level_peak_elems[l] = std::max(r_.level_peak_elems[l], r.level_peak_elems[l]);
    r_.feed_reads[l] += r.feed_reads[l], r_.feed_updates[l] += r.feed_updates[l];
  }
  r_.macs += r.macs, r_.vector_ops += r.vector_ops;
  for (size_t o = 0; o < r.op_work.size(); ++o) {
    r_.op_work[o] += r.op_work[o], r_.op_cycles[o] += r.op_cycles[o];
    r_.op_instruction_cycles[o] += r.op_instruction_cycles[o];
  }
  if (!r.problems.empty()) throw Uncovered{};
}

// As Walker::cached_phase: a phase's analysis looked up, or walked with a result of its own and
// kept when nothing outside it was touched.
double BoxWalker::cached_phase(int child, const OpBoxes& boxes, int64_t weight) {
  PhaseKey key = phase_key(f_, child);
  const bool clean = on_chip_empty();
  if (const auto hit = clean ? phase_cache_->find(key) : nullptr) {
    used_cache_ = true;
    add_phase(hit->walk);
    computed_ = computed_ || hit->computed;
    return hit->walk.cycles;
  }
  const bool computed = computed_, was_entangled = entangled_;
  WalkResult outside = std::exchange(r_, empty_result());
  recording_from_ = streams_.size();
  entangled_ = false, computed_ = false;
  scan_.scan(child, boxes, classes_);
  const double t = phase(child, boxes, weight);
  finish_write_streams(recording_from_);
  recording_from_ = kNotRecording;
  PhaseResult mine{std::exchange(r_, std::move(outside)), computed_};
  mine.walk.cycles = t;
  add_phase(mine.walk);
  computed_ = computed || mine.computed;
  const bool dram_untouched = mine.walk.level_peak_elems[0] == 0;
  if (clean && !entangled_ && dram_untouched) phase_cache_->insert(std::move(key), std::move(mine));
  entangled_ = entangled_ || was_entangled;
  return t;
}

double BoxWalker::loops(int node, size_t li, const OpBoxes& boxes, int64_t weight) {
  const TreeNode& n = f_.nodes[static_cast<size_t>(node)];
  if (li == n.loops.size()) return children(node, boxes, weight);
  const Loop& loop = n.loops[li];
  const int64_t extent = index_.extent(node, loop.dim, boxes);
  if (extent <= 0) return loops(node, li + 1, boxes, weight);
  // In a partial tile a loop with more trips than elements steps one element at a time; in a
  // full tile it is a problem the walk reports.
  if (loop.factor > extent && partial_ == 0) throw Uncovered{};
  const Cut steps = cut(extent, loop.factor);
  const auto [chunk, trips, last] = steps;
  auto at = [&, chunk = chunk](int64_t i) { return step_boxes(node, loop.dim, chunk, i, boxes); };
  if (loop.spatial) {
    check_split(node, li, extent, steps);
    return spatial(node, li, weight, trips, last != chunk, at);
  }
  // Temporal: the first step, the middle ones through one that stands for them all (moved on
  // after it), a partial last one, as Walker::loops takes them.
  const int64_t full = last == chunk ? trips : trips - 1;
  double latency = 0;
  if (full >= 1) {
    BoxPool::Lease b0 = at(0);
    latency += loops(node, li + 1, *b0, weight);
  }
  if (full >= 2) {
    const int64_t middle = full - 1;
    BoxPool::Lease b1 = at(1);
    if (middle == 1) {
      latency += step(node, li + 1, *b1, weight);
    } else if (BoxPool::Lease b2 = at(2);
               !index_.steps_alike(node, loop.dim, boxes, chunk, full) && !evenly_spaced(*b1, *b2, *at(full - 1), full - 2)) {
      for (int64_t i = 1; i < full; ++i) {
        BoxPool::Lease bi = at(i);
        latency += loops(node, li + 1, *bi, weight);
      }
    } else {
      const size_t mark = touched_.size(), cover_mark = cover_log_.size();
      ++representing_;
      const double repeat = repeat_;
      repeat_ *= static_cast<double>(middle);
      latency += step(node, li + 1, *b1, weight * middle) * static_cast<double>(middle);
      repeat_ = repeat;
      --representing_;
      (*b2).assign_move(*b1, *b2);
      translate_since(mark, cover_mark, *b2, middle - 1);
      if (!representing_) touched_.clear(), cover_log_.clear();
    }
  }
  if (full < trips) {
    BoxPool::Lease bl = at(trips - 1);
    ++partial_;
    latency += step(node, li + 1, *bl, weight, true);
    --partial_;
  }
  return latency;
}

template <class At>
double BoxWalker::spatial(int node, size_t li, int64_t weight, int64_t trips, bool uneven, At at) {
  // Instances run side by side, and alike ones are walked as one (Walker::spatial).
  const int64_t key = (static_cast<int64_t>(node) * 4096 + static_cast<int64_t>(li)) * kMaxPasses;
  const Runs runs = instance_runs(node, li, trips, uneven);
  auto run = [&](size_t pass) {
    const auto [first, count] = runs.run[pass];
    BoxPool::Lease b = at(first);
    if (count == 1) {
      // An uneven loop's last instance is a partial tile for the loops after it.
      const bool partial = uneven && first == trips - 1;
      partial_ += partial;
      const double t = instances(node, li, weight, 1, key + static_cast<int64_t>(pass), *b, nullptr);
      partial_ -= partial;
      return t;
    }
    BoxPool::Lease b1 = at(first + 1);
    return instances(node, li, weight, count, key + static_cast<int64_t>(pass), *b, &*b1);
  };
  if (runs.size == 1) return run(0);
  // The first run, then the others beside it, their time the first's (Walker::spatial).
  const bool stepping = !nothing_steps_below(node, li);
  const bool outermost = !stepping && (!passes_ || passes_->node != node);
  std::optional<Passes> outer;
  if (outermost) outer = std::move(passes_), passes_ = Passes{node, spatial_depth_, {}};
  if (stepping) stepping_runs_.push_back({spatial_depth_, &split_with_uses(node, li).uses, 0});
  const size_t mine = stepping ? stepping_runs_.size() - 1 : 0;
  const double t = run(0);
  const bool computed = computed_;
  const double first_loads = first_loads_, last_store = last_store_;
  for (size_t pass = 1; pass < runs.size; ++pass) {
    if (stepping) stepping_runs_[mine].run = static_cast<int64_t>(pass);
    ++untimed_;
    run(pass);
    --untimed_;
    computed_ = computed, first_loads_ = first_loads, last_store_ = last_store;
  }
  if (outermost) passes_ = std::move(outer);
  if (stepping) stepping_runs_.pop_back();
  return t;
}

double BoxWalker::instances(int node, size_t li, int64_t weight, int64_t count, int64_t ctx_key, const OpBoxes& first,
                            const OpBoxes* next) {
  const int64_t saved_weight = instance_weight_;
  if (spatial_depth_ == spatial_stack_.size()) spatial_stack_.emplace_back();
  SpatialLevel& level = spatial_stack_[spatial_depth_++];
  level.count = count;
  if (next) level.delta.assign_move(first, *next);
  else level.delta.assign_zero(first);
  const int saved_inst = inst_ctx_;
  inst_ctx_ = contexts_.enter(inst_ctx_, ctx_key);
  instance_weight_ = saved_weight * count;
  const double latency = loops(node, li + 1, first, weight * count);
  inst_ctx_ = saved_inst;
  --spatial_depth_;
  instance_weight_ = saved_weight;
  return latency;
}

}  // namespace dfx::model
