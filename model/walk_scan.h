#pragma once
// Instance classes: before a subtree is walked, how many instances each of its spatial loops runs
// in each step (a partial tile above one runs fewer), so that the walks can take a loop whose
// count changes in runs of alike instances from its first step on. Internal to model/.
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "model/walk_support.h"

namespace dfx::model {

// Per (node, loop index) of a spatial loop that runs different numbers of instances in different
// steps: those numbers, ascending.
using InstanceCounts = std::map<std::pair<int, size_t>, std::vector<int64_t>>;

// Per node: whether a node below it owns a buffer. A spatial loop with none below walks its
// instances as one run however many run in a step: runs of them would differ in work alone.
std::vector<char> owners_below(const Workload& w, const Dataflow& f, const Placement& p);

// What InstanceScan needs of the workload alone (kept with a tree's shape, model/tree_shape.h):
// whether every access is a plain dim, the dims a fused read ties together, position by position
// (one class each, as bit masks; empty past 64 dims), and the dims windows and strides make
// irregular — those in an index that is not a plain dim, and every dim tied to one.
struct ScanBasis {
  bool plain = false;
  std::vector<uint64_t> tied;
  uint64_t irregular = 0;
};
ScanBasis scan_basis(const Workload& w);

class InstanceScan {
 public:
  // `buffers_below`: owners_below(); `basis`: scan_basis() (both kept with the tree's shape,
  // model/tree_shape.h).
  InstanceScan(const Workload& w, const Dataflow& f, const TileIndex& index, const std::vector<char>& buffers_below,
               const ScanBasis& basis);
  // owners_below(), per node.
  bool buffers_below(int node) const { return buffers_below_[static_cast<size_t>(node)]; }
  // Adds what `node`'s subtree runs, from `boxes`, to `found`; false when nothing below can
  // change its count (no scan needed).
  bool scan(int node, const OpBoxes& boxes, InstanceCounts& found);

 private:
  const Workload& w_;
  const Dataflow& f_;
  const TileIndex& index_;
  BoxPool& pool_ = walk_kept<BoxPool>();  // the thread's, shared with its walk (every lease is back when a walk ends)
  const std::vector<char>& buffers_below_;
  const ScanBasis& basis_;
  bool plain_ = false;         // every access a plain dim (ScanBasis)
  std::vector<char> to_scan_;  // per node: its subtree may need a scan (subtrees_to_scan)
  std::vector<char> subtrees_to_scan() const;
  // Per node: the dims tied to those its subtree's spatial loops run over (ScanBasis::tied;
  // empty past 64 dims). A loop over none of them steps nothing a count below follows.
  std::vector<uint64_t> spread_below_;
  void note_spreads();
  uint64_t spread_after(int node, size_t li) const;
  void loops(int node, size_t li, OpBoxes& boxes, InstanceCounts& found);
};

}  // namespace dfx::model
