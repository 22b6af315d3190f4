// `dfx simulate`: a program on the cycle-level SystemC model, with real data.
#include <filesystem>
#include <algorithm>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>

#include "arch/isa.h"
#include "sim/simulator.h"
#include "sim/tensor_files.h"
#include "tools/sim_commands.h"
#include "tools/output_files.h"

namespace dfx::cli {

sim::TensorValues read_inputs(const arch::Program& p, const std::string& dir) {
  sim::TensorValues in;
  if (dir.empty()) return in;
  for (const arch::TensorDecl& t : p.tensors) {
    const std::string path = dir + "/" + t.name + ".npy";
    if (!t.output && std::filesystem::exists(path)) in[t.name] = sim::read_npy(path);
  }
  return in;
}

namespace {

}  // namespace

void add_tensor_files(const std::vector<arch::Program>& programs, const std::string& inputs, const std::string& outputs,
                      FilePlan& files) {
  std::vector<std::string> names;
  for (const arch::Program& p : programs)
    for (const arch::TensorDecl& t : p.tensors)
      if (std::find(names.begin(), names.end(), t.name) == names.end()) names.push_back(t.name);
  for (const auto& name : names) {
    if (!inputs.empty() && std::filesystem::exists(inputs + "/" + name + ".npy")) files.inputs.push_back(inputs + "/" + name + ".npy");
    if (!outputs.empty() && std::filesystem::is_directory(outputs)) files.outputs.push_back({"--outputs", outputs + "/" + name + ".npy"});
  }
}

namespace {

void write_tensors(const arch::Program& p, const sim::SimResult& r, const std::string& dir) {
  std::filesystem::create_directories(dir);
  for (const arch::TensorDecl& t : p.tensors) {
    const auto& values = t.output ? r.outputs.at(t.name) : r.inputs.at(t.name);
    sim::write_npy(dir + "/" + t.name + ".npy", values, t.at.sizes);
  }
}

// The four pipes every core has, and any engine that ran something.
bool shown(const sim::CoreStats& c, int p) {
  return p <= static_cast<int>(arch::Pipe::Scalar) || c.pipes[static_cast<size_t>(p)].instructions > 0;
}

nlohmann::json stats_json(const arch::Arch& a, const sim::SimResult& r) {
  nlohmann::json j = {{"schema", "dfx.simulate/1"}, {"arch", a.name}, {"cycles", r.cycles}};
  for (size_t c = 0; c < r.cores.size(); ++c) {
    nlohmann::json core = {{"core", c}, {"cycles", r.cores[c].cycles}};
    for (int p = 0; p < sim::kPipes; ++p) {
      if (!shown(r.cores[c], p)) continue;
      const sim::PipeStats& s = r.cores[c].pipes[static_cast<size_t>(p)];
      core["pipes"][arch::pipe_name(static_cast<arch::Pipe>(p))] = {
          {"instructions", s.instructions}, {"busy", s.busy}, {"wait_flag", s.wait_flag},
          {"wait_memory", s.wait_memory}, {"wait_queue", s.wait_queue}};
    }
    j["cores"].push_back(core);
  }
  j["paths"] = nlohmann::json::array();
  for (const auto& t : r.paths)
    j["paths"].push_back({{"from", a.levels[static_cast<size_t>(t.from)].name},
                          {"to", a.levels[static_cast<size_t>(t.to)].name},
                          {"bytes", t.bytes},
                          {"transfers", t.transfers}});
  return j;
}

// Chrome trace-event JSON (ui.perfetto.dev, chrome://tracing): a process per core, a thread per
// pipe, one complete event per instruction; timestamps in microseconds at the arch's clock.
void write_trace(const std::string& path, const arch::Arch& a, const sim::SimResult& r) {
  const double us_per_cycle = 1e-3 / a.clock_ghz;
  nlohmann::json events = nlohmann::json::array();
  for (size_t c = 0; c < r.cores.size(); ++c) {
    events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", c}, {"args", {{"name", "core " + std::to_string(c)}}}});
    for (int p = 0; p < sim::kPipes; ++p)
      events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", c}, {"tid", p},
                        {"args", {{"name", arch::pipe_name(static_cast<arch::Pipe>(p))}}}});
  }
  for (const sim::TraceEvent& e : r.trace)
    events.push_back({{"ph", "X"}, {"name", e.name}, {"pid", e.core}, {"tid", e.pipe},
                      {"ts", static_cast<double>(e.start) * us_per_cycle}, {"dur", static_cast<double>(e.cycles) * us_per_cycle},
                      {"args", {{"line", e.line}, {"cycle", e.start}, {"cycles", e.cycles}}}});
  write_bytes(path, nlohmann::json{{"traceEvents", events}, {"displayTimeUnit", "ns"}}.dump() + '\n');
}

