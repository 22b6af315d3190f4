#pragma once
// Placements kept across trees. Where tensors live (model/placement.h) follows from a tree's
// shape alone — its nodes, their levels and kept intermediates, the leaves' ops — not from its
// loops, and a search's candidates mostly differ in loops: the placement of a shape seen
// before is looked up instead of worked out again (about 6% of a search's instructions, and a
// third of an analysis's allocations, before it was kept).
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "arch/arch.h"
#include "model/dataflow.h"
#include "model/placement.h"
#include "model/workload.h"

namespace dfx::model {

// Everything of the tree place() reads, as integers: equal keys, equal placements.
using ShapeKey = std::vector<int64_t>;
void shape_key(const Dataflow& f, ShapeKey& key);

// Thread-safe: a search's worker threads share one. For one arch and one workload only (the
// keys do not name them), and for trees without source locations (a placement's problems
// would point into the tree it was first worked out for; trees whose placement throws are
// not kept). Keeps at most kMaxEntries; beyond that it starts again empty.
class PlacementCache {
 public:
  // place(a, w, f), or the same placement kept from a tree of the same shape.
  std::shared_ptr<const Placement> place(const arch::Arch& a, const Workload& w, const Dataflow& f);
  size_t size();  // shapes kept

  static constexpr size_t kMaxEntries = 4096;

 private:
  struct Hash {
    size_t operator()(const ShapeKey& k) const;
  };
  std::mutex mutex_;
  std::unordered_map<ShapeKey, std::shared_ptr<const Placement>, Hash> entries_;
};

}  // namespace dfx::model
