#pragma once
// The cycle-level simulator: runs programs (one per core) on a SystemC model of the arch with
// real data and reports cycles, per-pipe activity and traffic (docs/simulator.md).
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "arch/arch.h"
#include "arch/isa.h"
#include "arch/unit_costs.h"

namespace dfx::sim {

constexpr int kPipes = arch::kPipeCount;  // indexed by arch::Pipe; scalar is the dispatcher

struct SimOptions {
  int queue_depth = static_cast<int>(arch::kQueueDepth);  // instructions waiting per pipe before dispatch stalls
  // The shared DRAM port serves cores round-robin, a burst each; 0: one port width (the
  // DRAM's read bytes per cycle), as the RTL's arbiter grants one request per cycle.
  int64_t dram_burst_bytes = 0;
  bool trace = false;               // record one event per instruction (SimResult::trace)
  uint64_t seed = 1;                // random inputs for tensors not given
  std::vector<std::string> program_names;  // per core, for messages (default: the run's name)
  // Testing aid: up to this many random extra cycles before every instruction of every pipe
  // (seeded). A correctly synchronised program computes the same outputs under any jitter.
  int64_t jitter = 0;
};

// Values of named tensors, flat in the row-major order of their declared block.
using TensorValues = std::map<std::string, std::vector<double>>;

struct PipeStats {
  int64_t instructions = 0;
  int64_t busy = 0;          // cycles executing instructions
  int64_t wait_flag = 0;     // cycles blocked in wait_flag
  int64_t wait_memory = 0;   // cycles a transfer lost to other cores on the shared DRAM port
  int64_t wait_queue = 0;    // dispatcher only: cycles stalled on a full pipe queue
};

struct CoreStats {
  int64_t cycles = 0;  // when the core's last pipe finished
  std::array<PipeStats, kPipes> pipes{};
};

struct PathTraffic {
  int from = -1, to = -1;
  int64_t bytes = 0, transfers = 0;
};

struct TraceEvent {
  int core = 0, pipe = 0, line = 0;
  int64_t start = 0, cycles = 0;
  std::string name;
};

struct SimResult {
  int64_t cycles = 0;
  std::vector<CoreStats> cores;
  std::vector<PathTraffic> paths;  // one entry per (from, to) that moved data
  TensorValues inputs, outputs;    // inputs as used (given or random), outputs as written
  std::vector<TraceEvent> trace;
};

// Contract: `programs` hold one checked program per core (at most arch.cores); inputs missing
// from `inputs` get random values. Throws InputError when an input has the wrong size or the
// programs deadlock (the message says which pipe waits on what, at which line and iteration).
SimResult simulate(const arch::Arch& a, const std::vector<arch::Program>& programs, const TensorValues& inputs,
                   const SimOptions& options, const std::string& name);

}  // namespace dfx::sim
