// instruction_floor() and visited_compute_floor() (model/cycles_floor.h): what the walk adds up
// from the tiles it visits — instructions, or compute — without its buffers.
#include <algorithm>
#include <array>
#include <vector>

#include "model/cycles_floor.h"
#include "model/instruction_time.h"
#include "model/walk_support.h"

namespace dfx::model {
namespace {

// The walk's visits (Walker::loops and Walker::spatial), with nothing of its buffers: a temporal
// loop's first step, then its second standing for the middle ones where the walk lets one stand
// for them (else each) — or the first for all where every step moves the boxes alike —, and a
// partial last step; a spatial loop's first instance, which stands for its first run of
// instances in the walk (the run whose time the walk keeps). `Rules` says what a node adds by
// itself (`own`), how siblings combine (`children`), and which subtrees add nothing (`empty`).
template <class Rules>
class Visits {
 public:
  using Value = typename Rules::Value;
  Visits(const Dataflow& f, const TileIndex& index, Rules& rules) : f_(f), index_(index), rules_(rules) {}

  Value visit(int node, const OpBoxes& boxes) {
    Value v = rules_.own(node, boxes);
    const TreeNode& n = f_.nodes[static_cast<size_t>(node)];
    // The node's loops matter only to what its children add.
    if (std::all_of(n.children.begin(), n.children.end(), [&](int c) { return rules_.empty(c); })) return v;
    return v + loops(node, 0, boxes);
  }

 private:
  const Dataflow& f_;
  const TileIndex& index_;
  Rules& rules_;
  BoxPool pool_;  // the steps' boxes, their storage kept

  BoxPool::Lease step(int node, int dim, int64_t chunk, int64_t i, const OpBoxes& boxes) {
    BoxPool::Lease b(pool_, boxes);
    index_.restrict(node, dim, i * chunk, i * chunk + chunk, *b);
    return b;
  }

  Value children(int node, const OpBoxes& boxes) {
    const TreeNode& n = f_.nodes[static_cast<size_t>(node)];
    Value total{};
    for (int c : n.children)
      if (!rules_.empty(c)) rules_.children(n.prim, total, visit(c, boxes));
    return total;
  }

  Value loops(int node, size_t li, const OpBoxes& boxes) {
    const TreeNode& n = f_.nodes[static_cast<size_t>(node)];
    if (li == n.loops.size()) return children(node, boxes);
    const Loop& loop = n.loops[li];
    const int64_t extent = index_.extent(node, loop.dim, boxes);
    if (extent <= 0) return loops(node, li + 1, boxes);
    // A factor above the extent steps one element at a time (in a partial tile; in a full one
    // the walk reports a problem, and the tree's result is not valid).
    const auto [chunk, trips, last] = cut(extent, loop.factor);
    if (loop.spatial) return loops(node, li + 1, *step(node, loop.dim, chunk, 0, boxes));
    const int64_t full = last == chunk ? trips : trips - 1;
    Value total{};
    if (full < trips) total = loops(node, li + 1, *step(node, loop.dim, chunk, trips - 1, boxes));  // the partial step
    if (full < 1) return total;
    BoxPool::Lease first = step(node, loop.dim, chunk, 0, boxes);
    if (full == 1) return total + loops(node, li + 1, *first);
    // Steps whose boxes all move alike have boxes alike below them too (a cut keeps its extent
    // as its box moves, and so do the ranges fused producers take from it), and what a tile
    // adds follows from its extents: the first step stands for every full one.
    if (index_.steps_alike(node, loop.dim, boxes, chunk, full)) return total + loops(node, li + 1, *first) * static_cast<double>(full);
    BoxPool::Lease second = step(node, loop.dim, chunk, 1, boxes);
    if (full == 2) return total + loops(node, li + 1, *first) + loops(node, li + 1, *second);
    BoxPool::Lease final = step(node, loop.dim, chunk, full - 1, boxes);
    if (evenly_spaced(*first, *second, *final, full - 1)) return total + loops(node, li + 1, *first) * static_cast<double>(full);
    // As the walk: the first step, then the second for the middle ones where they move alike.
    total = total + loops(node, li + 1, *first);
    if (evenly_spaced(*second, *step(node, loop.dim, chunk, 2, boxes), *final, full - 2))
      return total + loops(node, li + 1, *second) * static_cast<double>(full - 1);
    for (int64_t i = 1; i < full; ++i) total = total + loops(node, li + 1, *step(node, loop.dim, chunk, i, boxes));
    return total;
  }
};

// Per unit kind: its instructions' cycles. A core's units take them in program order, Para and
// Pipe children included (Walker::children): siblings add up.
struct Busy {
  std::array<double, 2> unit{0, 0};
  Busy operator+(const Busy& o) const { return {{unit[0] + o.unit[0], unit[1] + o.unit[1]}}; }
  Busy operator*(double n) const { return {{unit[0] * n, unit[1] * n}}; }
};

class InstructionRules {
 public:
  using Value = Busy;
  InstructionRules(const arch::Arch& a, const Workload& w, const Dataflow& f) : times_(a, w, f), timed_below_(f.nodes.size(), 0) {
    // Children come after their parent: bottom-up, whether a subtree holds an instruction tile.
    for (size_t i = f.nodes.size(); i-- > 0;) {
      timed_below_[i] = times_.times(static_cast<int>(i));
      for (int c : f.nodes[i].children) timed_below_[i] |= timed_below_[static_cast<size_t>(c)];
    }
  }
  // An instruction tile's ops, timed from their blocks as Walker::visit_node times them.
  Busy own(int node, const OpBoxes& boxes) const {
    if (!times_.times(node)) return {};
    const Time t = times_.time(node, boxes);
    return {{t.unit[0], t.unit[1]}};
  }
  bool empty(int node) const { return !timed_below_[static_cast<size_t>(node)]; }
  void children(Prim, Busy& total, const Busy& child) const { total = total + child; }

