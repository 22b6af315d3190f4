#pragma once
// How long the instructions of a tile take on units that take whole instructions (`schedule:
// instruction`, docs/semantics.md "Latency"). Internal to model/ (the fast walk uses it).
#include <vector>

#include "arch/arch.h"
#include "model/dataflow.h"
#include "model/walk_support.h"
#include "model/walk_time.h"
#include "model/workload.h"

namespace dfx::model {

class InstructionTimes {
 public:
  // An operator's instruction tile is its deepest ancestor in a level a program addresses; on a
  // unit that takes instructions whole each visit of it is timed from the tile's shape, fill and
  // drain included. Units scheduled by the tree stream through their PEs with no cost per
  // instruction (TileFlow's assumption, and what its RTL measurements show).
  InstructionTimes(const arch::Arch& a, const Workload& w, const Dataflow& f);

  // Whether the machine's units take whole instructions from in-order queues.
  bool decoupled() const { return decoupled_; }
  // Whether `node` is the instruction tile of operators timed here, and of no other.
  bool times(int node) const { return !ops_[static_cast<size_t>(node)].empty(); }
  bool only(int node) const { return only_[static_cast<size_t>(node)]; }
  // One visit of the tile with these boxes: per matrix operator its mmas, per vector operator its
  // vec ops (matrix_blocking.h), one after another. With `per_op`, each op's cycles times
  // `repeat` are added to its entry.
  Time time(int node, const OpBoxes& boxes, std::vector<double>* per_op = nullptr, double repeat = 1) const;

 private:
  const arch::Arch& a_;
  const Workload& w_;
  const Dataflow& f_;
  bool decoupled_ = false;
  std::vector<std::vector<int>> ops_;  // [node]: the ops whose instruction tile it is, timed here
  std::vector<bool> only_;             // [node]: no op timed by the tree has it as instruction tile
  // A walk times a tile once per step, mostly with the blocks of its last visit (two of three
  // visits on ViT / ascend_like): the last timing per node, by its ops' blocks (the extents of
  // their boxes), with each op's cycles.
  struct Last {
    std::vector<int64_t> blocks;
    Time time;
    std::vector<double> cycles;  // per op of ops_[node], in order
  };
  mutable std::vector<Last> last_;
  void block_of(int op, const OpBoxes& boxes, std::vector<int64_t>& block) const;
  Time time_anew(int node, const OpBoxes& boxes, std::vector<double>& cycles) const;
};

}  // namespace dfx::model
