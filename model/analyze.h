#pragma once
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

}  // namespace dfx::model
