#include "tools/validation_cases.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "model/analyze.h"
#include "model/dataflow.h"
#include "model/workload.h"

namespace dfx::validation {


std::vector<Case> read_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open");
  std::vector<Case> out;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::stringstream ss(line);
    std::vector<double> v;
    std::string cell;
    while (std::getline(ss, cell, ',')) v.push_back(std::stod(cell));
    if (v.size() != 13) throw std::runtime_error(path + ": expected 13 columns: " + line);
    auto l = [&](size_t i) { return static_cast<long>(v[i]); };
    // Traffic columns are in bits of 16-bit words.
    out.push_back({l(0), l(1), l(2), l(3), l(4), l(5), l(6), l(7), v[8], v[9] / 16, v[10] / 16, v[11] / 16, v[12] / 16});
  }
  return out;
}

std::string workload_yaml(const Case& c) {
  std::ostringstream os;
  os << "name: fused_gemm\ndims: {m: " << c.M << ", l: " << c.L << ", k: " << c.K << ", n: " << c.N << "}\n"
     << "ops:\n  - {name: gemm1, expr: \"C[m,l] += A[m,k] * B[k,l]\"}\n"
     << "  - {name: gemm2, expr: \"E[m,n] += C[m,l] * D[l,n]\"}\n";
  return os.str();
}

// The validation dataflow (shared/validation/README.md) for one case's tile sizes.
std::string flow_yaml(const Case& c) {
  std::ostringstream os;
  os << "name: validation_case_" << c.id << "\ntree:\n  tile: DRAM\n  loops: [\"m:" << c.M / c.tM << "\"]\n"
     << "  keep: {C: Cache}\n  children:\n"
     << "    - tile: DRAM\n      loops: [\"k:" << c.K / c.tK << "\", \"l:" << c.L / c.tL << "\"]\n"
     << "      children:\n        - tile: Cache\n          loops: [\"k:" << c.tK / 16 << "\", \"m:" << c.tM / 16
     << "\", \"l:" << c.tL << "\", \"m:16:sp\", \"k:16:sp\"]\n"
     << "          children: [{tile: Reg, children: [{op: gemm1}]}]\n"
     << "    - tile: DRAM\n      loops: [\"l:" << c.L / c.tL << "\", \"n:1\"]\n"
     << "      children:\n        - tile: Cache\n          loops: [\"l:" << c.tL / 16 << "\", \"m:" << c.tM / 16
     << "\", \"n:" << c.N << "\", \"m:16:sp\", \"l:16:sp\"]\n"
     << "          children: [{tile: Reg, children: [{op: gemm2}]}]\n";
  return os.str();
}



std::vector<double> model_figures(const arch::Arch& a, const Case& c, model::Report* report) {
  model::Workload w = model::load_workload_from_string(workload_yaml(c), "case");
  model::Dataflow f = model::load_dataflow_from_string(flow_yaml(c), "case", a, w);
  model::Report r = model::analyze(a, w, f);
  if (!r.valid) throw std::runtime_error("case " + std::to_string(c.id) + ": " + r.reason);
  const auto& dram = r.levels[0].traffic;
  const auto& buf = r.levels[1].traffic;
  if (report) *report = r;
  return {r.cycles, static_cast<double>(dram.read), static_cast<double>(dram.update),
          static_cast<double>(buf.read), static_cast<double>(buf.update)};
}

std::vector<double> rtl_figures(const Case& c) {
  return {c.cycles, c.dram_to_buf, c.buf_to_dram, c.buf_to_reg, c.reg_to_buf};
}

}  // namespace dfx::validation