void print_summary(const arch::Arch& a, const sim::SimResult& r, std::ostream& os) {
  os << "cycles " << r.cycles << "  (" << std::fixed << std::setprecision(3) << static_cast<double>(r.cycles) / a.clock_ghz / 1e3
     << " us at " << a.clock_ghz * 1e3 << " MHz)\n";
  for (size_t c = 0; c < r.cores.size(); ++c) {
    os << "core " << c << "    instructions      busy  wait_flag  wait_memory\n";
    for (int p = 0; p < sim::kPipes; ++p) {
      if (!shown(r.cores[c], p)) continue;
      const sim::PipeStats& s = r.cores[c].pipes[static_cast<size_t>(p)];
      os << "  " << std::left << std::setw(8) << arch::pipe_name(static_cast<arch::Pipe>(p)) << std::right << std::setw(12)
         << s.instructions << std::setw(10) << s.busy << std::setw(11) << s.wait_flag << std::setw(13) << s.wait_memory << '\n';
    }
  }
  os << "traffic\n";
  for (const auto& t : r.paths)
    os << "  " << std::left << std::setw(16)
       << a.levels[static_cast<size_t>(t.from)].name + " -> " + a.levels[static_cast<size_t>(t.to)].name << std::right
       << std::setw(12) << t.bytes << " B in " << t.transfers << " transfers\n";
}

}  // namespace

int run_simulate(const SimulateOptions& o) {
  const arch::Arch a = load_arch(o.arch, o.sets);
  std::vector<arch::Program> programs;
  for (const std::string& path : o.programs) programs.push_back(arch::load_program(path, a));
  FilePlan files{o.programs, {}, {}};
  files.inputs.push_back(o.arch);
  if (!o.json.empty()) files.outputs.push_back({"--json", o.json});
  if (o.trace == "-") throw InputError(SourceLoc{"--trace", 0, 0, ""}, "needs a file: a trace is too large for standard output");
  if (!o.trace.empty()) files.outputs.push_back({"--trace", o.trace});
  if (!o.outputs.empty()) files.dirs.push_back({"--outputs", o.outputs});
  add_tensor_files(programs, o.inputs, o.outputs, files);
  check_files(files);
  sim::SimOptions so;
  so.trace = !o.trace.empty();
  so.seed = o.seed;
  so.program_names = o.programs;
  so.jitter = o.jitter;
  const sim::SimResult r = sim::simulate(a, programs, read_inputs(programs[0], o.inputs), so, o.programs[0]);
  if (!o.outputs.empty())
    for (const arch::Program& p : programs) write_tensors(p, r, o.outputs);
  if (!o.trace.empty()) write_trace(o.trace, a, r);
  if (!o.json.empty()) {
    if (o.json == "-") {
      std::cout << stats_json(a, r).dump(2) << '\n';
      return 0;
    }
    write_bytes(o.json, stats_json(a, r).dump(2) + '\n');
  }
  print_summary(a, r, std::cout);
  return 0;
}

}  // namespace dfx::cli
