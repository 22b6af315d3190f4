// In dfx-sim, the simulator's subcommands run here (tools/commands.h, SimulatorCommand), and
// `dfx compare`: the model against the lowered programs on the simulator.
#include <iostream>

#include "model/dataflow.h"
#include "model/workload.h"
#include "tools/sim_commands.h"
#include "verify/compare.h"

namespace dfx::cli {

int run_compare(const CompareOptions& o) {
  const arch::Arch a = load_arch(o.in);
  const model::Workload w = load_workload(o.in);
  const model::Dataflow f = model::load_dataflow(o.in.flow, a, w);
  const verify::Comparison c = verify::compare(a, w, f, parse_dtype(o.dtype, w), o.seed, o.jitter);
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
