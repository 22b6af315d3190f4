#include <CLI/CLI.hpp>
#include <iostream>

#include "arch/errors.h"
#include "tools/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"dfx — fusion-dataflow explorer and accelerator simulator.\n"
               "Analyse a tile-tree dataflow of a workload on an accelerator (eval), check input files\n"
               "(validate), and list what dfx knows (list)."};
  app.require_subcommand(1);

  dfx::cli::EvalOptions eval;
  auto* e = app.add_subcommand("eval", "Analyse one dataflow: traffic per level, footprint, cycles, energy");
  e->add_option("arch", eval.arch, "Accelerator description (arch.yaml)")->required()->check(CLI::ExistingFile);
  e->add_option("workload", eval.workload, "Workload (workload.yaml)")->required()->check(CLI::ExistingFile);
  e->add_option("flow", eval.flow, "Dataflow tile tree (flow.yaml)")->required()->check(CLI::ExistingFile);
  e->add_option("--json", eval.json, "Also write the report as JSON to this file ('-' for stdout)");
  e->add_flag("--explain", eval.explain, "Print the tree in the paper's notation, implicit factors explicit");

  std::vector<std::string> files;
  auto* v = app.add_subcommand("validate", "Check input files (arch, workload or flow YAML) and report every problem");
  v->add_option("files", files, "Files to check; a flow file is checked against the arch and workload named before it")
      ->required();

  auto* l = app.add_subcommand("list", "Print presets, workload operators, memory-level attributes and primitives");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& err) {
    int code = app.exit(err);
    return code == 0 ? 0 : 2;
  }
  try {
    if (e->parsed()) return dfx::cli::run_eval(eval);
    if (v->parsed()) return dfx::cli::run_validate(files);
    if (l->parsed()) return dfx::cli::run_list();
  } catch (const dfx::InputError& err) {
    std::cerr << err.what() << '\n';
    return 2;
  } catch (const std::exception& err) {
    std::cerr << "dfx: internal error: " << err.what() << '\n';
    return 3;
  }
  return 0;
}
