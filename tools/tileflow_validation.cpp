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
#include "model/report.h"
#include "tools/validation_cases.h"

namespace {

using namespace dfx::validation;

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
      dfx::model::Report r;
      const std::vector<double> model = model_figures(a, c, &r);
      const std::vector<double> rtl = rtl_figures(c);
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
