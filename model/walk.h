#pragma once
// The fast tree walk behind analyze(): it visits each loop's first iteration, one representative
// of the identical middle ones (weighted, with buffer contents translated), and a partial last
// one, so its cost follows the tree's shape, not the trip counts. Internal to model/.
#include <cmath>
#include <optional>
#include <vector>

#include "arch/arch.h"
#include "model/dataflow.h"
#include "model/placement.h"
#include "model/report.h"
#include "model/workload.h"

namespace dfx::model {

struct WalkResult {
  std::vector<std::vector<Traffic>> traffic;      // [level][tensor]
  std::vector<std::vector<int64_t>> peak_elems;   // [level][tensor], per instance
  std::vector<int64_t> level_peak_elems;          // [level], per instance, all tensors together
  int64_t macs = 0;
  int64_t vector_ops = 0;
  std::vector<int64_t> op_work;                   // [op]: its MACs or vector operations
  // [op]: the latency of the op's own tiles (the subtree below the last tile it shares with
  // other ops: its transfers there and its compute) summed over all their visits, as the walk
  // times them. In a Pipe, the time of its stage.
  std::vector<double> op_cycles;
  // [op]: on units that take whole instructions, the cycles its instructions take on one
  // instance of its unit over all visits (counted as op_cycles is); 0 on units the tree times.
  std::vector<double> op_instruction_cycles;
  // [level]: of the traffic at a level, the reads and the updates of transfers to and from
  // levels inside it that no program addresses (per-PE registers): what an instruction moves
  // through its unit itself (a systolic array's operands and results), not a transfer's work.
  std::vector<int64_t> feed_reads, feed_updates;
  double cycles = 0;
  std::vector<Problem> problems;
  int64_t replayed_steps = 0;  // representative steps replayed rather than walked (model/walk_replay.h)
  int64_t nests_counted = 0;   // visits of an op's own tiles counted in closed form (model/walk_nest.cpp)
  // The instance scan (model/walk_scan.h) missed a count a spatial loop ran: the tree was walked
  // again with the counts the first walk met (the same result, at twice the cost).
  bool classes_missed = false;
  // The walk gave up at its first leaf (CyclesBar): the tree's cycles are at least `at_least`,
  // above the bar, and nothing else here means anything.
  bool gave_up = false;
  double at_least = 0;
};

// A walk's result with nothing counted yet, sized for the arch and the workload.
WalkResult empty_walk_result(const arch::Arch& a, const Workload& w);
// Hands a result this thread is done with back to empty_walk_result, which reuses its lists'
// storage (a search analyses thousands of trees a second).
void recycle_walk_result(WalkResult&& r);
// Adds what a phase counted to a walk's result: traffic, work and ops' cycles summed, peaks as
// maxima (a phase's on-chip peaks are its own). Not its problems, nor its cycles.
void add_phase_counts(WalkResult& into, const WalkResult& phase);

// arch::Arch::staging_levels, worked out once per pair of levels (asked on every activation).
class StagingLevels {
 public:
  const std::vector<int>& between(const arch::Arch& a, int from, int to);

 private:
  std::vector<std::optional<std::vector<int>>> known_;
};
// The source side of a transfer: `n` elements (weighted, instances merged) read from the source
// level, or written back to it, and written and read once more at every level it is staged
// through; a level no program addresses feeds its unit (WalkResult::feed_reads).
// Inline: the walk and the closed form charge every transfer they count.
inline void charge_source(WalkResult& r, const arch::Arch& a, StagingLevels& staging, int tensor, int source, int level, bool write, int64_t n) {
  auto& src = r.traffic[static_cast<size_t>(source)][static_cast<size_t>(tensor)];
  (write ? src.update : src.read) += n;
  if (!a.addressable(level)) (write ? r.feed_updates : r.feed_reads)[static_cast<size_t>(source)] += n;
  for (int via : staging.between(a, source, level)) {
    auto& mid = r.traffic[static_cast<size_t>(via)][static_cast<size_t>(tensor)];
    mid.update += n;
    mid.read += n;
  }
}

// A leaf's work and its operands' accesses for `points` points at `weight`: its op's MACs or
// vector operations, reads of its inputs and updates of its output where the tree puts them.
void add_leaf_counts(WalkResult& r, const Workload& w, const Dataflow& f, const Placement& p, int leaf, int64_t points, int64_t weight);

// What one phase adds to a walk (model/phase_cache.h): its traffic, its peaks (on chip it
// starts empty, and DRAM's it leaves alone), its work, its cycles and its problems.
struct PhaseResult {
  WalkResult walk;
  bool computed = false;  // a leaf ran
};

class PhaseCache;

// With `phases`, the phases of a tree whose root hands data between its children through DRAM
// are looked up there and kept (model/phase_cache.h); the result is the same.
// Representative steps under an enclosing loop's later steps replay their first walk
// (model/walk_replay.h) instead of walking again: where loops step below them (Worthwhile), at
// every loop (All: tests, to exercise it on small trees), or never (Off: tests compare).
enum class StepReplay { Off, Worthwhile, All };
// How the walk keeps what buffers hold (model/held.h): as a few boxes where every access of the
// workload is an interval, else as general sets (Boxes: the same result to the bit, faster); or
// as general sets always (Sets: tests compare the two).
enum class HeldAs { Boxes, Sets };
// A search has no use for a tree's result once its cycles are certainly above what it would be
// compared with. On machines scheduled by the tree a tree's cycles are its latency plus its
// pipeline's fill and drain (the loads before the first leaf runs, the last store), and its
// latency is at least its compute (`floor`: model::cycles_floor, or a sharper floor of the same
// compute). The fill is known once the walk reaches its first leaf, a small part of the walk: if
// `floor` plus the fill is above `bar`, walk_tree() gives up there (WalkResult::gave_up).
struct CyclesBar {
  double floor = 0;
  double bar = INFINITY;  // INFINITY: never give up
};
WalkResult walk_tree(const arch::Arch& a, const Workload& w, const Dataflow& f, const Placement& p,
                     PhaseCache* phases = nullptr, StepReplay replay = StepReplay::Worthwhile,
                     HeldAs held = HeldAs::Boxes);
// The mapper's template trees may be answered by a closed form of their groups instead of walked
// (model/template_eval.h: the same result to the bit, where it models the tree); with Walk, and
// with sets or without replay, they are always walked (tests compare the two).
enum class ClosedForm { Use, Walk };
// The same, with the tables the tree's shape decides made already (model/tree_shape.h).
struct TreeShape;
WalkResult walk_tree(const arch::Arch& a, const Workload& w, const Dataflow& f, const TreeShape& shape,
                     PhaseCache* phases = nullptr, StepReplay replay = StepReplay::Worthwhile,
                     HeldAs held = HeldAs::Boxes, CyclesBar give_up = {}, ClosedForm closed = ClosedForm::Use);

// Restricts the boxes of the ops below `node` on dimension d to [lo, hi) relative to their current
// start, then shrinks fused producers to what their consumers below `node` read. Shared by the
// analysis and the oracle: it is the definition of which points a sub-tile computes.
void restrict_and_project(const Workload& w, const OpSet& ops_below, int dim,
                          int64_t lo, int64_t hi, OpBoxes& boxes);
// The extent of dimension d seen by the ops below a node (first op using it), or -1.
int64_t extent_below(const Workload& w, const OpSet& ops_below, int dim,
                     const OpBoxes& boxes);

}  // namespace dfx::model
