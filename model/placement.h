#pragma once
// Where each tensor lives along the tile tree: its home, and the nodes that start a buffer of it
// (owners) with the level each one fills from. Shared by the analysis and the test oracle; it
// decides structure only, no counting.
#include <vector>

#include "arch/arch.h"
#include "model/dataflow.h"
#include "model/workload.h"

namespace dfx::model {

struct TensorPlacement {
  int region = 0;             // the root for workload inputs/outputs, the LCA for intermediates
  int home = 0;               // level that holds the tensor at the region root
  std::vector<int> level;     // per node: level holding it there, -1 if the subtree never touches it
  std::vector<bool> owner;    // per node: keeps its own buffer of the tensor (fills from `source`)
  std::vector<int> source;    // per node (owners): the level data comes from and goes back to
  std::vector<bool> writes;   // per node: the subtree contains the producer
};

struct Placement {
  std::vector<TensorPlacement> tensors;
  std::vector<std::vector<bool>> ops_below;  // per node, per op
  std::vector<int> leaf_of_op;               // node index of each op's leaf
};

// Contract: throws InputError when a leaf's operand sits in a level that may not hold its role.
Placement place(const arch::Arch& a, const Workload& w, const Dataflow& f);

// Every op box of a subtree shrinks with its loops; a producer fused with its consumers only
// computes what they read. Boxes are per op, per dimension, half-open [lo, hi).
using Range = std::pair<int64_t, int64_t>;
using OpBoxes = std::vector<std::vector<Range>>;

}  // namespace dfx::model
