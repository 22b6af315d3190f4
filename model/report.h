#pragma once
// What the analysis of one dataflow says: validity, cycles, energy, traffic per level and tensor.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "arch/errors.h"

namespace dfx::model {

struct Traffic {
  int64_t fill = 0;    // elements written into the level from its parent
  int64_t read = 0;    // elements read out of the level (to a child level or the PEs)
  int64_t update = 0;  // elements written into the level from below (results, partial sums)
  bool operator==(const Traffic& o) const {
    return fill == o.fill && read == o.read && update == o.update;
  }
};

struct TensorLevelReport {
  std::string tensor;
  Traffic traffic;
  int64_t peak_elems = 0;
};

struct LevelReport {
  std::string name;
  double capacity_bytes = -1;  // per instance; negative = unlimited
  int64_t instances = 1;
  int64_t word_bytes = 2;
  int64_t peak_bytes = 0;      // per instance
  Traffic traffic;
  double energy_pj = 0;
  double busy_cycles = 0;      // traffic / bandwidth over all instances; the leaves' own accesses left out (analyze.cpp)
  // Of `traffic`, the units' own accesses: the operands the ops read here and the results they
  // write here (a leaf's reads and updates), and the reads and write-backs of per-PE registers
  // inside this level (what a systolic array moves itself); the rest moves over the arch's paths.
  int64_t unit_reads = 0, unit_updates = 0;
  std::vector<TensorLevelReport> tensors;
};

// One operator: its work and how widely it is spread. Its compute alone, every instance busy
// and nothing else in the way, takes compute_cycles; in a Pipe or Para the slowest of its stages
// by this measure paces the group unless transfers do.
struct OpReport {
  std::string name;
  std::string unit;           // "matrix" or "vector"
  int64_t work = 0;           // MACs or vector operations, recomputed halos included
  int64_t instances = 1;      // the spatial factors above its leaf multiplied (cores included)
  // work / instances; on units that take whole instructions, their instructions' cycles on one
  // instance (the shapes decide: a row of 197 on 128 lanes takes two passes)
  double compute_cycles = 0;
  // Its own tiles' latency (WalkResult::op_cycles: below the last tile it shares with other ops,
  // its transfers there and its compute, over all their visits): well above compute_cycles when
  // its transfers pace it. Not given on archs whose units take whole instructions from queues
  // (schedule: instruction), whose cycles the tree's latencies do not make.
  std::optional<double> own_cycles;
};

struct Report {
  bool valid = true;
  std::string reason;            // first problem, one line
  std::vector<Problem> problems; // every problem found, with locations
  double cycles = 0;
  // The tree's latency (TileFlow's rule with the pipeline's fill and drain, or the decoupled
  // queues' cycles on archs whose units take whole instructions); `cycles` is that or, if
  // longer, the busiest level's busy_cycles (docs/semantics.md, "Latency").
  double latency_cycles = 0;
  double energy_pj = 0;
  int64_t macs = 0;              // matrix-unit multiply-accumulates
  int64_t vector_ops = 0;        // vector-unit operations
  double utilization = 0;        // of the matrix unit (vector unit if there is none)
  std::string bottleneck;        // "compute" or "<level> bandwidth"
  // How long the bottleneck is busy: the busiest resource. Well below `cycles` the dataflow waits
  // on its own dependencies (units and transfers taking turns), not on one resource.
  double bottleneck_cycles = 0;
  double roofline_cycles = 0;
  int64_t matrix_pes_used = 0;
  int64_t vector_lanes_used = 0;
  int64_t dram_bytes = 0;        // bytes read from and written to the outermost level
  std::vector<LevelReport> levels;
  std::vector<OpReport> ops;     // in the workload's order
};

// What an op's stage takes: its own cycles where the report has them (transfers included),
// else its compute alone.
inline double stage_cycles(const OpReport& o) { return o.own_cycles.value_or(o.compute_cycles); }

// The most stage_cycles of any op: the one a Pipe waits for.
inline double longest_stage_cycles(const Report& r) {
  double most = 0;
  for (const auto& o : r.ops) most = std::max(most, stage_cycles(o));
  return most;
}

}  // namespace dfx::model
