#pragma once
// The subcommands that run the SystemC model, linked into dfx-sim only (tools/commands.h,
// SimulatorCommand).
#include <ostream>
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

// The programs' inputs given as DIR/NAME.npy (none if dir is empty), and those with no file
// there (the simulator gives them random values).
struct GivenInputs {
  sim::TensorValues values;
  std::vector<std::string> random;
};
// Contract: throws InputError naming the file for one that names no tensor the programs
// declare, holds another number of values than its input, or a value the programs' type cannot
// hold (sim::input_value_problem).
GivenInputs read_inputs(const std::vector<arch::Program>& programs, const std::string& dir);
// Says on `os` which inputs are random although a directory was given.
void note_random_inputs(const GivenInputs& in, const std::string& dir, uint64_t seed, std::ostream& os);
// Adds the tensor files of a run to `files`: those it reads from `inputs` (DIR/NAME.npy) and
// writes to `outputs` (every tensor the programs declare; none where a directory is empty).
void add_tensor_files(const std::vector<arch::Program>& programs, const std::string& inputs, const std::string& outputs,
                      FilePlan& files);

}  // namespace dfx::cli
