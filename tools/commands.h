#pragma once
// The CLI's subcommands. Each returns the process exit code; only these print.
#include <cstdint>
#include <string>
#include <vector>

#include "arch/arch.h"
#include "arch/isa.h"
#include "model/dataflow.h"
#include "model/workload.h"

namespace dfx::cli {

// The ARCH WORKLOAD [FLOW] of a command, and the changes typed after them: `--set KEY=VALUE` to
// the arch (a key path, ConfigNode::load_file) and `--dim NAME=SIZE` to the workload's dims.
struct Inputs {
  std::string arch, workload, flow;
  std::vector<std::string> sets, dims;
};
// The arch and workload with the changes made. Contract: InputError for a bad change.
arch::Arch load_arch(const std::string& path, const std::vector<std::string>& sets);
arch::Arch load_arch(const Inputs& in);
model::Workload load_workload(const Inputs& in);
// `t` as one word for a shell, to be run again: as it is where no character is special, else
// quoted ('0.6 TB/s'), with $'...' escapes where it holds control characters (a newline).
std::string shell_word(const std::string& t);
// The changes as words for a shell (" --set levels.L1.capacity=2MB --dim l=1024", a value with a
// space quoted; empty without any).
std::string change_words(const std::vector<std::string>& sets, const std::vector<std::string>& dims);
inline std::string change_words(const Inputs& in) { return change_words(in.sets, in.dims); }

struct EvalOptions {
  Inputs in;
  std::string json;
  bool explain = false;
};

int run_eval(const EvalOptions& o);
int run_asm(const std::string& arch, const std::string& in, const std::string& out);
int run_disasm(const std::string& arch, const std::string& in);
// `dfx validate FILE... [--set K=V] [--dim N=S]`: the changes apply to every arch (--set) and
// every workload (--dim) among the files, as explore and eval make them (a sweep's points checked
// before any search).
struct ValidateOptions {
  std::vector<std::string> files, sets, dims;
};
int run_validate(const ValidateOptions& o);
int run_list();

}  // namespace dfx::cli

namespace dfx::cli {

struct ExploreOptions {
  Inputs in;
  std::string out, json, html, objective = "cycles";
  uint64_t seed = 1;
  int64_t evals = 10000;
  bool evals_given = false;  // else with --time the time alone bounds the search
  double seconds = 0;
  int top = 1;
  int jobs = 1;
  bool quiet = false;
  bool exhaustive = false;
  bool polish = false;
  bool pareto = false;
  bool log_json = false;
  bool mcts = false;
  bool baselines = true;  // --no-baselines: the whole budget to the open search
  std::vector<std::string> prims, max_footprint;
  std::vector<std::string> groups;  // each 'op+op+…', in op order
  std::vector<std::string> fix;     // mapper::SearchOptions::fix
  std::string emit, dtype = "auto";  // lower the best dataflow to programs
};

int run_explore(const ExploreOptions& o);

}  // namespace dfx::cli

namespace dfx::cli {

struct SimulateOptions {
  std::string arch, inputs, outputs, json, trace;
  std::vector<std::string> sets;  // --set changes to the arch (Inputs)
  std::vector<std::string> programs;  // one per core
  uint64_t seed = 1;
  int64_t jitter = 0;
};

struct CosimOptions {
  std::string arch, inputs, json, trace;
  std::vector<std::string> sets;      // --set changes to the arch (Inputs): it must still match an RTL build
  std::vector<std::string> programs;  // one per core
  uint64_t seed = 1;
  int trace_depth = 99;               // --trace's levels of the hierarchy (99: every signal)
};

}  // namespace dfx::cli

namespace dfx::cli {

struct EmitOptions {
  Inputs in;
  std::string out, dtype = "auto";
};

int run_emit(const EmitOptions& o);
// --dtype's word as an element type ("auto": mapper::default_dtype).
arch::DType parse_dtype(const std::string& name, const model::Workload& w);
// Why dfx emit cannot lower `f` to programs (its first problem, with where it is when `where`),
// or "" when it can: the model analyses trees no program runs (a reduction split over the cores
// is added up as by a reduction tree, docs/semantics.md), so explore and eval say so.
std::string why_not_lowerable(const arch::Arch& a, const model::Workload& w, const model::Dataflow& f, arch::DType dtype,
                              bool where);
std::vector<std::string> emit_lowered(const arch::Arch& a, const model::Workload& w, const model::Dataflow& f, const std::string& dtype,
                                      const std::string& out, const std::string& source);
// How the flow files dfx explore writes begin (the command that found them follows).
constexpr const char* kFoundBy = "# found by: dfx explore ";
// "dfx simulate ARCH [--set ...] PROGRAM...": the command that runs emitted programs, every core's
// in core order, as a shell takes it.
std::string simulate_command(const Inputs& in, const std::vector<std::string>& programs);

}  // namespace dfx::cli

namespace dfx::cli {

struct CompareOptions {
  Inputs in;
  std::string json;  // dfx.compare/1, '-' for stdout alone
  std::string dtype = "auto";
  uint64_t seed = 1;
  int64_t jitter = 0;
};

// simulate, compare and cosim run the SystemC model, which `dfx` does not link: SystemC's
// static set-up alone (it clears 3 MB) took half of the ~18 ms every `dfx` command started
// with, most of what `dfx eval` costs in a sweep. They run in `dfx-sim`, the same command line
// with the simulator linked, built beside `dfx`. In `dfx` the command line is handed over to it
// (tools/sim_handoff.cpp); in `dfx-sim` the command runs (tools/sim_commands.cpp). Exactly one
// of the options is set; `argv` is main's, ending in a null pointer.
struct SimulatorCommand {
  const SimulateOptions* simulate = nullptr;
  const CompareOptions* compare = nullptr;
  const CosimOptions* cosim = nullptr;
};
int run_simulator_command(const SimulatorCommand& c, char** argv);

}  // namespace dfx::cli
