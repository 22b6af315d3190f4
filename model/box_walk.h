#pragma once
// The box walk: the walk of model/walk.cpp for the trees where every buffer holds a union of a
// few boxes, with each buffer's contents kept as boxes (per tensor dimension one interval) rather
// than as general sets, its streams and occupancies in flat tables, and no step recordings. It
// gives walk_tree()'s result to the bit, or nothing: at the first thing it leaves to the walk (a
// loop whose last step is partial, a spatial loop whose instances are not all alike, a problem to
// report) it stops, and walk_tree() walks the tree. Internal to model/.
#include <optional>

#include "arch/arch.h"
#include "model/dataflow.h"
#include "model/phase_cache.h"
#include "model/placement.h"
#include "model/walk.h"
#include "model/workload.h"

namespace dfx::model {

// Whether the box walk can cover trees of `a` and `w` at all: units the tree times (no
// `schedule: instruction`), and every access an interval per index (each index a sum of distinct
// dims with coefficient 1, or a constant) of at most kMaxBoxRank dimensions.
bool box_walk_applies(const arch::Arch& a, const Workload& w);

// walk_tree(a, w, f, p, phases)'s result, or nullopt where the tree needs the walk.
// Contract: box_walk_applies(a, w).
std::optional<WalkResult> box_walk(const arch::Arch& a, const Workload& w, const Dataflow& f, const Placement& p,
                                   PhaseCache* phases);

constexpr int kMaxBoxRank = 6;

}  // namespace dfx::model
