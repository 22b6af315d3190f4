#pragma once
// What a tree's shape alone decides, kept across trees. Where tensors live (model/placement.h),
// the ops below each tile by dimension (TileIndex), what each buffer's slice is made of
// (BufferAccesses), which nodes have buffers below and which subtrees are an op's own follow
// from a tree's nodes, their levels and kept intermediates and the leaves' ops — not from its
// loops; and a search's candidates mostly differ in loops. The shape of a tree seen before is
// looked up instead of worked out again (before it was kept, about 10% of a search's
// instructions, and a third of an analysis's allocations).
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "arch/arch.h"
#include "model/compulsory.h"
#include "model/dataflow.h"
#include "model/phase_cache.h"
#include "model/placement.h"
#include "model/walk_scan.h"
#include "model/walk_support.h"
#include "model/workload.h"

namespace dfx::model {

struct TreeShape {
  // Contract: throws InputError as place() does.
  TreeShape(const arch::Arch& a, const Workload& w, const Dataflow& f);
  // For a placement already made.
  TreeShape(const Workload& w, const Dataflow& f, Placement p);
  Placement placement;
  TileIndex index;
  BufferAccesses accesses;
  std::vector<char> buffers_below;  // owners_below() (model/walk_scan.h)
  std::vector<int> subtree_end;     // subtree_ends() (model/walk_support.h)
  std::vector<int> own_op;          // own_ops()
  ScanBasis scan_basis;             // scan_basis() (model/walk_scan.h): the workload's, kept here
  // The workload's too: accesses_are_boxes() and accesses_are_plain_boxes() (model/held.h),
  // asked by every analysis.
  bool boxes = false, plain_boxes = false;
  // Per node, in tensor order: the tensors it keeps a buffer of (placement owners), and the
  // intermediates fused there (their region) — what a visit of the node looks through.
  std::vector<std::vector<int>> owned, fused;
  std::vector<int> source_anchors;  // source_anchors() (model/walk_support.h)
  // Per [node * tensors + tensor]: its buffers' class, a dense id per (tensor, level, source
  // level, written) — a buffer is one class in one instance and partition context.
  std::vector<int> buffer_class;
  size_t buffer_classes = 0;
};

// Everything of the tree a TreeShape reads, as integers (a key of model/phase_cache.h's form):
// equal keys, equal shapes.
using ShapeKey = PhaseKey;
ShapeKey shape_key(const Dataflow& f);

// Thread-safe: a search's worker threads share one. For one arch and one workload only (the
// keys do not name them), and for trees without source locations (a placement's problems
// would point into the tree it was first worked out for; shapes whose placement throws are
// not kept). Keeps at most kMaxEntries; beyond that it starts again empty.
class ShapeCache {
 public:
  // TreeShape(a, w, f), or the one kept from a tree of the same shape.
  std::shared_ptr<const TreeShape> shape(const arch::Arch& a, const Workload& w, const Dataflow& f);
  size_t size();  // shapes kept
  // compulsory_bytes(a, w), worked out once: the same for every tree.
  const CompulsoryBytes& compulsory(const arch::Arch& a, const Workload& w);

  static constexpr size_t kMaxEntries = 4096;

 private:
  struct Hash {
    size_t operator()(const ShapeKey& k) const;
  };
  std::mutex mutex_;
  std::unordered_map<ShapeKey, std::shared_ptr<const TreeShape>, Hash> entries_;
  std::once_flag compulsory_once_;
  CompulsoryBytes compulsory_;
};

}  // namespace dfx::model
