// simulate(): builds one run (memories, DRAM port, cores), runs SystemC until nothing is left to
// happen, and tells a finished run from a deadlocked one.
#include "sim/simulator.h"

#include <cstdlib>
#include <memory>

#include "sim/core_model.h"
#include "sim/values.h"

// Debian's libsystemc wants this symbol even though dfx has its own main().
int sc_main(int, char**) { return 0; }

namespace dfx::sim {
namespace {

void load_inputs(const arch::Program& p, const TensorValues& given, uint64_t seed, Memories& m, TensorValues& used,
                 const std::string& name) {
  std::vector<int64_t> addresses;
  for (const arch::TensorDecl& t : p.tensors) {
    if (t.output) continue;
    block_addresses(t.at, {}, addresses);
    std::vector<double> values;
    if (auto it = given.find(t.name); it != given.end()) {
      if (it->second.size() != addresses.size())
        throw InputError(SourceLoc{name, t.line, 1, ""}, "input '" + t.name + "' needs " + std::to_string(addresses.size()) +
                                                             " values, got " + std::to_string(it->second.size()));
      values = it->second;
      for (double& v : values) v = to_storage(p.dtype, v);
    } else if (auto seen = used.find(t.name); seen != used.end()) {
      values = seen->second;  // the same tensor declared by another core's program
    } else {
      values = random_values(p.dtype, static_cast<int64_t>(addresses.size()), seed + std::hash<std::string>{}(t.name));
    }
    for (size_t e = 0; e < addresses.size(); ++e) m.at(t.at.level, addresses[e]) = values[e];
    used[t.name] = std::move(values);
  }
}

void read_outputs(const arch::Program& p, Memories& m, TensorValues& out) {
  std::vector<int64_t> addresses;
  for (const arch::TensorDecl& t : p.tensors) {
    if (!t.output || out.count(t.name)) continue;
    block_addresses(t.at, {}, addresses);
    auto& values = out[t.name];
    for (int64_t a : addresses) values.push_back(m.at(t.at.level, a));
  }
}

}  // namespace

SimResult simulate(const arch::Arch& a, const std::vector<arch::Program>& programs, const TensorValues& inputs,
                   const SimOptions& options, const std::string& name) {
  if (programs.empty() || static_cast<int64_t>(programs.size()) > a.cores)
    throw InputError(SourceLoc{name, 0, 0, ""}, "the arch has " + std::to_string(a.cores) + " core(s); got " +
                                                    std::to_string(programs.size()) + " program(s)");
  arch::check_program_set(programs, options.program_names.empty() ? std::vector<std::string>(programs.size(), name) : options.program_names);
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  const int n = static_cast<int>(programs.size()), levels = static_cast<int>(a.levels.size());
  auto run = std::make_unique<RunContext>(a, options, n);
  std::vector<std::vector<double>> shared(static_cast<size_t>(levels));
  SimResult result;
  std::vector<std::unique_ptr<CoreModel>> cores;
  for (int c = 0; c < n; ++c) {
    Memories m(&shared, levels);
    for (int l = 0; l < levels; ++l) m.set_shared(l, a.levels[static_cast<size_t>(l)].instances == 1);
    reserve_for(a, programs[static_cast<size_t>(c)], name, m);
    load_inputs(programs[static_cast<size_t>(c)], inputs, options.seed, m, result.inputs, name);
    cores.push_back(std::make_unique<CoreModel>(*run, c, programs[static_cast<size_t>(c)], std::move(m)));
  }
  run->dram.spawn();
  for (auto& core : cores) core->spawn();
  sc_core::sc_start();

  std::vector<Problem> stuck;
  for (size_t c = 0; c < cores.size(); ++c) {
    const std::string& program = c < options.program_names.size() ? options.program_names[c] : name;
    for (Problem& p : cores[c]->blocked(program)) stuck.push_back(std::move(p));
  }
  bool all_done = true;
  for (auto& core : cores) all_done &= core->finished();
  // Wake every thread so it returns before the objects it uses go away.
  run->abort.requested = true;
  run->dram.wake_all();
  for (auto& core : cores) core->wake_all();
  sc_core::sc_start();
  if (!all_done) {
    if (stuck.empty()) stuck.push_back({SourceLoc{name, 0, 0, ""}, "deadlock: the program stopped before halting"});
    throw InputError(stuck);
  }

  for (auto& core : cores) {
    result.cores.push_back(core->stats());
    result.cycles = std::max(result.cycles, core->stats().cycles);
  }
  for (int c = 0; c < n; ++c) read_outputs(programs[static_cast<size_t>(c)], cores[static_cast<size_t>(c)]->memories(), result.outputs);
  for (auto& [key, traffic] : run->paths) result.paths.push_back(traffic);
  result.trace = std::move(run->trace);
  return result;
}

}  // namespace dfx::sim
