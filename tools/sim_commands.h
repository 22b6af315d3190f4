#pragma once
// The subcommands that run the SystemC model, linked into dfx-sim only (tools/commands.h,
// SimulatorCommand).
#include <string>
#include <vector>

#include "arch/isa.h"
#include "sim/simulator.h"
#include "tools/commands.h"
#include "tools/output_files.h"

namespace dfx::cli {

int run_simulate(const SimulateOptions& o);
int run_compare(const CompareOptions& o);
int run_cosim(const CosimOptions& o);

// The program's inputs found as DIR/NAME.npy (none if dir is empty).
sim::TensorValues read_inputs(const arch::Program& p, const std::string& dir);
// Adds the tensor files of a run to `files`: those it reads from `inputs` (DIR/NAME.npy) and
// writes to `outputs` (every tensor the programs declare; none where a directory is empty).
void add_tensor_files(const std::vector<arch::Program>& programs, const std::string& inputs, const std::string& outputs,
                      FilePlan& files);

}  // namespace dfx::cli
