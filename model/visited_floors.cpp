// instruction_floor() and visited_compute_floor() (model/cycles_floor.h): what the walk adds up
// from the tiles it visits — instructions, or compute — without its buffers.
#include <algorithm>

#include "model/cycles_floor.h"
#include "model/instruction_time.h"
#include "model/walk_support.h"
#include "model/walk_time.h"

namespace dfx::model {
namespace {

// The walk's visits (Walker::loops and Walker::spatial), with nothing of its buffers: a temporal
// loop's first step, then its second standing for the middle ones where the walk lets one stand
// for them (else each), then a partial last step; a spatial loop's first instance, which stands
// for its first run of instances in the walk (the run whose time the walk keeps). `Rules` says
// what a node gives by itself (`own`), what of its subtree it keeps (`tile`), how siblings and
// steps combine (`child`, `step`, `steps_done`), what a phase leaves of its value (`phase`), and
// below which nodes nothing counts (`skip_below`).
template <class Rules>
class Visits {
 public:
  using Value = typename Rules::Value;
  Visits(const arch::Arch& a, const Dataflow& f, const TreeShape& shape, Rules& rules)
      : a_(a), f_(f), shape_(shape), index_(shape.index), rules_(rules) {}

  Value visit(int node, const OpBoxes& boxes) {
    Value own = rules_.own(node, boxes);
    if (rules_.skip_below(node)) return own;
    return rules_.tile(node, own, loops(node, 0, boxes));
  }

 private:
  const arch::Arch& a_;
  const Dataflow& f_;
  const TreeShape& shape_;
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
    const bool phases = runs_in_phases(a_, f_, shape_.placement, shape_.fused, node);
    for (int c : n.children) rules_.child(n.prim, total, phases ? rules_.phase(visit(c, boxes)) : visit(c, boxes));
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
    Value total{}, first{};
    if (full >= 1) {
      BoxPool::Lease b0 = step(node, loop.dim, chunk, 0, boxes);
      first = loops(node, li + 1, *b0);
      rules_.step(total, first, 1);
      if (full >= 2) middle_steps(node, li, boxes, chunk, full, first, total);
    }
    if (full < trips) rules_.step(total, loops(node, li + 1, *step(node, loop.dim, chunk, trips - 1, boxes)), 1);
    rules_.steps_done(total, first, trips);
    return total;
  }

