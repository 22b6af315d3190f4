// SystemC model against RTL on the same programs and data.
#include "verify/cosim.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

namespace dfx::verify {

double Cosim::cycle_error() const {
  return rtl.cycles > 0 ? static_cast<double>(sim.cycles - rtl.cycles) / static_cast<double>(rtl.cycles) : 0.0;
}

std::string first_difference(const sim::TensorValues& rtl, const sim::TensorValues& systemc) {
  for (const auto& [name, want] : systemc) {
    const auto it = rtl.find(name);
    if (it == rtl.end()) return name + " is missing from the RTL's outputs";
    if (it->second.size() != want.size()) return name + " has a different size on the RTL";
    for (size_t e = 0; e < want.size(); ++e)
      if (it->second[e] != want[e]) {
        std::ostringstream os;
        os << name << "[" << e << "] = " << std::setprecision(10) << it->second[e] << " on the RTL, " << want[e] << " on SystemC";
        return os.str();
      }
  }
  return "";
}

Cosim cosim(const arch::Arch& a, const std::vector<arch::Program>& programs, const sim::TensorValues& inputs,
            const sim::SimOptions& options, const rtl::RtlOptions& rtl_options, const std::string& name) {
  rtl::build_for(a, name);  // refuse a mismatched arch before simulating anything
  Cosim c;
  c.sim = sim::simulate(a, programs, inputs, options, name);
  // SystemC has already ruled out deadlocks; an RTL run far longer than it is a hang to report.
  rtl::RtlOptions bounded = rtl_options;
  bounded.max_cycles = std::min(rtl_options.max_cycles, 4 * c.sim.cycles + 100000);
  bounded.expected_cycles = c.sim.cycles;
  c.rtl = rtl::run(a, programs, c.sim.inputs, bounded, name);
  c.first_difference = first_difference(c.rtl.outputs, c.sim.outputs);
  return c;
}

int64_t Cosim::systemc_occupied(size_t core, size_t p) const {
  const sim::PipeStats& s = sim.cores[core].pipes[static_cast<size_t>(rtl::kUnitPipes[p])];
  return s.busy + s.wait_memory;
}

std::string cosim_table(const Cosim& c) {
  std::ostringstream os;
  os << std::fixed;
  os << "                 SystemC        RTL   difference\n";
  os << "cycles      " << std::setw(12) << c.sim.cycles << std::setw(11) << c.rtl.cycles << std::setw(12) << std::setprecision(2)
     << 100.0 * c.cycle_error() << " %\n";
    for (size_t core = 0; core < c.rtl.cores.size() && core < c.sim.cores.size(); ++core) {
    os << "core " << core << " occupied (working or waiting on memory)\n";
    for (size_t p = 0; p < rtl::kUnitPipes.size(); ++p)
      os << "  " << std::left << std::setw(9) << arch::pipe_name(rtl::kUnitPipes[p]) << std::right << std::setw(12)
         << c.systemc_occupied(core, p) << std::setw(11) << c.rtl.cores[core].busy[p] << '\n';
  }
  os << "outputs     " << (c.first_difference.empty() ? "bit-exact" : "DIFFER: " + c.first_difference) << '\n';
  os << "RTL host time " << std::setprecision(2) << c.rtl.seconds << " s ("
     << std::setprecision(0) << (c.rtl.seconds > 0 ? static_cast<double>(c.rtl.cycles) / c.rtl.seconds : 0) << " cycles/s)\n";
  return os.str();
}

}  // namespace dfx::verify
