#pragma once
// One core: an in-order dispatcher feeding decoupled pipes (dma, matrix, vector) through
// bounded queues; pipes order themselves with set/wait flags (docs/simulator.md).
#include <array>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "arch/arch.h"
#include "arch/isa.h"
#include "sim/dram_port.h"
#include "sim/execute.h"
#include "sim/kernel.h"
#include "sim/level_ports.h"
#include "sim/memory.h"
#include "sim/simulator.h"

namespace dfx::sim {

// What every core of a run shares.
struct RunContext {
  const arch::Arch& arch;
  const SimOptions& options;
  Clock clock;
  Abort abort;
  DramPort dram;
  std::map<std::pair<int, int>, PathTraffic> paths;
  LevelPorts shared_ports;  // of on-chip levels with one instance per chip
  // Barriers: how many cores wait at the current one, and a generation count that releases them.
  int core_count = 1;
  int at_barrier = 0;
  int64_t barrier_generation = 0;
  sc_core::sc_event barrier_released;
  std::vector<TraceEvent> trace;
  RunContext(const arch::Arch& a, const SimOptions& o, int cores)
      : arch(a), options(o), dram(clock, abort, cores * kPipes, o.dram_burst_bytes > 0 ? o.dram_burst_bytes : static_cast<int64_t>(a.levels[0].read_bw)), shared_ports(a), core_count(cores) {}
};

class CoreModel {
 public:
  CoreModel(RunContext& run, int id, const arch::Program& program, Memories memories);
  void spawn();
  bool finished() const;
  // Why each unfinished pipe of a stuck core cannot go on (empty if it finished).
  std::vector<Problem> blocked(const std::string& program_name) const;
  void wake_all();
  Memories& memories() { return mem_; }
  const CoreStats& stats() const { return stats_; }

 private:
  struct Entry {
    const arch::Instruction* ins;
    LoopIndex idx;
    int64_t ready_at;  // the end of its dispatch cycle: the pipe may not start before
  };
  struct PipeState {
    std::deque<Entry> queue;
    sc_core::sc_event pushed, popped;
    bool done = false;
    bool executing = false;  // an entry is being executed
    const arch::Instruction* blocked_on = nullptr;  // a wait_flag it is stuck in
    LoopIndex blocked_idx;
  };

  RunContext& run_;
  int id_;
  const arch::Program& program_;
  Memories mem_;
  Executor exec_;
  CoreStats stats_;
  std::array<PipeState, kPipes> pipes_;
  std::array<uint64_t, kPipes> jitter_state_{};
  std::vector<LevelPorts> ports_;  // per pipe: its own ports into this core's on-chip levels
  std::array<int64_t, kPipes * kPipes * 16> flags_{};
  sc_core::sc_event flag_set_;
  bool dispatch_done_ = false;
  sc_core::sc_event pipe_idle_;
  const arch::Instruction* at_barrier_ = nullptr;  // the barrier the dispatcher waits at
  int dispatch_blocked_pipe_ = -1;

  void dispatch();
  void barrier(const arch::Instruction& i, int64_t& cycle);
  bool pipes_idle() const;
  void pipe_loop(int pipe);
  void execute(int pipe, const Entry& e);
  int64_t jitter(int pipe);
  void transfer(int pipe, const arch::Instruction& i, PipeStats& st);
  void compute(int pipe, const arch::Instruction& i, int64_t cycles, PipeStats& st);
  // Streams `bytes` through an on-chip level's port from `start`; returns when it is through
  // (the root level, DRAM, is the DRAM port's business: returns start).
  double port(int pipe, const arch::MemRef& block, bool write, double bytes, double start);
  void set_flag(const arch::Instruction& i);
  void wait_flag(int pipe, const arch::Instruction& i, const LoopIndex& idx);
  int64_t& flag(const arch::Instruction& i);
  void record(int pipe, const arch::Instruction& i, int64_t start, const std::string& name);
};

}  // namespace dfx::sim
