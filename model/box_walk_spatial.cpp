// The box walk's spatial loops whose instances are not all alike — a last instance with less to
// do, or fewer instances in a partial tile — walked in runs of alike instances, with the walk's
// checks and its rules for what a later run's sources send (model/walk.cpp, Walker::spatial).
#include <algorithm>

#include "model/box_walker.h"

namespace dfx::model {

// Walker::spatial_split_ok, where each problem leaves the tree to the walk (which reports it).
void BoxWalker::check_split(int node, size_t li, int64_t extent, const Cut& steps) {
  const auto [chunk, trips, last] = steps;
  const bool even = last == chunk;
  auto [it, fresh] = spatial_splits_.insert({{node, li}, SpatialSplit{extent, chunk, even, {}, {}, -1}});
  SpatialSplit& split = it->second;
  if (!fresh && split.extent != extent && (split.chunk != chunk || !split.even || !even)) throw Uncovered{};
  auto at = std::lower_bound(split.counts.begin(), split.counts.end(), trips);
  if (at == split.counts.end() || *at != trips) split.counts.insert(at, trips);
  const bool alike = even && split.counts.size() == 1;
  if (!alike && !nothing_steps_below(node, li) && split.may_step < 0)
    split.may_step = runs_may_step_below(a_, f_, p_, node, split_with_uses(node, li).uses) ? 1 : 0;
  if ((!alike && split.may_step == 0) || static_cast<int64_t>(split.counts.size()) >= kMaxPasses) throw Uncovered{};
  if (split.counts.size() > 1) {
    // A count the scan did not list: the walk walks again with the counts it found.
    const auto listed = classes_.find({node, li});
    if (listed == classes_.end() || !std::binary_search(listed->second.begin(), listed->second.end(), trips)) throw Uncovered{};
  }
}

bool BoxWalker::nothing_steps_below(int node, size_t li) const {
  const std::vector<Loop>& own = f_.nodes[static_cast<size_t>(node)].loops;
  for (size_t k = li + 1; k < own.size(); ++k)
    if (!own[k].spatial) return false;
  for (int x = node + 1; x < subtree_end_[static_cast<size_t>(node)]; ++x)
    if (!f_.nodes[static_cast<size_t>(x)].loops.empty()) return false;
  return true;
}

BoxWalker::SpatialSplit& BoxWalker::split_with_uses(int node, size_t li) {
  SpatialSplit& split = spatial_splits_.at({node, li});
  if (split.uses.empty()) split.uses = dim_uses(w_, p_, node, f_.nodes[static_cast<size_t>(node)].loops[li].dim);
  return split;
}

bool BoxWalker::sent_by_an_earlier_run(int tensor, size_t prefix) const {
  for (const SteppingRun& r : stepping_runs_)
    if (r.run > 0 && prefix <= r.level && (*r.uses)[static_cast<size_t>(tensor)] == DimUse::None) return true;
  return false;
}

BoxWalker::Runs BoxWalker::instance_runs(int node, size_t li, int64_t trips, bool uneven) const {
  Runs runs;
  if (uneven) {  // the last instance has less to do
    runs.run[runs.size++] = {0, trips - 1}, runs.run[runs.size++] = {trips - 1, 1};
    return runs;
  }
  const auto it = classes_.find({node, li});
  if (it == classes_.end()) {
    runs.run[runs.size++] = {0, trips};
    return runs;
  }
  // Instances [n_{j-1}, n_j) run in every step that runs n_j or more: one run per class.
  int64_t from = 0;
  for (int64_t n : it->second) {
    if (n > trips) break;
    runs.run[runs.size++] = {from, n - from};
    from = n;
  }
  return runs;
}

// What a multicast source sends for an activation merged over the runs' instances: what the
// earlier runs' sources did not send already (Walker::sent_over_passes).
int64_t BoxWalker::sent_over_passes(int node, int tensor, int id, const Boxes& now, int64_t merged) {
  BoxStream& s = streams_[static_cast<size_t>(id)];
  Region sent = Region::difference(now.multi_slice(), s.resident.multi_slice());
  if (merged > 1)
    for (const auto& [axis, step, count] : s.spreads) sent.spread(axis, step, count);
  auto earlier = std::find_if(passes_->sent.begin(), passes_->sent.end(),
                              [&](const Passes::Sent& e) { return e.node == node && e.tensor == tensor; });
  if (earlier == passes_->sent.end()) {
    const int64_t n = sent.size();
    passes_->sent.push_back({node, tensor, {id}, std::move(sent)});
    return n;
  }
  const int64_t n = sent.size_outside(earlier->region);
  s.twins = earlier->streams;
  earlier->streams.push_back(id);
  earlier->region.unite(sent);
  return n;
}

}  // namespace dfx::model
