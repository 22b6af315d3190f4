// `dfx cosim`: programs on the SystemC model and on the verilated RTL, compared.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "tools/sim_commands.h"
#include "tools/output_files.h"
#include "verify/cosim.h"

namespace dfx::cli {
namespace {

nlohmann::json cosim_json(const verify::Cosim& c) {
  nlohmann::json j = {{"schema", "dfx.cosim/2"},
                      {"cycles", {{"systemc", c.sim.cycles}, {"rtl", c.rtl.cycles}, {"error", c.cycle_error()}}},
                      {"outputs_bit_exact", c.first_difference.empty()},
                      {"rtl_seconds", c.rtl.seconds}};
  if (!c.first_difference.empty()) j["first_difference"] = c.first_difference;
    for (size_t core = 0; core < c.rtl.cores.size(); ++core) {
    nlohmann::json k = {{"core", core}, {"rtl_cycles", c.rtl.cores[core].cycles}, {"systemc_cycles", c.sim.cores[core].cycles}};
    for (size_t p = 0; p < rtl::kUnitPipes.size(); ++p)
      k["occupied"][arch::pipe_name(rtl::kUnitPipes[p])] = {{"systemc", c.systemc_occupied(core, p)}, {"rtl", c.rtl.cores[core].busy[p]}};
    j["cores"].push_back(k);
  }
  return j;
}

}  // namespace

int run_cosim(const CosimOptions& o) {
  const arch::Arch a = load_arch(o.arch, o.sets);
  std::vector<arch::Program> programs;
  for (const std::string& path : o.programs) programs.push_back(arch::load_program(path, a));
  FilePlan files{o.programs, {}, {}};
  files.inputs.push_back(o.arch);
  if (!o.json.empty()) files.outputs.push_back({"--json", o.json});
  if (o.trace == "-") throw InputError(SourceLoc{"--trace", 0, 0, ""}, "needs a file: a VCD is too large for standard output");
  if (!o.trace.empty()) files.outputs.push_back({"--trace", o.trace});
  add_tensor_files(programs, o.inputs, "", files);
  check_files(files);
  sim::SimOptions so;
  so.seed = o.seed;
  so.program_names = o.programs;
  rtl::RtlOptions ro;
  ro.trace_file = o.trace;
  ro.trace_depth = o.trace_depth;
  // On a terminal, the RTL's progress on stderr: it runs ~25 k cycles/s, so a lowered attention
  // takes tens of seconds with nothing else to show. Its end is SystemC's count (run first).
  const bool tty = isatty(STDERR_FILENO) != 0;
  const auto began = std::chrono::steady_clock::now();
  // The progress line ends with the run, however it ends (an RTL that does not finish throws).
  struct LineEnd {
    bool shown = false;
    ~LineEnd() {
      if (shown) std::fprintf(stderr, "\n");
    }
  } line_end;
  if (tty)
    ro.progress = [&](int64_t cycle, int64_t expected) {
      line_end.shown = true;
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
      std::fprintf(stderr, "\rdfx cosim: RTL at cycle %lld of SystemC's %lld, %.0f s ", static_cast<long long>(cycle),
                   static_cast<long long>(expected), seconds);
    };
  const GivenInputs given = read_inputs(programs, o.inputs);
  note_random_inputs(given, o.inputs, o.seed, std::cerr);
  const verify::Cosim c = verify::cosim(a, programs, given.values, so, ro, o.programs[0]);
  if (o.json == "-") {
    std::cout << cosim_json(c).dump(2) << '\n';
  } else {
    std::cout << verify::cosim_table(c);
    if (!o.json.empty()) {
      write_bytes(o.json, cosim_json(c).dump(2) + '\n');
    }
  }
  return c.first_difference.empty() ? 0 : 1;
}

}  // namespace dfx::cli
