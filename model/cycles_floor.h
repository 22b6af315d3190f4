#pragma once
// Cheap lower bounds on analyze()'s cycles, so that a search can skip the full analysis of a
// tree that cannot beat what it would be compared with: from compute alone (cycles_floor, and
// visited_compute_floor where fused producers have windows), and on machines whose units take
// whole instructions from the instructions alone (instruction_floor).
#include <vector>

#include "arch/arch.h"
#include "model/dataflow.h"
#include "model/tree_shape.h"
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

// The same floor for each of `node`'s children in turn, as suffix sums: element i is the sum of
// the floors of children i+1 onwards (the last is 0). A walk that runs the root's children as
// phases, one after another, knows after phase i that the tree's cycles are at least the phases
// done plus element i (model::CyclesBar). Empty on machines whose units take whole instructions.
std::vector<double> floors_of_later_children(const arch::Arch& a, const Workload& w, const Dataflow& f, int node);

// The next two follow the walk's visits (its steps and the boxes it gives them) without its
// buffers, so they cost 5-10% of an analysis; a search asks for them once a tree is built, where
// the cheaper bound is weak (mapper::TreeScorer::visited_floor). tests/unit/cycles_floor_test.cpp and
// tests/property/oracle_test.cpp check them against the analysis.
// Contract (both): `shape` is `f`'s TreeShape. On a tree check_dataflow rejects, the value
// bounds nothing (such a tree's result is not valid: a search uses it no more than one ruled out).

// On machines whose units take whole instructions (`schedule: instruction`), cycles no analysis
// of `f` reports fewer than: the walk's time algebra (model/walk_time.h) on the instruction
// tiles' times alone, every transfer left out — the chain of a core's instructions (units that
// hand data to one another wait for each other), each unit's busy time and the dispatcher's
// floor, the largest of them. Each operation the walk applies to a time grows with its transfer
// terms, and the walk's cycles are at least each of the three (Time::cycles_decoupled). Never
// below the busiest unit's WalkResult::op_instruction_cycles. 0 on other machines.
double instruction_floor(const arch::Arch& a, const Workload& w, const Dataflow& f, const TreeShape& shape);

// On machines scheduled by the tree, the latency of `f`'s compute alone as cycles_floor() counts
// it, but with each leaf's points as the walk finds them in each step it visits: a fused
// producer's share with its windows' overlaps included, partial steps as they are. Never below
// cycles_floor() (the tests check it); far above it where fused producers have windows, whose
// work that one counts as 0. 0 on machines timed by instructions.
double visited_compute_floor(const arch::Arch& a, const Workload& w, const Dataflow& f, const TreeShape& shape);

// Whether op `o` certainly computes every point, its spatial instances alike: each consumer reads
// its output plainly (every index one of its dims, whole). Only those ops count in the floor.
bool computed_in_full(const Workload& w, size_t o);

}  // namespace dfx::model
