// The core model. The dispatcher runs ahead in its own time (one instruction per cycle) and only
// synchronises with SystemC time when a queue is full or it must wait itself; pipes start an
// entry no earlier than the cycle it was dispatched. This keeps events per instruction low.
#include "sim/core_model.h"

#include <cmath>

#include "sim/timing.h"

namespace dfx::sim {
namespace {
using arch::Instruction;
using arch::Opcode;
using arch::Pipe;

constexpr int kScalar = static_cast<int>(Pipe::Scalar);

// Which queue an instruction goes to: flags run in the pipe that sets or waits.
int target_pipe(const Instruction& i, const arch::Arch& a) {
  if (i.op == Opcode::SetFlag) return static_cast<int>(i.from);
  if (i.op == Opcode::WaitFlag) return static_cast<int>(i.to);
  return static_cast<int>(arch::pipe_of(i, a));
}

std::string index_text(const LoopIndex& idx) {
  std::string s;
  for (size_t j = 0; j < idx.size(); ++j) s += (j ? ", i" : " at i") + std::to_string(j) + "=" + std::to_string(idx[j]);
  return s;
}

// Eigen keeps GEMM blocking buffers of up to 128 KiB on the stack: pipes need room for them.
constexpr int kStackBytes = 4 * 1024 * 1024;
}  // namespace

CoreModel::CoreModel(RunContext& run, int id, const arch::Program& program, Memories memories)
    : run_(run), id_(id), program_(program), mem_(std::move(memories)), exec_(program.dtype), ports_(kPipes, LevelPorts(run.arch)) {}

void CoreModel::spawn() {
  sc_core::sc_spawn_options opts;
  opts.set_stack_size(kStackBytes);
  sc_core::sc_spawn([this] { dispatch(); }, nullptr, &opts);
  for (int p = 0; p < kPipes; ++p)
    if (p != kScalar) sc_core::sc_spawn([this, p] { pipe_loop(p); }, nullptr, &opts);
}

bool CoreModel::finished() const {
  for (const PipeState& p : pipes_)
    if (!p.done) return false;
  return true;
}

void CoreModel::wake_all() {
  for (PipeState& p : pipes_) p.pushed.notify(sc_core::SC_ZERO_TIME), p.popped.notify(sc_core::SC_ZERO_TIME);
  flag_set_.notify(sc_core::SC_ZERO_TIME);
  pipe_idle_.notify(sc_core::SC_ZERO_TIME);
  run_.barrier_released.notify(sc_core::SC_ZERO_TIME);
}

void CoreModel::dispatch() {
  struct Frame {
    size_t start;
    int64_t count;
  };
  std::vector<Frame> loops;
  LoopIndex idx;
  PipeStats& st = stats_.pipes[kScalar];
  int64_t cycle = run_.clock.now();  // the dispatcher's own time, ahead of SystemC's
  for (size_t pc = 0; pc < program_.code.size() && !run_.abort.requested;) {
    const Instruction& i = program_.code[pc];
    ++st.instructions;
    ++cycle;
    if (i.op == Opcode::Halt) break;
    if (i.op == Opcode::Barrier) {
      barrier(i, cycle);
      ++pc;
      continue;
    }
    if (i.op == Opcode::Loop) {
      loops.push_back({pc + 1, i.count});
      idx.push_back(0);
      ++pc;
      continue;
    }
    if (i.op == Opcode::EndLoop) {
      if (++idx.back() < loops.back().count) {
        pc = loops.back().start;
      } else {
        loops.pop_back(), idx.pop_back();
        ++pc;
      }
      continue;
    }
    const int pipe = target_pipe(i, run_.arch);
    if (pipe == kScalar) {  // a flag the scalar unit itself sets or waits for
      run_.clock.advance_to(cycle);
      if (i.op == Opcode::SetFlag) set_flag(i);
      else wait_flag(kScalar, i, idx);
      cycle = run_.clock.now();
      ++pc;
      continue;
    }
    PipeState& q = pipes_[static_cast<size_t>(pipe)];
    if (static_cast<int>(q.queue.size()) >= run_.options.queue_depth) {
      const int64_t from = run_.clock.now();
      dispatch_blocked_pipe_ = pipe;
      while (static_cast<int>(q.queue.size()) >= run_.options.queue_depth && !run_.abort.requested) sc_core::wait(q.popped);
      dispatch_blocked_pipe_ = -1;
      // The RTL's dispatcher sees the freed slot a cycle after the pop (its count is a register).
      const int64_t free_at = run_.clock.now() + 1;
      if (free_at > cycle) {
        st.wait_queue += free_at - std::max(from, cycle);
        cycle = free_at;
      }
    }
    q.queue.push_back({&i, idx, cycle});
    q.pushed.notify(sc_core::SC_ZERO_TIME);
    ++pc;
  }
  run_.clock.advance_to(cycle);
  dispatch_done_ = true;
  for (PipeState& p : pipes_) p.pushed.notify(sc_core::SC_ZERO_TIME);
  st.busy = st.instructions;  // one issue cycle each
  pipes_[kScalar].done = true;
  stats_.cycles = std::max(stats_.cycles, run_.clock.now());
}

bool CoreModel::pipes_idle() const {
  for (int p = 0; p < kPipes; ++p)
    if (p != kScalar && (!pipes_[static_cast<size_t>(p)].queue.empty() || pipes_[static_cast<size_t>(p)].executing)) return false;
  return true;
}

// Drain this core's pipes, then wait for every core: the last to arrive releases the others.
void CoreModel::barrier(const Instruction& i, int64_t& cycle) {
  run_.clock.advance_to(cycle);
  const int64_t start = run_.clock.now();
  at_barrier_ = &i;
  while (!pipes_idle() && !run_.abort.requested) sc_core::wait(pipe_idle_);
  const int64_t generation = run_.barrier_generation;
  if (++run_.at_barrier == run_.core_count) {
    run_.at_barrier = 0;
    ++run_.barrier_generation;
    run_.barrier_released.notify(sc_core::SC_ZERO_TIME);
  }
  while (run_.barrier_generation == generation && !run_.abort.requested) sc_core::wait(run_.barrier_released);
  at_barrier_ = nullptr;
  stats_.pipes[kScalar].wait_flag += run_.clock.now() - start;
  cycle = run_.clock.now();
}

void CoreModel::pipe_loop(int pipe) {
  PipeState& q = pipes_[static_cast<size_t>(pipe)];
  while (!run_.abort.requested) {
    while (q.queue.empty() && !dispatch_done_ && !run_.abort.requested) sc_core::wait(q.pushed);
    if (q.queue.empty() || run_.abort.requested) break;
    Entry e = q.queue.front();
    // A waiting flag keeps its queue slot until it succeeds, as at the head of the RTL's queue;
    // anything else leaves the queue when it starts.
    const bool holds_slot = e.ins->op == Opcode::WaitFlag;
    auto pop = [&] {
      q.queue.pop_front();
      q.popped.notify(sc_core::SC_ZERO_TIME);
    };
    if (!holds_slot) pop();
    q.executing = true;
    // A wait reaches its flag check a cycle after its dispatch cycle, an instruction its issue
    // cycle at once: so the RTL times them (every issue of every pipe a constant offset from
    // the RTL's on the traced programs; with the wait one cycle earlier, a transfer dispatched
    // right behind a satisfied wait started a cycle early and reordered the DRAM port's grants).
    run_.clock.advance_to(e.ready_at + (holds_slot ? 1 : 0));
    Clock::advance(jitter(pipe));
    execute(pipe, e);
    if (holds_slot) pop();
    q.executing = false;
    if (q.queue.empty()) pipe_idle_.notify(sc_core::SC_ZERO_TIME);
  }
  q.done = true;
  stats_.cycles = std::max(stats_.cycles, run_.clock.now());
}

// A small xorshift per pipe keeps jittered runs reproducible for a seed.
int64_t CoreModel::jitter(int pipe) {
  if (run_.options.jitter <= 0) return 0;
  uint64_t& x = jitter_state_[static_cast<size_t>(pipe)];
  if (x == 0) x = (run_.options.seed + 1) * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(id_ * kPipes + pipe + 1);
  x ^= x << 13, x ^= x >> 7, x ^= x << 17;
  return static_cast<int64_t>(x % static_cast<uint64_t>(run_.options.jitter + 1));
}

void CoreModel::execute(int pipe, const Entry& e) {
  const Instruction& i = *e.ins;
  PipeStats& st = stats_.pipes[static_cast<size_t>(pipe)];
  ++st.instructions;
  const int64_t start = run_.clock.now();
  // A flag operation occupies the pipe for a cycle; a set is seen from the next cycle on.
  switch (i.op) {
    case Opcode::SetFlag:
      Clock::advance(1);
      set_flag(i);
      return;
    case Opcode::WaitFlag:
      wait_flag(pipe, i, e.idx);
      Clock::advance(1);
      return;
    default: break;
  }
  Clock::advance(kIssueCycles);
  switch (i.op) {
    case Opcode::Dma: transfer(pipe, i, st); break;
    case Opcode::Mma:
      compute(pipe, i, mma_cycles(*run_.arch.unit(arch::UnitKind::Matrix), i.a.sizes[0], i.b.sizes[1], i.a.sizes[1]), st);
      break;
    case Opcode::Vec: compute(pipe, i, vec_cycles(run_.arch, *run_.arch.unit(arch::UnitKind::Vector), i), st); break;
    default: return;
  }
  exec_.run(i, e.idx, mem_);
  if (run_.options.trace) {
    std::string name = i.op == Opcode::Dma ? "dma " + run_.arch.levels[static_cast<size_t>(i.a.level)].name + "→" +
                                                 run_.arch.levels[static_cast<size_t>(i.dst.level)].name
                       : i.op == Opcode::Mma ? "mma " + std::to_string(i.a.sizes[0]) + "×" + std::to_string(i.b.sizes[1]) + "×" +
                                                   std::to_string(i.a.sizes[1])
                                             : std::string("vec.") + arch::vecop_name(i.vop);
    record(pipe, i, start, name);
  }
}

// A transfer touching the chip's root level (DRAM) crosses the shared port; it ends no earlier
// than its uncontended time, and whatever it waits beyond that is charged to memory contention.
double CoreModel::port(int pipe, const arch::MemRef& block, bool write, double bytes, double start) {
  const auto& lv = run_.arch.levels[static_cast<size_t>(block.level)];
  if (lv.parent < 0) return start;
  // A level with one instance for several cores is shared by all of them; a core's own level
  // gives each of its pipes a port.
  const bool shared = lv.instances == 1 && run_.arch.cores > 1;
  return (shared ? run_.shared_ports : ports_[static_cast<size_t>(pipe)]).reserve(block.level, write, bytes, start, bank_share(block, lv.banks));
}

// A unit's instruction takes its own time or as long as its operands take to stream through
// the ports of their levels, whichever is longer; the difference is memory waiting.
void CoreModel::compute(int pipe, const Instruction& i, int64_t cycles, PipeStats& st) {
  const auto& a = run_.arch;
  const auto start = static_cast<double>(run_.clock.now());
  auto bytes = [&](const arch::MemRef& r, int64_t times) {
    return static_cast<double>(r.elements() * times * a.levels[static_cast<size_t>(r.level)].word_bytes);
  };
  double end = start + static_cast<double>(cycles);
  if (i.op == Opcode::Mma) {
    // Each block of the output streams its rows of A and columns of B once.
    const auto& shape = a.unit(arch::UnitKind::Matrix)->shape;
    const int64_t rows = shape.size() >= 2 ? shape[0] : 1, cols = shape.size() >= 2 ? shape[1] : 1;
    end = std::max(end, port(pipe, i.a, false, bytes(i.a, (i.b.sizes[1] + cols - 1) / cols), start));
    end = std::max(end, port(pipe, i.b, false, bytes(i.b, (i.a.sizes[0] + rows - 1) / rows), start));
  } else {
    end = std::max(end, port(pipe, i.a, false, bytes(i.a, 1), start));
    if (i.b.level >= 0) end = std::max(end, port(pipe, i.b, false, bytes(i.b, 1), start));
  }
  end = std::max(end, port(pipe, i.dst, true, bytes(i.dst, 1), start));
  run_.clock.advance_to(static_cast<int64_t>(std::ceil(end - 1e-9)));
  st.busy += cycles;
  st.wait_memory += run_.clock.now() - static_cast<int64_t>(start) - cycles;
}

// A transfer issues one request per piece (dma_stream_cycles); on the shared DRAM port each
// request waits its turn. The data of the last request arrives `latency` later and is written the cycle
// after (rtl/core/dma_engine.sv).
void CoreModel::transfer(int pipe, const Instruction& i, PipeStats& st) {
  const auto& a = run_.arch;
  const int64_t start = run_.clock.now(), alone = dma_cycles(a, i), bytes = transfer_bytes(a, i);
  const auto& src = a.levels[static_cast<size_t>(i.a.level)];
  const auto& dst = a.levels[static_cast<size_t>(i.dst.level)];
  const auto begins = static_cast<double>(start);
  const double through = std::max(port(pipe, i.a, false, static_cast<double>(bytes), begins),
                                  port(pipe, i.dst, true, static_cast<double>(bytes), begins));
  if (src.parent < 0 || dst.parent < 0) {
    // On a row-port DRAM each request takes the port for a cycle: a piece counts as one port
    // width of bytes.
    const auto& dram = src.parent < 0 ? src : dst;
    const double port_bytes = src.parent < 0 ? src.read_bw : dst.write_bw;
    const auto on_port = dram.row_port ? static_cast<int64_t>(static_cast<double>(dma_stream_cycles(a, i)) * port_bytes) : bytes;
    // Each engine of each core is its own requester (core-major order, as the RTL's arbiter).
    run_.dram.transfer(id_ * kPipes + pipe, on_port, port_bytes);
    Clock::advance(std::max(src.latency, dst.latency) + 1);
  }
  run_.clock.advance_to(std::max(start + alone, static_cast<int64_t>(std::ceil(through - 1e-9))));
  st.busy += alone;
  st.wait_memory += run_.clock.now() - (start + alone);
  PathTraffic& p = run_.paths[{i.a.level, i.dst.level}];
  p.from = i.a.level, p.to = i.dst.level;
  p.bytes += bytes;
  ++p.transfers;
}

int64_t& CoreModel::flag(const Instruction& i) {
  return flags_[static_cast<size_t>((static_cast<int>(i.from) * kPipes + static_cast<int>(i.to)) * 16 + i.event)];
}

void CoreModel::set_flag(const Instruction& i) {
  ++flag(i);
  flag_set_.notify(sc_core::SC_ZERO_TIME);
}

void CoreModel::wait_flag(int pipe, const Instruction& i, const LoopIndex& idx) {
  PipeState& q = pipes_[static_cast<size_t>(pipe)];
  const int64_t start = run_.clock.now();
  q.blocked_on = &i;
  q.blocked_idx = idx;
  while (flag(i) == 0 && !run_.abort.requested) sc_core::wait(flag_set_);
  q.blocked_on = nullptr;
  if (run_.abort.requested) return;
  --flag(i);
  const int64_t waited = run_.clock.now() - start;
  stats_.pipes[static_cast<size_t>(pipe)].wait_flag += waited;
  if (run_.options.trace && waited > 0) record(pipe, i, start, std::string("wait ") + arch::pipe_name(i.from) + "→" + arch::pipe_name(i.to) + " " + std::to_string(i.event));
}

void CoreModel::record(int pipe, const Instruction& i, int64_t start, const std::string& name) {
  run_.trace.push_back({id_, pipe, i.line, start, run_.clock.now() - start, name});
}

std::vector<Problem> CoreModel::blocked(const std::string& program_name) const {
  std::vector<Problem> out;
  const std::string core = run_.arch.cores > 1 ? "core " + std::to_string(id_) + ": " : "";
  for (int p = 0; p < kPipes; ++p) {
    const PipeState& q = pipes_[static_cast<size_t>(p)];
    if (q.done || !q.blocked_on) continue;
    const Instruction& w = *q.blocked_on;
    out.push_back({SourceLoc{program_name, w.line, 1, ""},
                   "deadlock: " + core + "the " + arch::pipe_name(static_cast<Pipe>(p)) + " pipe waits for flag " +
                       arch::pipe_name(w.from) + " -> " + arch::pipe_name(w.to) + " " + std::to_string(w.event) +
                       index_text(q.blocked_idx) + ", which is never set"});
  }
  if (at_barrier_)
    out.push_back({SourceLoc{program_name, at_barrier_->line, 1, ""},
                   "deadlock: " + core + "waits at a barrier that not every core reaches (a core halted or is stuck)"});
  if (dispatch_blocked_pipe_ >= 0)
    out.push_back({SourceLoc{program_name, 0, 0, ""}, "deadlock: " + core + "the dispatcher waits for room in the " +
                                                          arch::pipe_name(static_cast<Pipe>(dispatch_blocked_pipe_)) + " queue"});
  return out;
}

}  // namespace dfx::sim
