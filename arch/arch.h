#pragma once
// The hardware description: memory levels (outermost first), data paths, compute units, cores.
#include <cstdint>
#include <string>
#include <vector>

#include "arch/config.h"
#include "arch/errors.h"

namespace dfx::arch {

// What a tensor is to the unit that touches it; a level may be restricted to some roles
// (Ascend L0A holds only left matrix operands, L0B right operands, L0C accumulators).
enum class Role { Left, Right, Acc, Vector };
const char* role_name(Role r);
constexpr int kRoleCount = 4;

struct MemoryLevel {
  std::string name;
  double capacity_bytes = -1;  // per instance; negative = unlimited
  int word_bytes = 2;
  double read_bw = 0;   // bytes per cycle per instance
  double write_bw = 0;  // bytes per cycle per instance
  int64_t latency = 0;  // cycles from a transfer's request to its first data
  int64_t banks = 1;    // word-interleaved banks sharing the bandwidth (simulator: strided access)
  // `port: row` — an access moves at most one contiguous run of an innermost row, up to the
  // port's width, per cycle (the TPU-like RTL's SPM and DRAM port); `stream` (default) — bytes
  // stream at the bandwidth whatever the shape (simulator timing, docs/simulator.md).
  bool row_port = false;
  // Whether one transfer out of this level can feed several instances below it at once (a
  // broadcast network). Without it each instance's copy is read and sent on its own.
  bool multicast = true;
  int64_t instances = 1;
  int parent = -1;      // index of the enclosing level in the level hierarchy (-1 for the root)
  bool holds[kRoleCount] = {true, true, true, true};
  double read_pj = 0;   // energy per word read
  double write_pj = 0;  // energy per word written
  SourceLoc loc;
  SourceLoc capacity_loc;  // its `capacity` key: where a tree that overflows it is pointed (it may come from --set)
  bool unlimited() const { return capacity_bytes < 0; }
};

struct DataPath {
  int from = -1;
  int to = -1;
  std::string engine;
};

enum class UnitKind { Matrix, Vector };

struct ComputeUnit {
  std::string name;
  UnitKind kind = UnitKind::Matrix;
  int64_t pes_per_instance = 1;  // rows*cols, m*n*k of a cube, or vector lanes
  std::vector<int64_t> shape;     // {rows, cols} of a systolic array, {m, n, k} of a cube, {lanes}
  int64_t instances = 1;
  std::vector<std::string> ops;   // vector ops it supports (empty = all)
  // How the analysis times the unit. Tree (default, TileFlow's assumption): the tile tree's
  // spatial loops place the work on the PEs or lanes. Instruction: the unit takes each
  // instruction whole and blocks it onto its array or lanes itself (the RTL's units), so time
  // follows the instruction's shape (unit_costs.h); the tree's spatial loops only bound the tile.
  enum class Schedule { Tree, Instruction } schedule = Schedule::Tree;
  double op_pj = 0;               // energy per operation (MAC or vector op)
  int64_t total_pes() const { return pes_per_instance * instances; }
};

struct Arch {
  std::string name;
  std::string source;  // where the numbers come from
  double clock_ghz = 1.0;
  int64_t cores = 1;
  int64_t sub_cores = 1;
  std::vector<MemoryLevel> levels;  // outermost first
  std::vector<DataPath> paths;
  bool paths_declared = false;  // the file lists its paths (else each level talks to its parent)
  std::vector<ComputeUnit> units;

  int level_index(const std::string& name) const;  // -1 if absent
  bool has_direct_path(int from, int to) const;
  int lowest_common_ancestor(int a, int b) const;
  // The levels data passes from `from` to `to`, both included: the fewest hops over the declared
  // paths (each usable both ways; among equally short routes, the first the paths' order gives).
  // Empty when the paths do not connect them.
  std::vector<int> route(int from, int to) const;
  // The levels a transfer between two levels is staged through, each written and read once more
  // on the way: none over a direct path; where the file lists its paths, the inner levels of
  // route(); else (or where the paths do not connect the two) their lowest common ancestor,
  // unless it is one of them: a level feeds the levels inside it directly (TileFlow's tiles may
  // skip levels).
  std::vector<int> staging_levels(int from, int to) const;
  // True if level a encloses level b in the hierarchy (a is an ancestor of b, or a == b).
  bool encloses(int a, int b) const;
  const ComputeUnit* unit(UnitKind kind) const;
  // Levels a program can address: on chip, one instance per core (or per chip), not per PE.
  // A tile there is what one instruction or one transfer works on.
  bool addressable(int level) const {  // asked per buffer and visit: inline
    const auto& lv = levels[static_cast<size_t>(level)];
    return lv.parent >= 0 && lv.instances <= cores * sub_cores;
  }
  // A unit takes whole instructions from a queue (schedule: instruction): the machine is then
  // timed by its decoupled queues, not by the tree's latencies alone.
  bool instruction_timed() const;
};

// Contract: returns a complete, checked Arch or throws InputError listing every problem.
Arch load_arch(const std::string& path);
// The same with changes made to the document first (ConfigNode::load_file: `dfx … --set`).
Arch load_arch(const std::string& path, const std::vector<Override>& changes);
Arch load_arch_from_string(const std::string& text, const std::string& name);

}  // namespace dfx::arch
