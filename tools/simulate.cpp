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
#include "sim/values.h"
#include "tools/sim_commands.h"
#include "tools/output_files.h"

namespace dfx::cli {

namespace {

// "[0, 3, 17]": element `flat` of an array of these sizes (C order).
std::string element_index(int64_t flat, const std::vector<int64_t>& sizes) {
  std::vector<int64_t> at(sizes.size());
  for (size_t d = sizes.size(); d-- > 0;) at[d] = flat % std::max<int64_t>(1, sizes[d]), flat /= std::max<int64_t>(1, sizes[d]);
  std::string s = "[";
  for (size_t d = 0; d < at.size(); ++d) s += (d ? ", " : "") + std::to_string(at[d]);
  return s + "]";
}

std::string sizes_text(const std::vector<int64_t>& sizes) {
  std::string s;
  for (size_t d = 0; d < sizes.size(); ++d) s += (d ? "x" : "") + std::to_string(sizes[d]);
  return s;
}

// A file DIR/NAME.npy read for the input it names, held to that input's declaration.
std::vector<double> read_input(const arch::Program& p, const arch::TensorDecl& t, const std::string& path) {
  std::vector<double> values = sim::read_npy(path);
  int64_t count = 1;
  for (int64_t s : t.at.sizes) count *= s;
  if (static_cast<int64_t>(values.size()) != count)
    throw InputError(SourceLoc{path, 0, 0, ""}, "holds " + std::to_string(values.size()) + " values; input '" + t.name + "' is " +
                                                    sizes_text(t.at.sizes) + " = " + std::to_string(count) + " values");
  for (size_t e = 0; e < values.size(); ++e)
    if (const std::string problem = sim::input_value_problem(p.dtype, values[e]); !problem.empty())
      throw InputError(SourceLoc{path, 0, 0, ""},
                       "element " + element_index(static_cast<int64_t>(e), t.at.sizes) + " of '" + t.name + "' " + problem);
  return values;
}

}  // namespace

GivenInputs read_inputs(const std::vector<arch::Program>& programs, const std::string& dir) {
  GivenInputs in;
  if (dir.empty()) return in;
  std::error_code error;
  std::vector<std::string> declared, inputs;
  for (const arch::Program& p : programs)
    for (const arch::TensorDecl& t : p.tensors) {
      if (std::find(declared.begin(), declared.end(), t.name) != declared.end()) continue;
      declared.push_back(t.name);
      if (t.output) continue;
      inputs.push_back(t.name);
      const std::string path = dir + "/" + t.name + ".npy";
      if (std::filesystem::exists(path, error)) in.values[t.name] = read_input(p, t, path);
      else if (error) throw InputError(SourceLoc{path, 0, 0, ""}, "cannot read: " + error.message());
      else in.random.push_back(t.name);
    }
  // A file that names no tensor is most likely a misspelt input, which would otherwise run on
  // random data unnoticed. Outputs' files are let be: a directory --outputs wrote holds them.
  std::filesystem::directory_iterator files(dir, error);
  if (error) throw InputError(SourceLoc{dir, 0, 0, ""}, "cannot read the directory: " + error.message());
  for (const auto& entry : files) {
    if (entry.path().extension() != ".npy") continue;
    const std::string name = entry.path().stem().string();
    if (std::find(declared.begin(), declared.end(), name) == declared.end())
      throw InputError(SourceLoc{entry.path().string(), 0, 0, ""},
                       "the programs declare no tensor '" + name + "'" + names_hint(name, inputs, "their inputs"));
  }
  return in;
}

void note_random_inputs(const GivenInputs& in, const std::string& dir, uint64_t seed, std::ostream& os) {
  if (dir.empty() || in.random.empty()) return;
  std::string names;
  for (const auto& n : in.random) names += (names.empty() ? "" : ", ") + n;
  os << "note: " << dir << " has no .npy for input(s) " << names << ": random values (--seed " << seed << ")\n";
}


void add_tensor_files(const std::vector<arch::Program>& programs, const std::string& inputs, const std::string& outputs,
                      FilePlan& files) {
  std::vector<std::string> names;
  for (const arch::Program& p : programs)
    for (const arch::TensorDecl& t : p.tensors)
      if (std::find(names.begin(), names.end(), t.name) == names.end()) names.push_back(t.name);
  for (const auto& name : names) {
    std::error_code unreadable;  // said by read_inputs, with the file
    if (!inputs.empty() && std::filesystem::exists(inputs + "/" + name + ".npy", unreadable)) files.inputs.push_back(inputs + "/" + name + ".npy");
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
  const GivenInputs given = read_inputs(programs, o.inputs);
  note_random_inputs(given, o.inputs, o.seed, std::cerr);
  const sim::SimResult r = sim::simulate(a, programs, given.values, so, o.programs[0]);
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
