// The Verilator harness: program loading, the DRAM model, the run loop (docs/rtl.md).
#include "rtl/harness.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <memory>
#include <sstream>

#include "Vdfx_chip_tpu_like.h"
#include "Vdfx_chip_tpu_like_small.h"
#include "arch/isa_words.h"
#include "verilated.h"
#include "verilated_vcd_c.h"

namespace dfx::rtl {
namespace {

using arch::Opcode;

[[noreturn]] void refuse(const std::string& file, int line, const std::string& msg) {
  throw InputError(SourceLoc{file, line, line ? 1 : 0, ""}, msg);
}

// What the core cannot run: checked before the RTL starts, so the user gets a message, not a hang.
void check_supported(const arch::Program& p, const Build& b, const std::string& name) {
  if (p.dtype != arch::DType::Int16)
    refuse(name, 0, std::string("the RTL core computes int16 only (this program is ") + arch::dtype_name(p.dtype) + ")");
  if (static_cast<int64_t>(p.code.size()) > b.imem_words)
    refuse(name, 0, std::to_string(p.code.size()) + " instructions; the core's instruction memory holds " + std::to_string(b.imem_words));
  for (const arch::TensorDecl& t : p.tensors)
    if (t.at.level != 0) refuse(name, t.line, "tensor " + t.name + " is not in DRAM; the harness loads and reads DRAM only");
  for (const arch::Instruction& i : p.code) {
    const bool flag = i.op == Opcode::SetFlag || i.op == Opcode::WaitFlag;
    auto has = [](arch::Pipe p) { return p == arch::Pipe::Scalar || std::find(kUnitPipes.begin(), kUnitPipes.end(), p) != kUnitPipes.end(); };
    if (flag && (!has(i.from) || !has(i.to)))
      refuse(name, i.line, "a flag on a pipe the TPU-like core does not have (dma, matrix, vector, scalar, dma_out)");
  }
}

// The chip's DRAM: element values (32 bits hold int16 data and int32 accumulators), requests
// served at acceptance, responses and write acknowledgements `latency` cycles later.
class Dram {
 public:
  explicit Dram(int64_t latency) : latency_(latency) {}
  std::vector<int32_t> cells;

  int32_t& at(int64_t address) {
    if (address < 0) throw std::out_of_range("negative DRAM address");
    if (static_cast<size_t>(address) >= cells.size()) cells.resize(static_cast<size_t>(address) + 1, 0);
    return cells[static_cast<size_t>(address)];
  }

  // The port accepts one request per cycle and every response waits the same latency, so at
  // most one is due in any cycle.
  template <class Chip>
  void serve(Chip& chip, int64_t now) {
    chip.dram_resp_valid = 0;
    chip.dram_wack_valid = 0;
    if (!pending_.empty() && pending_.front().due <= now) {
      const Response& r = pending_.front();
      if (r.write) {
        chip.dram_wack_valid = 1;
        chip.dram_wack_core = r.core;
      } else {
        chip.dram_resp_valid = 1;
        chip.dram_resp_core = r.core;
        chip.dram_resp_tag = r.tag;
        chip.dram_resp_count = r.count;
        for (size_t j = 0; j < r.data.size(); ++j) chip.dram_resp_data[j] = static_cast<uint32_t>(r.data[j]);
      }
      pending_.pop_front();
    }
  }

  template <class Chip>
  void accept(Chip& chip, int64_t now) {
    if (!chip.dram_req_valid) return;
    Response r;
    r.due = now + std::max<int64_t>(latency_, 1);
    r.core = chip.dram_req_core;
    r.write = chip.dram_req_write;
    r.tag = chip.dram_req_tag;
    r.count = chip.dram_req_count;
    const auto addr = static_cast<int32_t>(chip.dram_req_addr), stride = static_cast<int32_t>(chip.dram_req_stride);
    (r.write ? written_words : read_words) += r.count;
    for (uint32_t j = 0; j < r.count; ++j) {
      int32_t& cell = at(int64_t{addr} + int64_t{stride} * j);
      if (r.write) cell = static_cast<int32_t>(chip.dram_req_data[j]);
      else r.data.push_back(cell);
    }
    pending_.push_back(std::move(r));
  }

  int64_t read_words = 0, written_words = 0;

