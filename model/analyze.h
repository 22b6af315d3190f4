#pragma once
#include <optional>

#include "arch/arch.h"
#include "model/dataflow.h"
#include "model/phase_cache.h"
#include "model/tree_shape.h"
#include "model/report.h"
#include "model/walk.h"
#include "model/workload.h"

namespace dfx::model {

// Contract: analyses one dataflow; an invalid one (capacity or PE overflow, factor larger than
// its extent, unsupported op...) returns valid=false with every reason and its location, never
// throws for those. Cost depends on the tree's shape, not on loop trip counts.
Report analyze(const arch::Arch& a, const Workload& w, const Dataflow& f);
// The same report; phases of the tree found in `phases` are not walked again, and those walked
// are kept there (model/phase_cache.h: one cache per arch and workload, trees built in code).
// `replay`: how the walk replays representative steps (model/walk.h); the report is the same.
// `held`: how the walk keeps buffers (model/walk.h); the report is the same.
// With `shapes`, what the tree's shape decides (its placement...) is looked up there, or worked
// out and kept (model/tree_shape.h: one cache per arch and workload, trees built in code).
Report analyze(const arch::Arch& a, const Workload& w, const Dataflow& f, PhaseCache* phases,
               StepReplay replay = StepReplay::Worthwhile, HeldAs held = HeldAs::Boxes, ShapeCache* shapes = nullptr);

// The same, for a caller with no use for the report of a tree whose cycles are above
// `give_up.bar`: on machines scheduled by the tree the walk stops at its first leaf when
// `give_up.floor` (a floor on the tree's compute latency: cycles_floor(), or
// visited_compute_floor()) plus the pipeline's fill is above the bar (CyclesBar, model/walk.h).
// Then there is no report, and `at_least` is that sum. Otherwise the report is analyze()'s.
struct BarredReport {
  std::optional<Report> report;
  double at_least = 0;  // without a report: the tree's cycles are at least this, above the bar
};
BarredReport analyze_below(const arch::Arch& a, const Workload& w, const Dataflow& f, CyclesBar give_up,
                           PhaseCache* phases, StepReplay replay = StepReplay::Worthwhile, HeldAs held = HeldAs::Boxes,
                           ShapeCache* shapes = nullptr);

// Why no dataflow of `w` can run on `a`, whatever its tree: an op `a` has no unit for, or whose
// vector operations its vector unit lacks (at the op's place in the workload file), or inputs
// and outputs beyond the outermost level's capacity (at that key). Empty when none holds.
// analyze() reports equivalent problems on every tree (a capacity as what the level needs).
std::vector<Problem> no_dataflow_runs(const arch::Arch& a, const Workload& w);

}  // namespace dfx::model
