// Compares dfx's model with the RTL measurements of the TileFlow validation set
// (shared/validation/tileflow_rtl_fused_gemm.csv): cycles and the four traffic columns.
//   dfx_tileflow_validation ARCH CSV [--markdown]
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "arch/arch.h"
#include "model/analyze.h"
#include "model/dataflow.h"
#include "model/workload.h"

namespace {

struct Case {
  long id, M, L, K, N, tM, tK, tL;
  double cycles, dram_to_buf, buf_to_dram, buf_to_reg, reg_to_buf;  // words
};

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

struct Errors {
  std::vector<double> e[5];
  void add(int i, double model, double rtl) { e[i].push_back(rtl != 0 ? (model - rtl) / rtl : 0); }
  double mean_abs(int i) const {
    double s = 0;
    for (double x : e[i]) s += std::fabs(x);
    return e[i].empty() ? 0 : s / static_cast<double>(e[i].size());
  }
  double worst(int i) const {
    double w = 0;
    for (double x : e[i]) w = std::max(w, std::fabs(x));
    return w;
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: dfx_tileflow_validation ARCH CSV [--markdown]\n";
    return 2;
  }
  const bool markdown = argc > 3 && std::string(argv[3]) == "--markdown";
  try {
    dfx::arch::Arch a = dfx::arch::load_arch(argv[1]);
    std::vector<Case> cases = read_csv(argv[2]);
    Errors err;
    const char* names[5] = {"cycles", "DRAM→buffer", "buffer→DRAM", "buffer→reg", "reg→buffer"};
    if (markdown)
      std::printf("| case | M | L | K | N | tM | tK | tL | RTL cycles | dfx cycles | error | buf→reg err | reg→buf err |\n"
                  "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    else
      std::printf("%5s %6s %6s %8s %9s %9s %8s %8s %8s %8s\n", "case", "tM/tK/tL", "", "RTL cyc", "dfx cyc",
                  "cyc err", "dram→buf", "buf→dram", "buf→reg", "reg→buf");
    for (const Case& c : cases) {
      dfx::model::Workload w = dfx::model::load_workload_from_string(workload_yaml(c), "case");
      dfx::model::Dataflow f = dfx::model::load_dataflow_from_string(flow_yaml(c), "case", a, w);
      dfx::model::Report r = dfx::model::analyze(a, w, f);
      if (!r.valid) {
        std::cerr << "case " << c.id << ": " << r.reason << '\n';
        return 1;
      }
      const auto& dram = r.levels[0].traffic;
      const auto& buf = r.levels[1].traffic;
      const double model[5] = {r.cycles, static_cast<double>(dram.read), static_cast<double>(dram.update),
                               static_cast<double>(buf.read), static_cast<double>(buf.update)};
      const double rtl[5] = {c.cycles, c.dram_to_buf, c.buf_to_dram, c.buf_to_reg, c.reg_to_buf};
      for (int i = 0; i < 5; ++i) err.add(i, model[i], rtl[i]);
      auto pct = [](double m, double x) { return 100 * (m - x) / x; };
      if (markdown)
        std::printf("| %ld | %ld | %ld | %ld | %ld | %ld | %ld | %ld | %.0f | %.0f | %+.1f%% | %+.1f%% | %+.1f%% |\n", c.id,
                    c.M, c.L, c.K, c.N, c.tM, c.tK, c.tL, c.cycles, r.cycles, pct(r.cycles, c.cycles),
                    pct(model[3], rtl[3]), pct(model[4], rtl[4]));
      else
        std::printf("%5ld %3ld/%ld/%-4ld %8.0f %9.0f %+8.1f%% %+7.1f%% %+7.1f%% %+7.1f%% %+7.1f%%\n", c.id, c.tM, c.tK,
                    c.tL, c.cycles, r.cycles, pct(r.cycles, c.cycles), pct(model[1], rtl[1]),
                    pct(model[2], rtl[2]), pct(model[3], rtl[3]), pct(model[4], rtl[4]));
    }
    std::printf("\n%zu cases. Mean |error| (worst):\n", cases.size());
    for (int i = 0; i < 5; ++i)
      std::printf("  %-12s %6.2f%%  (%.2f%%)\n", names[i], 100 * err.mean_abs(i), 100 * err.worst(i));
  } catch (const std::exception& e) {
    std::cerr << e.what() << '\n';
    return 2;
  }
  return 0;
}