 private:
  struct Response {
    int64_t due = 0;
    uint8_t core = 0;
    bool write = false;
    uint64_t tag = 0;
    uint32_t count = 0;
    std::vector<int32_t> data;
  };
  int64_t latency_;
  std::deque<Response> pending_;  // in acceptance order; equal latency keeps them in due order
};

// The trace's clock: a VCD's times are picoseconds (Verilator's default precision), so that a
// waveform viewer shows the arch's real times, a half period apart.
struct TraceClock {
  VerilatedVcdC* vcd = nullptr;
  uint64_t half_period_ps = 1;
  uint64_t now = 0;
  void dump() {
    if (vcd) vcd->dump(now), now += half_period_ps;
  }
};

// One clock cycle; `between` runs after the low phase has settled (the DRAM samples requests).
template <class Chip, class Between>
void tick(Chip& chip, TraceClock& trace, Between between) {
  chip.clk = 0;
  chip.eval();
  trace.dump();
  between();
  chip.clk = 1;
  chip.eval();
  trace.dump();
}

template <class Chip>
void tick(Chip& chip, TraceClock& trace) {
  tick(chip, trace, [] {});
}

template <class Chip>
RtlResult run_on(const Build& b, const arch::Arch& a, const std::vector<arch::Program>& programs,
                 const std::map<std::string, std::vector<double>>& inputs, const RtlOptions& options, const std::string& name) {
  const auto began = std::chrono::steady_clock::now();
  VerilatedContext context;
  context.traceEverOn(!options.trace_file.empty());
  Chip chip(&context);
  std::unique_ptr<VerilatedVcdC> vcd;
  if (!options.trace_file.empty()) {
    vcd = std::make_unique<VerilatedVcdC>();
    chip.trace(vcd.get(), 99);
    if (options.trace_depth < 99) vcd->dumpvars(options.trace_depth, "TOP");
    vcd->open(options.trace_file.c_str());
  }
  // Reset and the program load are not traced (a core's instruction memory takes a cycle a
  // word): the trace's time 0 is the start, and the run's cycle c begins at c periods.
  TraceClock loading{nullptr, 1, 0};
  TraceClock trace{vcd.get(), static_cast<uint64_t>(std::max(1.0, std::round(500.0 / a.clock_ghz))), 0};
  Dram dram(a.levels[0].latency);
  std::vector<int64_t> addresses;
  for (const arch::Program& p : programs)
    for (const arch::TensorDecl& t : p.tensors) {
      if (t.output) continue;
      const auto it = inputs.find(t.name);
      if (it == inputs.end()) refuse(name, t.line, "no values for input " + t.name);
      arch::block_addresses(t.at, {}, addresses);
      if (it->second.size() != addresses.size()) refuse(name, t.line, "input " + t.name + " has the wrong size");
      for (size_t e = 0; e < addresses.size(); ++e) dram.at(addresses[e]) = static_cast<int32_t>(std::llround(it->second[e]));
    }

  chip.rst = 1;
  tick(chip, loading);
  chip.rst = 0;
  arch::Program idle;
  idle.code.push_back(arch::Instruction{});  // halt
  for (int c = 0; c < b.cores; ++c) {
    const arch::Program& p = c < static_cast<int>(programs.size()) ? programs[static_cast<size_t>(c)] : idle;
    const std::vector<arch::MachineWord> words = arch::encode_words(p, name);
    for (size_t i = 0; i < words.size(); ++i) {
      chip.imem_we[c] = 1;
      chip.imem_addr = static_cast<uint32_t>(i);
      for (int f = 0; f < arch::kWordFields; ++f) chip.imem_data[f] = words[i][static_cast<size_t>(f)];
      tick(chip, loading);
    }
    chip.imem_we[c] = 0;
  }
  chip.start = 1;
  tick(chip, trace);
  chip.start = 0;

  RtlResult result;
  result.cores.resize(static_cast<size_t>(b.cores));
  std::vector<bool> finished(static_cast<size_t>(b.cores), false);
  int64_t cycle = 1;  // the start cycle counts, as the SystemC dispatcher's first instruction does
  for (int left = b.cores; left > 0; ++cycle) {
    if (cycle > options.max_cycles)
      refuse(name, 0, "the RTL did not finish within " + std::to_string(options.max_cycles) + " cycles");
    if (options.progress && cycle % std::max<int64_t>(1, options.progress_every) == 0) options.progress(cycle, options.expected_cycles);
    dram.serve(chip, cycle);
    tick(chip, trace, [&] { dram.accept(chip, cycle); });
    for (int c = 0; c < b.cores; ++c)
      if (!finished[static_cast<size_t>(c)] && chip.done[c]) {
        finished[static_cast<size_t>(c)] = true;
        result.cores[static_cast<size_t>(c)].cycles = cycle;
        for (size_t p = 0; p < kUnitPipes.size(); ++p) result.cores[static_cast<size_t>(c)].busy[p] = chip.busy_cycles[c][p];
        --left;
      }
  }
  result.cycles = cycle - 1;
  result.dram_read_bytes = dram.read_words * a.levels[0].word_bytes;
  result.dram_write_bytes = dram.written_words * a.levels[0].word_bytes;
  for (const arch::Program& p : programs)
    for (const arch::TensorDecl& t : p.tensors) {
      if (!t.output) continue;
      arch::block_addresses(t.at, {}, addresses);
      std::vector<double>& out = result.outputs[t.name];
      out.resize(addresses.size());
      for (size_t e = 0; e < addresses.size(); ++e) out[e] = dram.at(addresses[e]);
    }
  if (vcd) vcd->close();
  chip.final();
  result.cores.resize(programs.size());
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  return result;
}

}  // namespace

const std::vector<Build>& builds() {
  static const std::vector<Build> all = {Build{"tpu_like", 4, 16, 48, 32, 196608, 1024},
                                         Build{"tpu_like_small", 2, 8, 16, 16, 32768, 1024}};
  return all;
}

const Build& build_for(const arch::Arch& a, const std::string& arch_name) {
  // Messages point into the arch file where the loader recorded where levels came from.
  const std::string file = a.levels.empty() || a.levels[0].loc.file.empty() ? arch_name : a.levels[0].loc.file;
  std::vector<Problem> closest, problems;  // the build with the fewest differences is reported
  for (const Build& b : builds()) {
    problems.clear();
    auto differs = [&](const std::string& key, const SourceLoc* at, double arch_value, double build_value) {
      if (std::fabs(arch_value - build_value) <= 1e-9) return;
      std::ostringstream msg;  // %g's figures: the stream's default
      msg << "is " << arch_value << "; the RTL build '" << b.name << "' has " << build_value;
      problems.push_back({SourceLoc{file, at ? at->line : 0, at ? at->col : 0, key}, msg.str()});
    };
    const arch::ComputeUnit* mx = a.unit(arch::UnitKind::Matrix);
    const arch::ComputeUnit* vx = a.unit(arch::UnitKind::Vector);
    differs("cores", nullptr, static_cast<double>(a.cores), b.cores);
    differs("compute.matrix.rows", nullptr, mx && mx->shape.size() == 2 ? static_cast<double>(mx->shape[0]) : 0, b.array);
    differs("compute.matrix.cols", nullptr, mx && mx->shape.size() == 2 ? static_cast<double>(mx->shape[1]) : 0, b.array);
    differs("compute.vector.lanes", nullptr, vx ? static_cast<double>(vx->pes_per_instance) : 0, b.lanes);
    if (a.levels.size() < 2 || a.levels[0].parent >= 0 || a.levels[1].parent != 0) {
      problems.push_back({SourceLoc{file, 0, 0, "levels"}, "the RTL needs DRAM (level 0) above one SPM per core (level 1)"});
    } else {
      const arch::MemoryLevel &dram = a.levels[0], &spm = a.levels[1];
      differs("levels[0].read_bw (bytes/cycle)", &dram.loc, dram.read_bw, b.port_words * dram.word_bytes);
      differs("levels[0].write_bw (bytes/cycle)", &dram.loc, dram.write_bw, b.port_words * dram.word_bytes);
      differs("levels[1].read_bw (bytes/cycle)", &spm.loc, spm.read_bw, b.port_words * spm.word_bytes);
      differs("levels[1].capacity (words)", &spm.loc, spm.capacity_bytes / spm.word_bytes, static_cast<double>(b.spm_words));
      // What the SystemC model times and the RTL has not: banked memories, a broadcasting port.
      differs("levels[0].banks", &dram.loc, static_cast<double>(dram.banks), 1);
      differs("levels[1].banks", &spm.loc, static_cast<double>(spm.banks), 1);
      if (dram.multicast)
        problems.push_back({SourceLoc{file, dram.loc.line, dram.loc.col, "levels[0].multicast"},
                            "is true; the RTL build '" + b.name + "' has one DRAM port that sends each core its own copy (multicast: false)"});
      // The chip's engines: transfers into DRAM run on dma_out, every other on dma.
      arch::Instruction in, out;
      in.op = out.op = Opcode::Dma;
      in.a.level = out.dst.level = 0;
      in.dst.level = out.a.level = 1;
      if (arch::pipe_of(in, a) != arch::Pipe::Dma || arch::pipe_of(out, a) != arch::Pipe::DmaOut)
        problems.push_back({SourceLoc{file, 0, 0, "paths"},
                            "the RTL core loads on 'dma' and stores on 'dma_out': declare paths {from: DRAM, to: SPM, engine: dma} "
                            "and {from: SPM, to: DRAM, engine: dma_out}"});
    }
    if (problems.empty()) return b;
    if (closest.empty() || problems.size() < closest.size()) closest = problems;
  }
  throw InputError(closest);
}

RtlResult run(const arch::Arch& a, const std::vector<arch::Program>& programs,
              const std::map<std::string, std::vector<double>>& inputs, const RtlOptions& options, const std::string& name) {
  const Build& b = build_for(a, name);
  if (programs.empty() || static_cast<int>(programs.size()) > b.cores)
    refuse(name, 0, "the RTL build has " + std::to_string(b.cores) + " cores; got " + std::to_string(programs.size()) + " programs");
  arch::check_program_set(programs, std::vector<std::string>(programs.size(), name));
  for (const arch::Program& p : programs) check_supported(p, b, name);
  if (b.name == "tpu_like_small") return run_on<Vdfx_chip_tpu_like_small>(b, a, programs, inputs, options, name);
  return run_on<Vdfx_chip_tpu_like>(b, a, programs, inputs, options, name);
}

}  // namespace dfx::rtl
