#pragma once
// A cheap lower bound on analyze()'s cycles from compute alone, so that a search can skip the
// full analysis of a tree that cannot beat what it would be compared with.
#include "arch/arch.h"
#include "model/dataflow.h"
#include "model/workload.h"

namespace dfx::model {

// Cycles no analysis of `f` reports fewer than: the tree's compute alone, following TileFlow's
// latency rules (docs/semantics.md) — a leaf takes its points' cycles, loop steps and Seq/Shar
// children add up, Para/Pipe children take the longest of theirs, a tile's spatial instances
// split its work. Only ops certainly computed in full count: a fused producer computes what its
// consumers read, so a producer counts only when each consumer reads all of its output plainly
// (no window that clips an instance at an edge to less than the others). 0 on machines whose
// units take whole instructions (their times come from instruction shapes, not PEs).
// tests/property/oracle_test.cpp and tests/unit/cycles_floor_test.cpp check it against the
// analysis on random trees.
// Contract: `f` passed check_dataflow.
double cycles_floor(const arch::Arch& a, const Workload& w, const Dataflow& f);

// Whether op `o` certainly computes every point, its spatial instances alike: each consumer reads
// its output plainly (every index one of its dims, whole). Only those ops count in the floor.
bool computed_in_full(const Workload& w, size_t o);

}  // namespace dfx::model