  // Steps 1 to full - 1 after `first`, the value of step 0.
  void middle_steps(int node, size_t li, const OpBoxes& boxes, int64_t chunk, int64_t full, const Value& first, Value& total) {
    const int dim = f_.nodes[static_cast<size_t>(node)].loops[li].dim;
    // Steps whose boxes all move alike, with no fused producer below (TileIndex::steps_alike),
    // have boxes alike below them too (a cut keeps its extent as its box moves), and what a tile
    // gives follows from its extents: the first step's value stands for the others.
    if (index_.steps_alike(node, dim, boxes, chunk, full)) return rules_.step(total, first, static_cast<double>(full - 1));
    BoxPool::Lease b1 = step(node, dim, chunk, 1, boxes);
    if (full == 2) return rules_.step(total, loops(node, li + 1, *b1), 1);
    BoxPool::Lease final = step(node, dim, chunk, full - 1, boxes);
    // As the walk: the second step for the middle ones where they move alike, else each (with
    // fused producers below, the first step's boxes may clip where the others' do not).
    if (evenly_spaced(*b1, *step(node, dim, chunk, 2, boxes), *final, full - 2))
      return rules_.step(total, loops(node, li + 1, *b1), static_cast<double>(full - 1));
    for (int64_t i = 1; i < full; ++i) rules_.step(total, loops(node, li + 1, *step(node, dim, chunk, i, boxes)), 1);
  }
};

// Machines whose units take whole instructions: the walk's Time algebra (model/walk_time.h) on
// the instruction tiles' times alone, every transfer left out, phases timed whole as the walk
// times them. With the units, their order and the phases the walk's, each operation it applies
// to a Time grows with the transfer terms (sums, maxima, and pipeline_iterations' minimum of two
// such), so the chain of instructions, each unit's busy time and the dispatcher's floor found
// here are at most the walk's, and its cycles at least each of them (Time::cycles_decoupled).
class InstructionRules {
 public:
  using Value = Time;
  InstructionRules(const arch::Arch& a, const Workload& w, const Dataflow& f) : w_(w), f_(f), times_(a, w, f) {}
  // A leaf's compute (Walker::visit_leaf), an instruction tile's instructions (visit_node).
  Time own(int node, const OpBoxes& boxes) const {
    const TreeNode& n = f_.nodes[static_cast<size_t>(node)];
    if (n.is_leaf) {
      const Op& op = w_.ops[static_cast<size_t>(n.op)];
      return Time::on_unit(op.unit, static_cast<double>(box_points(w_, n.op, boxes) * op.ops_per_point));
    }
    return times_.times(node) ? times_.time(node, boxes) : Time{};
  }
  // Below a tile that only instructions time, the walk keeps the instructions' time alone.
  bool skip_below(int node) const { return f_.nodes[static_cast<size_t>(node)].is_leaf || (times_.times(node) && times_.only(node)); }
  Time tile(int node, const Time& own, Time inner) const {
    if (times_.times(node)) inner.beside(own);
    return inner;
  }
  // A core's units take Para and Pipe children in program order too (Walker::children).
  void child(Prim, Time& total, const Time& c) const { total.then(c); }
  // The walk times a phase as a whole: everything busy for its cycles, no unit's order kept
  // (Walker::phase); they are at least the largest of its chain, busy times and dispatcher's floor.
  Time phase(const Time& t) const { return Time::exclusive(std::max({t.compute, t.unit[0], t.unit[1], t.dispatch_floor})); }
  void step(Time& total, const Time& one, double times) const { total.next_iteration(times == 1 ? one : one.times(times)); }
  void steps_done(Time& total, const Time& first, int64_t trips) const { total.pipeline_iterations(first, trips); }

 private:
  const Workload& w_;
  const Dataflow& f_;
  InstructionTimes times_;
};

// Machines scheduled by the tree: a leaf's compute by TileFlow's latency rules as the walk
// applies them — Seq and Shar children one after another, Para and Pipe children side by side,
// a tile at least as long as its children.
class ComputeRules {
 public:
  using Value = double;
  ComputeRules(const Workload& w, const Dataflow& f) : w_(w), f_(f) {}
  double own(int node, const OpBoxes& boxes) const {
    const TreeNode& n = f_.nodes[static_cast<size_t>(node)];
    if (!n.is_leaf) return 0;
    return static_cast<double>(box_points(w_, n.op, boxes) * w_.ops[static_cast<size_t>(n.op)].ops_per_point);
  }
  bool skip_below(int node) const { return f_.nodes[static_cast<size_t>(node)].is_leaf; }
  double tile(int, double, double inner) const { return inner; }
  void child(Prim p, double& total, double c) const { total = p == Prim::Seq || p == Prim::Shar ? total + c : std::max(total, c); }
  double phase(double latency) const { return latency; }  // its cycles: at least its latency
  void step(double& total, double one, double times) const { total += one * times; }
  void steps_done(double&, double, int64_t) const {}

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
  const Time t = Visits<InstructionRules>(a, f, shape, rules).visit(0, OpBoxes::whole(w));
  return std::max({t.compute, t.unit[0], t.unit[1], t.dispatch_floor}) * kBelowRounding;
}

double visited_compute_floor(const arch::Arch& a, const Workload& w, const Dataflow& f, const TreeShape& shape) {
  if (a.instruction_timed()) return 0;
  ComputeRules rules(w, f);
  return Visits<ComputeRules>(a, f, shape, rules).visit(0, OpBoxes::whole(w)) * kBelowRounding;
}

}  // namespace dfx::model
