#pragma once
// `dfx cosim`: the same programs on the SystemC model and on the RTL, with the same inputs;
// outputs must be bit-exact, cycles are compared (docs/rtl.md).
#include <string>
#include <vector>

#include "arch/arch.h"
#include "arch/isa.h"
#include "rtl/harness.h"
#include "sim/simulator.h"

namespace dfx::verify {

struct Cosim {
  sim::SimResult sim;
  rtl::RtlResult rtl;
  std::string first_difference;  // empty when every output is bit-exact
  double cycle_error() const;    // (SystemC − RTL) / RTL
  // The cycles a core's unit pipe (rtl::kUnitPipes[p]) was occupied on SystemC: working, or
  // waiting on memory — what the RTL's busy counter counts (the unit holds its instruction while
  // its memory port stalls), so that the two stand side by side.
  int64_t systemc_occupied(size_t core, size_t p) const;
};

// Contract: throws InputError when the programs deadlock, the arch does not match an RTL build
// or the RTL cannot run the programs (rtl::run).
Cosim cosim(const arch::Arch& a, const std::vector<arch::Program>& programs, const sim::TensorValues& inputs,
            const sim::SimOptions& options, const rtl::RtlOptions& rtl_options, const std::string& name);

// The first element where two runs' outputs differ ("O[12] = 5 on the RTL, 7 on SystemC"), or "".
std::string first_difference(const sim::TensorValues& rtl, const sim::TensorValues& systemc);

// Cycles of each and their difference, per-pipe occupied cycles side by side, the output check.
std::string cosim_table(const Cosim& c);

}  // namespace dfx::verify
