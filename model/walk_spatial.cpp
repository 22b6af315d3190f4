// The fast walk's spatial loops: which instances run alike (runs of them), whether a split may
// differ between steps, and what a later run's shared sources already sent. The walk through
// the instances themselves is in model/walk.cpp (Walker::spatial, Walker::instances).
#include <algorithm>
#include <string>

#include "model/walker.h"

namespace dfx::model {

template <class Held>
bool Walker<Held>::nothing_steps_below(int node, size_t li) const {
  const std::vector<Loop>& own = f_.nodes[static_cast<size_t>(node)].loops;
  for (size_t k = li + 1; k < own.size(); ++k)
    if (!own[k].spatial) return false;
  for (int x = node + 1; x < subtree_end_[static_cast<size_t>(node)]; ++x)
    if (!f_.nodes[static_cast<size_t>(x)].loops.empty()) return false;
  return true;
}

template <class Held>
SpatialSplit& Walker<Held>::split_with_uses(int node, size_t li) {
  SpatialSplit& split = spatial_splits_.at(node, li);
  if (split.uses.empty()) split.uses = dim_uses(w_, p_, node, f_.nodes[static_cast<size_t>(node)].loops[li].dim);
  return split;
}

template <class Held>
bool Walker<Held>::sent_by_an_earlier_run(int tensor, size_t prefix) const {
  for (const SteppingRun& r : stepping_runs_)
    if (r.run > 0 && prefix <= r.level && (*r.uses)[static_cast<size_t>(tensor)] == DimUse::None) return true;
  return false;
}

template <class Held>
bool Walker<Held>::spatial_split_ok(int node, size_t li, int64_t extent, const Cut& steps) {
  const Loop& loop = f_.nodes[static_cast<size_t>(node)].loops[li];
  const auto [chunk, trips, last] = steps;
  const bool even = last == chunk;
  auto [split, fresh] = spatial_splits_.insert(node, li, extent, chunk, even);
  auto where = [&] { return "spatial loop " + w_.dims[static_cast<size_t>(loop.dim)].name + ":" + std::to_string(loop.factor); };
  if (!fresh && split.extent != extent && (split.chunk != chunk || !split.even || !even)) {
    problem(f_.loc_of(loop), where() + " splits extent " + std::to_string(split.extent) + " in one step and " +
                          std::to_string(extent) + " in another (a partial tile above it) into different pieces; "
                          "steps may differ only in how many instances run, each taking the same chunk");
    return false;
  }
  auto at = std::lower_bound(split.counts.begin(), split.counts.end(), trips);
  if (at == split.counts.end() || *at != trips) split.counts.insert(at, trips);
  const bool alike = even && split.counts.size() == 1;
  if (!alike && !nothing_steps_below(node, li) && split.may_step < 0)
    split.may_step = model::runs_may_step_below(a_, f_, p_, node, split_with_uses(node, li).uses) ? 1 : 0;
  if (!alike && split.may_step == 0) {
    problem(f_.loc_of(loop), where() + (even ? " runs " + std::to_string(split.counts.front()) + " instances in one step and " +
                                            std::to_string(split.counts.back()) + " in another"
                                      : " splits extent " + std::to_string(extent) + " unevenly") +
                          " above a temporal loop or loops below that fill buffers from a multicast source its instances "
                          "share; a spatial loop whose instances are not all alike may have only spatial loops after it in "
                          "its tile, and no loops below it, unless what such buffers hold is read without its dim or indexed "
                          "by it plainly (docs/semantics.md)");
    return false;
  }
  if (static_cast<int64_t>(split.counts.size()) >= kMaxPasses) {
    problem(f_.loc_of(loop), where() + " runs " + std::to_string(split.counts.size()) + " different numbers of instances; at most " +
                          std::to_string(kMaxPasses - 1) + " are supported");
    return false;
  }
  if (split.counts.size() > 1 && scan_.buffers_below(node)) {
    const auto listed = classes_ ? classes_->find({node, li}) : InstanceCounts::const_iterator();
    needs_classes_ = needs_classes_ || !classes_ || listed == classes_->end() ||
                     !std::binary_search(listed->second.begin(), listed->second.end(), trips);
  }
  return true;
}

template <class Held>
typename Walker<Held>::InstanceCounts Walker<Held>::instance_counts() const {
  InstanceCounts out;
  spatial_splits_.each(f_, [&](int node, size_t li, const SpatialSplit& split) {
    if (split.counts.size() > 1) out[{node, li}] = split.counts;
  });
  return out;
}

template <class Held>
typename Walker<Held>::Runs Walker<Held>::instance_runs(int node, size_t li, int64_t trips, bool uneven) const {
  Runs runs;
  if (uneven) {  // the last instance has less to do
    runs.push_back({0, trips - 1}), runs.push_back({trips - 1, 1});
    return runs;
  }
  const auto it = classes_ ? classes_->find({node, li}) : InstanceCounts::const_iterator();
  if (!classes_ || it == classes_->end()) {
    runs.push_back({0, trips});
    return runs;
  }
  // Instances [n_{j-1}, n_j) run in every step that runs n_j or more: one run per class.
  int64_t from = 0;
  for (int64_t n : it->second) {
    if (n > trips) break;
    runs.push_back({from, n - from});
    from = n;
  }
  return runs;
}

template class Walker<MultiSlice>;
template class Walker<Boxes>;

}  // namespace dfx::model
