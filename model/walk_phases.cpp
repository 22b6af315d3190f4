// The fast walk's phases kept across trees (model/phase_cache.h): a child of the root that hands
// its data on through DRAM costs the same in every tree that has it, so a search walks it once.
#include <algorithm>
#include <utility>

#include "model/walker.h"

namespace dfx::model {

namespace {

// Results this thread is done with, their lists kept for the next: a search makes about three a
// tree (the tree's, its phases'), a dozen lists each, which were a sixth of its allocations.
std::vector<WalkResult>& spare_results() {
  thread_local std::vector<WalkResult> spare;
  return spare;
}

}  // namespace

void recycle_walk_result(WalkResult&& r) {
  std::vector<WalkResult>& spare = spare_results();
  constexpr size_t kMostSpare = 8;
  if (r.traffic.capacity() > 0 && spare.size() < kMostSpare) spare.push_back(std::move(r));
}

WalkResult empty_walk_result(const arch::Arch& a, const Workload& w) {
  WalkResult r;  // every field at its default; only a spare's lists' storage is taken over
  if (std::vector<WalkResult>& spare = spare_results(); !spare.empty()) {
    WalkResult& old = spare.back();
    r.traffic = std::move(old.traffic), r.peak_elems = std::move(old.peak_elems);
    r.level_peak_elems = std::move(old.level_peak_elems), r.feed_reads = std::move(old.feed_reads);
    r.feed_updates = std::move(old.feed_updates), r.op_work = std::move(old.op_work);
    r.op_cycles = std::move(old.op_cycles), r.op_instruction_cycles = std::move(old.op_instruction_cycles);
    spare.pop_back();
  }
  r.traffic.resize(a.levels.size());
  for (std::vector<Traffic>& level : r.traffic) level.assign(w.tensors.size(), Traffic{});
  r.peak_elems.resize(a.levels.size());
  for (std::vector<int64_t>& level : r.peak_elems) level.assign(w.tensors.size(), 0);
  r.level_peak_elems.assign(a.levels.size(), 0);
  r.feed_reads.assign(a.levels.size(), 0);
  r.feed_updates.assign(a.levels.size(), 0);
  r.op_work.assign(w.ops.size(), 0);
  r.op_cycles.assign(w.ops.size(), 0);
  r.op_instruction_cycles.assign(w.ops.size(), 0);
  return r;
}

void add_leaf_counts(WalkResult& r, const Workload& w, const Dataflow& f, const Placement& p, int leaf, int64_t points, int64_t weight) {
  const auto o = static_cast<size_t>(f.nodes[static_cast<size_t>(leaf)].op);
  const Op& op = w.ops[o];
  const int64_t work = points * op.ops_per_point * weight;
  (op.unit == arch::UnitKind::Matrix ? r.macs : r.vector_ops) += work;
  r.op_work[o] += work;
  auto at = [&](int tensor) -> Traffic& {
    const int level = p.tensors[static_cast<size_t>(tensor)].level[static_cast<size_t>(leaf)];
    return r.traffic[static_cast<size_t>(level)][static_cast<size_t>(tensor)];
  };
  for (const auto& in : op.inputs) at(in.tensor).read += points * weight;
  at(op.out.tensor).update += points * weight;
}

void add_phase_counts(WalkResult& into, const WalkResult& r) {
  for (size_t l = 0; l < r.traffic.size(); ++l) {
    for (size_t t = 0; t < r.traffic[l].size(); ++t) {
      Traffic& to = into.traffic[l][t];
      to.fill += r.traffic[l][t].fill, to.read += r.traffic[l][t].read, to.update += r.traffic[l][t].update;
      into.peak_elems[l][t] = std::max(into.peak_elems[l][t], r.peak_elems[l][t]);
    }
    into.level_peak_elems[l] = std::max(into.level_peak_elems[l], r.level_peak_elems[l]);
    into.feed_reads[l] += r.feed_reads[l], into.feed_updates[l] += r.feed_updates[l];
  }
  into.macs += r.macs, into.vector_ops += r.vector_ops;
  for (size_t o = 0; o < r.op_work.size(); ++o) {
    into.op_work[o] += r.op_work[o], into.op_cycles[o] += r.op_cycles[o];
    into.op_instruction_cycles[o] += r.op_instruction_cycles[o];
  }
}

template <class Held>
WalkResult Walker<Held>::empty_result() const {
  return empty_walk_result(a_, w_);
}

template <class Held>
bool Walker<Held>::root_phases_separable() const {
  const TreeNode& root = f_.root();
  return !root.is_leaf && root.prim == Prim::Seq && root.children.size() >= 2 && root.loops.empty() && root.keep.empty();
}

// Between phases the root's Seq drops every buffer of the one before (drop_for_sibling): a
// phase starts with nothing on chip, which is what makes its peaks its own. Buffers are found by
// tensor, level, role and instance, not by node, so a phase reading a tensor an earlier one read
// too finds that one's buffer again, empty: as good as a new one. A written buffer stays with
// the phase of the tensor's producer.
template <class Held>
bool Walker<Held>::on_chip_empty() const {
  const size_t per_level = w_.tensors.size() + 1, per_inst = a_.levels.size() * per_level;
  for (size_t at = 0; at + per_inst <= occupancy_.size(); at += per_inst)
    for (size_t level = 1; level < a_.levels.size(); ++level)
      if (occupancy_[at + level * per_level + w_.tensors.size()] != 0) return false;
  return true;
}

template <class Held>
void Walker<Held>::add_phase(const WalkResult& r) {
  add_phase_counts(r_, r);
  for (const auto& pr : r.problems) problem(pr.where, pr.message);
}

template <class Held>
Time Walker<Held>::cached_phase(int child, const OpBoxes& boxes, int64_t weight) {
  PhaseKey key = phase_key(f_, child);
  const bool clean = on_chip_empty();
  if (const auto hit = clean ? phase_cache_->find(key) : nullptr) {
    used_cache_ = true;
    add_phase(hit->walk);
    computed_ = computed_ || hit->computed;
    return Time::exclusive(hit->walk.cycles);
  }
  // Walk it with a result of its own, then add that in: its peaks are then its own too.
  const bool computed = computed_, was_entangled = entangled_;
  WalkResult outside = std::exchange(r_, empty_result());
  recording_from_ = streams_.size();
  entangled_ = false, computed_ = false;
  scan_classes(child, boxes);
  const Time t = phase(child, boxes, weight);
  if (gave_up_) return t;
  finish_write_streams(recording_from_);
  recording_from_ = kNotRecording;
  PhaseResult mine{std::exchange(r_, std::move(outside)), computed_};
  mine.walk.cycles = t.latency;
  add_phase(mine.walk);
  computed_ = computed || mine.computed;
  // DRAM holds more than one phase's data (the intermediates between them), so a phase that
  // moved its occupancy there depends on the others.
  const bool dram_untouched = mine.walk.level_peak_elems[0] == 0;
  // A walk that must be done again with instance classes (needs_classes) keeps nothing.
  if (clean && !entangled_ && dram_untouched && !needs_classes_) phase_cache_->insert(std::move(key), std::move(mine));
  entangled_ = entangled_ || was_entangled;
  return t;
}

template class Walker<MultiSlice>;
template class Walker<Boxes>;

}  // namespace dfx::model
