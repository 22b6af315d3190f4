#pragma once
// `dfx compare`: one dataflow through the analytical model and, lowered, through the simulator
// with random data; outputs checked against the reference (docs/simulator.md).
#include <string>
#include <vector>

#include "arch/arch.h"
#include "model/dataflow.h"
#include "model/report.h"
#include "model/workload.h"
#include "sim/simulator.h"

namespace dfx::verify {

struct OutputCheck {
  std::string tensor;
  double max_error = 0;      // largest |simulated − reference|
  double max_reference = 0;  // largest |reference|, the scale of the tolerance
  bool ok = false;
};

// A buffer the programs fill with more than the model counts, by the tree: a result whose
// reduction loop sits above it (partial sums), or an input read through a window whose steps
// overlap (the programs load each step's window whole).
// An input one operator reads in two ways (a Gram matrix's A[m,k] and A[n,k]) is held once by
// the model and loaded into a buffer per read by the programs.
struct Reload {
  enum class Why { PartialSums, Windows, ReadTwice };
  int level = 0;
  std::string tensor;
  Why why = Why::PartialSums;
};

struct Comparison {
  model::Report model;
  std::vector<Reload> reloads;
  sim::SimResult sim;
  arch::DType dtype = arch::DType::Int16;
  double tolerance = 0;  // allowed max_error / max_reference (0: bit-exact)
  std::vector<OutputCheck> outputs;
  bool outputs_ok() const;
};

// Relative tolerance of an element type: 0 for integers (bit-exact), else a few units of the
// type's rounding error after a softmax and two GEMMs (docs/simulator.md).
double tolerance_of(arch::DType t);

// Contract: throws InputError when the dataflow is invalid for the model or cannot be lowered.
// `jitter` > 0 perturbs the simulator's timing (sim::SimOptions::jitter) to expose missing flags.
Comparison compare(const arch::Arch& a, const model::Workload& w, const model::Dataflow& f, arch::DType t, uint64_t seed,
                   int64_t jitter = 0);

// Each output against the reference: ok when max_error <= tolerance · max_reference.
std::vector<OutputCheck> check_outputs(const sim::TensorValues& outputs, const sim::TensorValues& reference, double tolerance);

// One figure both sides give: cycles, DRAM read and written, bytes moved into each on-chip level
// a program addresses.
struct ComparedFigure {
  std::string name;
  double model = 0, simulator = 0;
  int level = -1;  // the on-chip level whose bytes moved in these are (-1: cycles, DRAM)
};
std::vector<ComparedFigure> compared_figures(const Comparison& c, const arch::Arch& a);
// Why the two may differ, where the arch says: timed by the tree (TileFlow's assumptions) rather
// than by instructions; a multicasting DRAM the programs cannot use; partial sums the programs
// read back at a reduction's first step too.
std::vector<std::string> comparison_notes(const Comparison& c, const arch::Arch& a);

// Model next to simulator: the figures, the notes, and the output checks.
std::string comparison_table(const Comparison& c, const arch::Arch& a);

}  // namespace dfx::verify
