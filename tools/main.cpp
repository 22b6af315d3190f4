#include <CLI/CLI.hpp>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>

#include "arch/errors.h"
#include "tools/commands.h"

namespace {

// --set KEY=VALUE, once per change: one value each, so that positionals may follow.
void add_sets(CLI::App* c, std::vector<std::string>& sets) {
  c->add_option("--set", sets,
                "KEY.PATH=VALUE: change the arch after loading it, e.g. levels.L1.capacity=2MB, compute.matrix.rows=64 "
                "(a sequence's element by index or by name); once per change")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

void add_dims(CLI::App* c, std::vector<std::string>& dims) {
  c->add_option("--dim", dims, "NAME=SIZE: change a dimension of the workload, e.g. l=1024; once per change")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

// The ARCH WORKLOAD [FLOW] inputs several subcommands take, with changes to the first two.
void add_inputs(CLI::App* c, dfx::cli::Inputs& in, bool flow) {
  c->add_option("arch", in.arch, "Accelerator description (arch.yaml)")->required()->check(CLI::ExistingFile);
  c->add_option("workload", in.workload, "Workload (workload.yaml)")->required()->check(CLI::ExistingFile);
  if (flow) c->add_option("flow", in.flow, "Dataflow tile tree (flow.yaml)")->required()->check(CLI::ExistingFile);
  add_sets(c, in.sets);
  add_dims(c, in.dims);
}

// Options that may be given more than once, or with a comma-separated list: one value per
// occurrence, so that they never take the positionals after them for values.
CLI::Option* add_list(CLI::App* c, const std::string& name, std::vector<std::string>& to, const std::string& help, bool commas) {
  CLI::Option* o = c->add_option(name, to, help);
  if (commas) o->delimiter(',');
  return o->allow_extra_args(false)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

// Whole numbers in [least, most] (CLI11's own checks would wrap "-1" into an unsigned seed, and
// call "abc" out of range).
CLI::Validator whole_number(uint64_t least, uint64_t most) {
  return CLI::Validator(
      [least, most](std::string& s) -> std::string {
        errno = 0;
        const unsigned long long v = std::strtoull(s.c_str(), nullptr, 10);
        const bool digits = !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
        if (!digits || errno == ERANGE || v > most || v < least)
          return "'" + s + "' is not a whole number from " + std::to_string(least) + " to " + std::to_string(most);
        return "";
      },
      "INT in [" + std::to_string(least) + ", " + std::to_string(most) + "]");
}

// A number of seconds, finite and not negative.
const CLI::Validator kSeconds(
    [](std::string& s) -> std::string {
      char* end = nullptr;
      const double v = std::strtod(s.c_str(), &end);
      if (s.empty() || *end != '\0' || !std::isfinite(v) || v < 0) return "'" + s + "' is not a number of seconds (0 or more)";
      return "";
    },
    "SECONDS");

void add_dtype(CLI::App* c, std::string& dtype, const std::string& what) {
  c->add_option("--dtype", dtype, what + " (auto: fp16 if the workload has exp or a division, else int16)")
      ->check(CLI::IsMember({"auto", "int16", "fp16", "bf16"}));
}

// The ARCH PROGRAM... [--inputs DIR] [--seed N] of the commands that run programs.
void add_programs(CLI::App* c, std::string& arch, std::vector<std::string>& programs, std::string& inputs, uint64_t& seed,
                  const std::string& arch_help) {
  c->add_option("arch", arch, arch_help)->required()->check(CLI::ExistingFile);
  c->add_option("programs", programs, "Program (text or binary), one per core")->required()->check(CLI::ExistingFile);
  c->add_option("--inputs", inputs, "Directory with NAME.npy for the program's inputs (others get random data)")
      ->check(CLI::ExistingDirectory);
  c->add_option("--seed", seed, "Seed of the random inputs")->transform(whole_number(0, UINT64_MAX));
}

void add_jitter(CLI::App* c, int64_t& jitter) {
  c->add_option("--jitter", jitter, "Up to N random extra cycles before every instruction, seeded by --seed (finds missing flags)")
      ->check(CLI::Range(int64_t{0}, int64_t{1000000}));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"dfx — fusion-dataflow explorer and accelerator simulator.\n"
               "Search dataflows (explore), analyse one (eval), lower it to programs (emit), run programs\n"
               "on the cycle-level model (simulate), compare model and simulator (compare)."};
  app.require_subcommand(1);

  dfx::cli::EvalOptions eval;
  auto* e = app.add_subcommand("eval", "Analyse one dataflow: traffic per level, footprint, cycles, energy");
  add_inputs(e, eval.in, true);
  e->add_option("--json", eval.json, "Also write the report as JSON to this file ('-' for stdout)");
  e->add_flag("--explain", eval.explain, "Print the tree in the paper's notation, implicit factors explicit");

  dfx::cli::ValidateOptions val;
  auto* v = app.add_subcommand("validate", "Check input files (arch, workload or flow YAML) and report every problem");
  v->add_option("files", val.files, "Files to check; a flow file is checked against the arch and workload named before it")
      ->required();
  add_sets(v, val.sets);
  add_dims(v, val.dims);

  auto* l = app.add_subcommand("list", "Print presets, workload operators, memory-level attributes and primitives");

  std::string prog_arch, prog_in, prog_out;
  auto* as = app.add_subcommand("asm", "Check a program (text assembly) against an arch and write its binary form");
  as->add_option("arch", prog_arch, "Accelerator description (arch.yaml)")->required()->check(CLI::ExistingFile);
  as->add_option("program", prog_in, "Program in text assembly (docs/isa.md)")->required()->check(CLI::ExistingFile);
  as->add_option("-o,--out", prog_out, "Binary program to write")->required();
  auto* ds = app.add_subcommand("disasm", "Check a binary program against an arch and print its text assembly");
  ds->add_option("arch", prog_arch, "Accelerator description (arch.yaml)")->required()->check(CLI::ExistingFile);
  ds->add_option("program", prog_in, "Binary program")->required()->check(CLI::ExistingFile);

  dfx::cli::ExploreOptions ex;
  auto* x = app.add_subcommand("explore", "Search order × resource × tiling for the best dataflows; compare with baselines");
  add_inputs(x, ex.in, false);
  x->add_option("--objective", ex.objective, "What to minimise: cycles, energy or edp (energy × delay)")
      ->check(CLI::IsMember({"cycles", "energy", "edp"}))
      ->capture_default_str();
  x->add_option("--seed", ex.seed, "Random seed; the same seed gives the same result")
      ->transform(whole_number(0, UINT64_MAX))
      ->capture_default_str();
  auto* evals = x->add_option("--evals", ex.evals, "Budget of candidates evaluated, baselines included (default 10000; with --time alone, none)")
                    ->transform(whole_number(10, 100000000));
  x->add_option("--time", ex.seconds, "Wall-clock budget in seconds (0 = none)")->transform(kSeconds);
  x->add_option("--top", ex.top, "Keep the K best distinct dataflows")->transform(whole_number(1, 100))->capture_default_str();
  x->add_option("--jobs", ex.jobs, "Threads analysing candidates (the result does not depend on it)")
      ->transform(whole_number(1, 256))
      ->capture_default_str();
  x->add_option("--out", ex.out, "Write the best dataflow as flow.yaml (the K-th best of --top beside it: flow.K.yaml)");
  x->add_option("--json", ex.json, "Write baselines, best dataflows and convergence as JSON (dfx.explore/1; '-' for stdout)");
  x->add_option("--html", ex.html, "Write a self-contained HTML report (tree, traffic, roofline, convergence)");
  x->add_flag("--quiet", ex.quiet, "No progress line on stderr");
  x->add_flag("--exhaustive", ex.exhaustive, "Analyse every point of the space (small spaces; --evals bounds it)");
  x->add_flag("--polish", ex.polish,
              "Then change the best's tiling, and each baseline's, one decision at a time until no single change improves it "
              "(each sweep on a tenth of --evals more, at least 1,000 or two rounds of its options: on a small --evals, "
              "several times the search itself)");
  x->add_flag("--pareto", ex.pareto, "Also report the cycles/energy Pareto front of everything analysed");
  x->add_flag("--baselines,!--no-baselines", ex.baselines,
              "Build and tune the named baselines (Layerwise, FLAT, Chimera...) and the chain solver's closed form, on a third "
              "of --evals, and compare (the default); --no-baselines gives the whole budget to the open search");
  x->add_flag("--mcts", ex.mcts, "Tile the baselines by Monte-Carlo tree search instead of random search and hill-climbing");
  add_list(x, "--prims", ex.prims, "Primitives fused groups may use, e.g. Seq,Pipe (default: Seq Shar Pipe)", true);
  add_list(x, "--groups", ex.groups, "Fix the fusion: groups of ops joined by '+', e.g. qk+max+sub+exp+sum+div,av", true);
  add_list(x, "--fix", ex.fix,
           "Fix part of the tree, TARGET:KEY=VALUE, once per part: GROUP:prim=Pipe, GROUP:loops=m:16, GROUP:cores=b:8,m:4 "
           "(GROUP: a group of --groups), OP:sp=m:16,l:16 (the op's spatial loops; none for none), OP:order=n,m,b "
           "(every one of its output dims once, outermost first, in any order) or OP:home=L2 (where its output "
           "waits for later groups: DRAM or a shared on-chip level)",
           false);
  add_list(x, "--max-footprint", ex.max_footprint, "LEVEL=SIZE: the most a level inside the outermost may hold per instance, e.g. L1=2MiB; once per level", true);
  x->add_flag("--log-json", ex.log_json, "Progress as one JSON object per line on stderr");
  x->add_option("--emit", ex.emit, "Lower the best dataflow to programs (PATH, PATH.core1…; binary if it ends in .bin)");
  add_dtype(x, ex.dtype, "Element type of --emit");

  dfx::cli::EmitOptions em;
  auto* emc = app.add_subcommand("emit", "Lower a dataflow to one program per core for the arch (docs/lowering.md)");
  add_inputs(emc, em.in, true);
  emc->add_option("-o,--out", em.out, "Program to write (text; binary if it ends in .bin); other cores get PATH.coreN")->required();
  add_dtype(emc, em.dtype, "Element type");

  dfx::cli::CompareOptions cmp;
  auto* cm = app.add_subcommand("compare", "Model vs simulator on one dataflow: cycles, traffic, outputs against a reference");
  add_inputs(cm, cmp.in, true);
  add_dtype(cm, cmp.dtype, "Element type");
  cm->add_option("--seed", cmp.seed, "Seed of the random inputs")->transform(whole_number(0, UINT64_MAX));
  add_jitter(cm, cmp.jitter);
  cm->add_option("--json", cmp.json, "Write the figures, notes and output checks as JSON (dfx.compare/1; '-' for stdout)");

  dfx::cli::SimulateOptions sim;
  auto* sm = app.add_subcommand("simulate", "Run a program on the cycle-level SystemC model with real data");
  add_programs(sm, sim.arch, sim.programs, sim.inputs, sim.seed, "Accelerator description (arch.yaml)");
  add_sets(sm, sim.sets);
  sm->add_option("--outputs", sim.outputs, "Directory to write every tensor (inputs as used, outputs) as NAME.npy");
  sm->add_option("--json", sim.json, "Write cycles, per-pipe activity and traffic as JSON ('-' for stdout)");
  sm->add_option("--trace", sim.trace, "Write a Chrome/Perfetto trace-event JSON (ui.perfetto.dev)");
  add_jitter(sm, sim.jitter);

  dfx::cli::CosimOptions co;
  auto* cs = app.add_subcommand("cosim", "Run programs on the SystemC model and on the verilated RTL; compare outputs and cycles");
  add_programs(cs, co.arch, co.programs, co.inputs, co.seed,
               "Accelerator description (arch.yaml) matching an RTL build (tpu_like, tpu_like_small)");
  add_sets(cs, co.sets);
  cs->add_option("--json", co.json, "Write the comparison as JSON ('-' for stdout)");
  auto* cosim_trace = cs->add_option("--trace", co.trace, "Write a VCD of the RTL's signals (times in ps at the arch's clock)");
  cs->add_option("--trace-depth", co.trace_depth,
                 "Levels of the RTL's hierarchy --trace records, as $dumpvars N (1: the chip's ports, ~0.7 KB per cycle; "
                 "4: each core's signals, ~6.4 KB; default: all, ~18 KB per cycle on tpu_like)")
      ->check(CLI::Range(1, 99))
      ->needs(cosim_trace);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& err) {
    int code = app.exit(err);
    return code == 0 ? 0 : 2;
  }
  try {
    if (e->parsed()) return dfx::cli::run_eval(eval);
    if (v->parsed()) return dfx::cli::run_validate(val);
    if (l->parsed()) return dfx::cli::run_list();
    if (x->parsed()) {
      ex.evals_given = evals->count() > 0;
      if (!ex.evals_given && ex.seconds > 0) ex.evals = 100000000;  // the time alone bounds it
      return dfx::cli::run_explore(ex);
    }
    if (as->parsed()) return dfx::cli::run_asm(prog_arch, prog_in, prog_out);
    if (ds->parsed()) return dfx::cli::run_disasm(prog_arch, prog_in);
    if (sm->parsed()) return dfx::cli::run_simulator_command({&sim, nullptr, nullptr}, argv);
    if (emc->parsed()) return dfx::cli::run_emit(em);
    if (cm->parsed()) return dfx::cli::run_simulator_command({nullptr, &cmp, nullptr}, argv);
    if (cs->parsed()) return dfx::cli::run_simulator_command({nullptr, nullptr, &co}, argv);
  } catch (const dfx::InputError& err) {
    std::cerr << err.what() << '\n';
    return 2;
  } catch (const std::exception& err) {
    std::cerr << "dfx: internal error: " << err.what() << '\n';
    return 3;
  }
  return 0;
}
