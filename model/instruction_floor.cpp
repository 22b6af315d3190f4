// instruction_floor(): the instructions a walk times, without the walk (model/cycles_floor.h).
#include <algorithm>
#include <vector>

#include "model/cycles_floor.h"
#include "model/instruction_time.h"
#include "model/walk_support.h"

namespace dfx::model {
namespace {

// The walk's visits of instruction tiles (Walker::loops and Walker::spatial), with nothing of
// its buffers: a temporal loop's first step, then its second standing for the middle ones where
// the walk lets one stand for them (else each) — or the first for all where every step moves
// the boxes alike —, and a partial last step; a spatial loop's first instance, which stands for
// its first run of instances in the walk (the run whose time the walk keeps). Every visit of an
// instruction tile adds its ops' cycles, times the steps it stands for, as Walker::visit_node
// does.
class InstructionVisits {
 public:
  InstructionVisits(const arch::Arch& a, const Workload& w, const Dataflow& f, const TileIndex& index)
      : w_(w), f_(f), index_(index), times_(a, w, f), timed_below_(f.nodes.size(), 0), per_op_(w.ops.size(), 0) {
    // Children come after their parent: bottom-up, whether a subtree holds an instruction tile.
    for (size_t i = f.nodes.size(); i-- > 0;) {
      timed_below_[i] = times_.times(static_cast<int>(i));
      for (int c : f.nodes[i].children) timed_below_[i] |= timed_below_[static_cast<size_t>(c)];
    }
  }

  // Per op: the cycles of its instructions on one instance, as WalkResult::op_instruction_cycles.
  const std::vector<double>& per_op() {
    visit(0, OpBoxes::whole(w_), 1);
    return per_op_;
  }

 private:
  const Workload& w_;
  const Dataflow& f_;
  const TileIndex& index_;
  InstructionTimes times_;
  std::vector<char> timed_below_;  // per node: an instruction tile in its subtree
  std::vector<double> per_op_;

  void visit(int node, const OpBoxes& boxes, double repeat) {
    if (times_.times(node)) times_.time(node, boxes, &per_op_, repeat);
    // The node's loops matter only to instruction tiles below it (none, mostly: an op's
    // instruction tile is its deepest tile).
    for (int c : f_.nodes[static_cast<size_t>(node)].children)
      if (timed_below_[static_cast<size_t>(c)]) return loops(node, 0, boxes, repeat);
  }

  BoxPool pool_;  // the steps' boxes, their storage kept

  BoxPool::Lease step(int node, int dim, int64_t chunk, int64_t i, const OpBoxes& boxes) {
    BoxPool::Lease b(pool_, boxes);
    index_.restrict(node, dim, i * chunk, i * chunk + chunk, *b);
    return b;
  }

  void loops(int node, size_t li, const OpBoxes& boxes, double repeat) {
    const TreeNode& n = f_.nodes[static_cast<size_t>(node)];
    if (li == n.loops.size()) {
      for (int c : n.children)
        if (timed_below_[static_cast<size_t>(c)]) visit(c, boxes, repeat);
      return;
    }
    const Loop& loop = n.loops[li];
    const int64_t extent = index_.extent(node, loop.dim, boxes);
    if (extent <= 0) return loops(node, li + 1, boxes, repeat);
    // A factor above the extent steps one element at a time (in a partial tile; in a full one
    // the walk reports a problem, and the tree's result is not valid).
    const auto [chunk, trips, last] = cut(extent, loop.factor);
    if (loop.spatial) return loops(node, li + 1, *step(node, loop.dim, chunk, 0, boxes), repeat);
    const int64_t full = last == chunk ? trips : trips - 1;
    if (full < trips) loops(node, li + 1, *step(node, loop.dim, chunk, trips - 1, boxes), repeat);  // the partial step
    if (full < 1) return;
    BoxPool::Lease first = step(node, loop.dim, chunk, 0, boxes);
    if (full == 1) return loops(node, li + 1, *first, repeat);
    // Steps whose boxes all move alike have blocks alike below them too (a cut keeps its extent
    // as its box moves, and so do the ranges fused producers take from it), and a block's time
    // is its extents': the first step stands for every full one.
    if (index_.steps_alike(node, loop.dim, boxes, chunk, full))
      return loops(node, li + 1, *first, repeat * static_cast<double>(full));
    BoxPool::Lease second = step(node, loop.dim, chunk, 1, boxes);
    if (full == 2) {
      loops(node, li + 1, *first, repeat);
      return loops(node, li + 1, *second, repeat);
    }
    BoxPool::Lease final = step(node, loop.dim, chunk, full - 1, boxes);
    if (evenly_spaced(*first, *second, *final, full - 1)) return loops(node, li + 1, *first, repeat * static_cast<double>(full));
    // As the walk: the first step, then the second for the middle ones where they move alike.
    loops(node, li + 1, *first, repeat);
    if (evenly_spaced(*second, *step(node, loop.dim, chunk, 2, boxes), *final, full - 2))
      return loops(node, li + 1, *second, repeat * static_cast<double>(full - 1));
    for (int64_t i = 1; i < full; ++i) loops(node, li + 1, *step(node, loop.dim, chunk, i, boxes), repeat);
  }
};

}  // namespace

double instruction_floor(const arch::Arch& a, const Workload& w, const Dataflow& f, const TreeShape& shape) {
  if (!a.instruction_timed()) return 0;
  InstructionVisits visits(a, w, f, shape.index);
  const std::vector<double>& per_op = visits.per_op();
  double busy[2] = {0, 0};
  for (size_t o = 0; o < w.ops.size(); ++o) busy[static_cast<int>(w.ops[o].unit)] += per_op[o];
  // The walk adds the same cycles in another order: a hair below them, whatever the rounding.
  return std::max(busy[0], busy[1]) * (1 - 1e-9);
}

}  // namespace dfx::model
