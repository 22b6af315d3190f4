#pragma once
// A cheap lower bound on analyze()'s cycles from compute alone, so that a search can skip the
// full analysis of a tree that cannot beat what it would be compared with.
#include <cstdint>

#include "arch/arch.h"
#include "model/dataflow.h"
#include "model/workload.h"

namespace dfx::model {

// PEs (matrix) or lanes (vector) a subtree needs of one unit: spatial factors multiply; Seq/Shar
// children take turns (max), Para/Pipe children run at once (sum). analyze() reports it.
int64_t pes_needed(const Dataflow& f, const Workload& w, int node, arch::UnitKind kind);

// Cycles no analysis of `f` reports fewer than: per unit scheduled by the tree, the work of the
// ops it certainly computes in full over the PEs the tree spreads them on. Why it holds (for
// TileFlow's latency rules, docs/semantics.md): a leaf takes its points' cycles; loop steps and
// Seq children add up, spatial instances are alike, Para/Pipe children take the longest of
// theirs — and max_c W_c/P_c ≥ ΣW_c/ΣP_c. A fused producer computes what its consumers read,
// so producers count only when each consumer reads all of their output plainly (no window
// that clips the instance at an edge to less than the others). 0 on machines whose units take
// whole instructions (their times come from instruction shapes, not PEs).
// tests/property/oracle_test.cpp and tests/unit/cycles_floor_test.cpp check it against the
// analysis on random trees.
// Contract: `f` passed check_dataflow.
double cycles_floor(const arch::Arch& a, const Workload& w, const Dataflow& f);

}  // namespace dfx::model