 private:
  InstructionTimes times_;
  std::vector<char> timed_below_;  // per node: an instruction tile in its subtree
};

// A leaf's compute, by TileFlow's latency rules as the walk applies them on machines scheduled
// by the tree: Seq and Shar children one after another, Para and Pipe children side by side.
struct Latency {
  double cycles = 0;
  Latency operator+(const Latency& o) const { return {cycles + o.cycles}; }
  Latency operator*(double n) const { return {cycles * n}; }
};

class ComputeRules {
 public:
  using Value = Latency;
  ComputeRules(const Workload& w, const Dataflow& f) : w_(w), f_(f) {}
  Latency own(int node, const OpBoxes& boxes) const {
    const TreeNode& n = f_.nodes[static_cast<size_t>(node)];
    if (!n.is_leaf) return {};
    const Op& op = w_.ops[static_cast<size_t>(n.op)];
    double points = static_cast<double>(op.ops_per_point);
    for (int d : op.dims) {
      const Range& r = boxes[static_cast<size_t>(n.op)][static_cast<size_t>(d)];
      points *= static_cast<double>(r.second - r.first);
    }
    return {points};
  }
  bool empty(int) const { return false; }
  void children(Prim p, Latency& total, const Latency& child) const {
    total.cycles = p == Prim::Seq || p == Prim::Shar ? total.cycles + child.cycles : std::max(total.cycles, child.cycles);
  }

 private:
  const Workload& w_;
  const Dataflow& f_;
};

// The walk adds the same terms in another order: a hair below them, whatever the rounding.
constexpr double kBelowRounding = 1 - 1e-9;

}  // namespace

double instruction_floor(const arch::Arch& a, const Workload& w, const Dataflow& f, const TreeShape& shape) {
  if (!a.instruction_timed()) return 0;
  InstructionRules rules(a, w, f);
  const Busy busy = Visits<InstructionRules>(f, shape.index, rules).visit(0, OpBoxes::whole(w));
  return std::max(busy.unit[0], busy.unit[1]) * kBelowRounding;
}

double visited_compute_floor(const arch::Arch& a, const Workload& w, const Dataflow& f, const TreeShape& shape) {
  if (a.instruction_timed()) return 0;
  ComputeRules rules(w, f);
  return Visits<ComputeRules>(f, shape.index, rules).visit(0, OpBoxes::whole(w)).cycles * kBelowRounding;
}

}  // namespace dfx::model
