#pragma once
// The TileFlow RTL validation set (shared/validation/tileflow_rtl_fused_gemm.csv) as dfx inputs:
// each row becomes a workload and the validation dataflow with that row's tile sizes.
#include <string>
#include <vector>

#include "arch/arch.h"
#include "model/report.h"

namespace dfx::validation {

struct Case {
  long id, M, L, K, N, tM, tK, tL;
  double cycles, dram_to_buf, buf_to_dram, buf_to_reg, reg_to_buf;  // traffic in 16-bit words
};

// Contract: throws std::runtime_error on a file that is not the validation CSV.
std::vector<Case> read_csv(const std::string& path);
std::string workload_yaml(const Case& c);
std::string flow_yaml(const Case& c);
// dfx's figures for a case: cycles, DRAM→buffer, buffer→DRAM, buffer→reg, reg→buffer.
std::vector<double> model_figures(const arch::Arch& a, const Case& c, model::Report* report = nullptr);
std::vector<double> rtl_figures(const Case& c);

}  // namespace dfx::validation
