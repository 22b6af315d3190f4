#pragma once
// Restricting the ops' boxes to a loop's step below a tile (restrict_and_project, walk_ranges.cpp,
// the plain definition) on an index built once per tree: the walk, the closed form and the
// mapper's group tiles restrict boxes at every loop step they visit.
#include <cstdint>
#include <vector>

#include "model/dataflow.h"
#include "model/placement.h"
#include "model/workload.h"

namespace dfx::model {

// What restricting boxes needs per tile, computed once per tree: the ops below that use each
// dimension, and the producers below whose consumers are below too (consumers first).
class TileIndex {
 public:
  // Per node, the ops below it (Placement::ops_below); or any sets of ops, "nodes" numbered by
  // their place in `below` (the mapper's group tiles, one per run of ops).
  TileIndex(const Workload& w, const OpsBelow& below);
  // restrict_and_project (walk_ranges.cpp) on the index: the same semantics, which the property
  // test checks, since the oracle uses the plain one.
  void restrict(int node, int dim, int64_t lo, int64_t hi, OpBoxes& boxes) const;
  // The same where `boxes` came out of a restrict() (or restrict_projected()) at `node`: a fixed
  // point of its projection, so only the fed axes the cut reaches are worked out again — those
  // reading a range it changed, or writing one, directly or through an axis before them (a loop
  // over rows leaves a fused producer's columns as they were).
  void restrict_projected(int node, int dim, int64_t lo, int64_t hi, OpBoxes& boxes) const;
  // The extent of `dim` for the ops below `node` (the first op using it), or -1.
  int64_t extent(int node, int dim, const OpBoxes& boxes) const;
  // True when steps 0 to `full` - 1 of a loop at `node` over `dim` cutting `chunk`s move every
  // box alike, as evenly_spaced() would find on the built boxes, and that follows from `boxes`
  // alone: below a tile without fused ops a step only cuts each op's own range, alike while
  // every range holds `full` chunks. False means only: not known without building the boxes.
  bool steps_alike(int node, int dim, const OpBoxes& boxes, int64_t chunk, int64_t full) const;

 private:
  // A fused producer below a node: each axis of its output (axes_[from, to)) cut to what its
  // consumers below read there. Flattened once per tree so that a restriction, which the walk and
  // the closed form make at every loop step, reads a few arrays instead of the workload's lists.
  struct Feed {
    uint32_t from, to;
  };
  // An axis of a producer's output: its range in the flat boxes (op * dims + dim), and the
  // consumers' index expressions that read it, reads_[from, to); or, where each is plainly one
  // dim (`plain`: the template's trees), the consumers' ranges read, plain_[from, to).
  struct FedAxis {
    uint32_t out;
    uint32_t from, to;
    bool plain;
  };
  // One read of a fed axis: offset + sum of coef * (a consumer's range), terms_[from, to).
  struct AxisRead {
    int64_t offset;
    uint32_t from, to;
  };
  struct ReadTerm {
    uint32_t at;  // the consumer's range in the flat boxes
    int64_t coef;
  };
  // The ops below a node that use a dim, for every (node, dim) in one array: built for every tree
  // a search analyses, where one vector per pair cost ~40 allocations a tree.
  struct Users {
    const int* from;
    const int* to;
    const int* begin() const { return from; }
    const int* end() const { return to; }
    bool empty() const { return from == to; }
  };
  Users ops_using(int node, int dim) const {
    const size_t k = static_cast<size_t>(node) * dims_ + static_cast<size_t>(dim);
    return {users_.data() + users_at_[k], users_.data() + users_at_[k + 1]};
  }
  const Workload& w_;
  size_t dims_ = 0;
  std::vector<int> users_;
  std::vector<uint32_t> users_at_;  // [node * dims + dim]: where its ops start in users_
  std::vector<Feed> feeds_;
  std::vector<uint32_t> feeds_at_;  // [node]: where its feeds start in feeds_
  std::vector<FedAxis> axes_;
  std::vector<AxisRead> reads_;
  std::vector<ReadTerm> terms_;
  std::vector<uint32_t> plain_;
  // Per (node, dim): the fed axes a cut over dim reaches, reached_[reached_at_[k], reached_at_[k + 1]).
  std::vector<uint32_t> reached_, reached_at_;
  void cut_users(int node, int dim, int64_t lo, int64_t hi, OpBoxes& boxes) const;
  void cut_axis(const FedAxis& axis, Range* flat) const;  // to the hull of what its consumers read
  void note_reached(size_t nodes);
};

}  // namespace dfx::model
