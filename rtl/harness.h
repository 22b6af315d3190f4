#pragma once
// The Verilator harness of the TPU-like RTL: loads programs into the cores' instruction
// memories, plays the chip's DRAM (contents, latency from arch.yaml; the port itself is one
// request per cycle, the DRAM bandwidth) and runs until every core has halted with its pipes
// idle (docs/rtl.md). Depends on arch only; verify/ compares it with the SystemC model.
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "arch/arch.h"
#include "arch/isa.h"

namespace dfx::rtl {

// The parameters a verilated chip was built with; an arch.yaml must match them.
struct Build {
  std::string name;       // the arch this build implements (tpu_like)
  int cores = 4;
  int array = 16;         // N of the N×N systolic array
  int lanes = 48;         // vector lanes
  int port_words = 32;    // DMA / DRAM port words per cycle
  int64_t spm_words = 196608;
  int64_t imem_words = 1024;
};
const std::vector<Build>& builds();

struct RtlOptions {
  std::string trace_file;           // VCD of the signals, if set (times in ps at the arch's clock)
  int trace_depth = 99;             // the levels of the hierarchy it records (99: every signal)
  int64_t max_cycles = 2000000000;  // give up: a hang (dfx cosim bounds it by the SystemC run)
  // Called every `progress_every` cycles of the run (a verilated chip runs ~25 k cycles/s: an
  // attention's lowered programs take seconds to minutes).
  // `expected`: expected_cycles, what the run should take where known (dfx cosim: SystemC's count), else 0.
  std::function<void(int64_t cycle, int64_t expected)> progress;
  int64_t expected_cycles = 0;
  int64_t progress_every = 1 << 14;
};

// The core's pipes with a unit, in the order of RtlCore::busy.
constexpr std::array<arch::Pipe, 4> kUnitPipes = {arch::Pipe::Dma, arch::Pipe::Matrix, arch::Pipe::Vector, arch::Pipe::DmaOut};

struct RtlCore {
  int64_t cycles = 0;                 // when the core halted with its pipes idle
  std::array<int64_t, 4> busy{};      // per kUnitPipes: cycles with the unit working
};

struct RtlResult {
  int64_t cycles = 0;
  std::vector<RtlCore> cores;
  std::map<std::string, std::vector<double>> outputs;  // declared outputs, row-major
  int64_t dram_read_bytes = 0, dram_write_bytes = 0;    // through the DRAM port
  double seconds = 0;                                   // host time of the run
};

// The build matching the arch (tpu_like, tpu_like_small); throws InputError naming every
// parameter that differs from the closest build.
const Build& build_for(const arch::Arch& a, const std::string& arch_name);

// Contract: `programs` are checked (one per core, at most the build's cores); `inputs` holds a
// value for every declared input. Throws InputError when the arch does not match a build, a
// program needs what the core lacks (floating point, Ascend engines, more than 8 nested loops,
// more instructions than its memory holds, tensors outside DRAM), or the RTL does not finish.
RtlResult run(const arch::Arch& a, const std::vector<arch::Program>& programs,
              const std::map<std::string, std::vector<double>>& inputs, const RtlOptions& options,
              const std::string& name);

}  // namespace dfx::rtl
