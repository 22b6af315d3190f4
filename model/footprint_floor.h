#pragma once
// A cheap lower bound on what analyze() reports as each level's peak footprint, so that a search
// can drop trees that cannot fit before paying for the full analysis.
#include <cstdint>
#include <vector>

#include "arch/arch.h"
#include "model/dataflow.h"
#include "model/workload.h"

namespace dfx::model {

// Per level, bytes per instance that the level certainly holds at some moment: the buffers each
// tile fills on its first step, together (one descent through the tree, no walk), and at the
// outermost level the workload's inputs and outputs, there all along. Never above
// analyze()'s peak_bytes for that level (tests/unit/footprint_floor_test.cpp checks it against the
// full analysis on random trees).
// Contract: `f` passed check_dataflow; throws InputError where place() does.
std::vector<int64_t> footprint_floor(const arch::Arch& a, const Workload& w, const Dataflow& f);

}  // namespace dfx::model
