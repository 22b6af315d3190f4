#pragma once
// The CLI's subcommands. Each returns the process exit code; only these print.
#include <string>
#include <vector>

namespace dfx::cli {

struct EvalOptions {
  std::string arch, workload, flow, json;
  bool explain = false;
};

int run_eval(const EvalOptions& o);
int run_validate(const std::vector<std::string>& files);
int run_list();

}  // namespace dfx::cli
