#pragma once
// The executable definition of dfx's analysis semantics: a brute-force walk over every time step
// of a tile tree on small problems, keeping the exact set of resident elements of every buffer
// instance. model::analyze must equal it on every traffic count.
#include "arch/arch.h"
#include "model/dataflow.h"
#include "model/walk.h"
#include "model/workload.h"

namespace dfx::oracle {

// Contract: same shape of result as model::walk_tree (traffic, peaks, MACs, problems; cycles 0).
model::WalkResult brute_force(const arch::Arch& a, const model::Workload& w,
                              const model::Dataflow& f);

}  // namespace dfx::oracle
