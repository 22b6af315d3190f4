// In dfx-sim, the simulator's subcommands run here (tools/commands.h, SimulatorCommand), and
// `dfx compare`: the model against the lowered programs on the simulator.
#include <iostream>
#include <nlohmann/json.hpp>

#include "model/dataflow.h"
#include "model/workload.h"
#include "tools/sim_commands.h"
#include "verify/compare.h"

namespace dfx::cli {
namespace {

nlohmann::json compare_json(const CompareOptions& o, const arch::Arch& a, const model::Dataflow& f, const verify::Comparison& c) {
  nlohmann::json j = {{"schema", "dfx.compare/1"}, {"arch", o.in.arch}, {"workload", o.in.workload}, {"flow", o.in.flow},
                      {"dataflow", f.name},        {"set", o.in.sets},  {"dims", o.in.dims},         {"cores", c.sim.cores.size()},
                      {"dtype", arch::dtype_name(c.dtype)}, {"seed", o.seed}, {"jitter", o.jitter}};
  j["figures"] = nlohmann::json::array();
  for (const verify::ComparedFigure& x : verify::compared_figures(c, a))
    j["figures"].push_back({{"name", x.name}, {"model", x.model}, {"simulator", x.simulator}});
  j["notes"] = verify::comparison_notes(c, a);
  j["tolerance"] = c.tolerance;
  j["outputs"] = nlohmann::json::array();
  for (const verify::OutputCheck& k : c.outputs)
    j["outputs"].push_back({{"tensor", k.tensor}, {"max_error", k.max_error}, {"max_reference", k.max_reference}, {"ok", k.ok}});
  j["outputs_ok"] = c.outputs_ok();
  return j;
}

}  // namespace

int run_compare(const CompareOptions& o) {
  const arch::Arch a = load_arch(o.in);
  FilePlan files{{o.in.arch, o.in.workload, o.in.flow}, {}, {}};
  if (!o.json.empty()) files.outputs.push_back({"--json", o.json});
  check_files(files);
  const model::Workload w = load_workload(o.in);
  const model::Dataflow f = model::load_dataflow(o.in.flow, a, w);
  const verify::Comparison c = verify::compare(a, w, f, parse_dtype(o.dtype, w), o.seed, o.jitter);
  if (o.json == "-") {
    std::cout << compare_json(o, a, f, c).dump(2) << '\n';
    return c.outputs_ok() ? 0 : 1;
  }
  if (!o.json.empty()) write_bytes(o.json, compare_json(o, a, f, c).dump(2) + '\n');
  std::cout << "dfx compare: " << f.name << " of " << w.name << " on " << a.name << change_words(o.in) << ", "
            << c.sim.cores.size() << " core(s)\n\n"
            << verify::comparison_table(c, a);
  return c.outputs_ok() ? 0 : 1;
}

int run_simulator_command(const SimulatorCommand& c, char** /*argv*/) {
  if (c.simulate) return run_simulate(*c.simulate);
  if (c.compare) return run_compare(*c.compare);
  return run_cosim(*c.cosim);
}

}  // namespace dfx::cli
