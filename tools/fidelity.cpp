// The fidelity study (issue 5): many dataflows through the analytical model, the SystemC model
// and the RTL; writes docs/fidelity.md and its scatter plot.
//   dfx_fidelity CONFIG_DIR OUT.md [--dataflows N] [--validation CSV] [--quick] [--flows DIR]
// --flows DIR writes each row's dataflow as DIR/NNN_WORKLOAD.yaml, to reproduce it with dfx eval / emit.
// Dataflows: for small and medium GEMMs, GEMM chains, attention and conv chains, the best 16 of
// dfx explore and its named baselines for search seeds 1, 2, … (different seeds find different
// tilings and fusions), every one that lowers to programs not seen before, until N (default
// 100). Each runs with seeded int16 data.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "mapper/lower.h"
#include "mapper/search.h"
#include "tools/validation_cases.h"
#include "verify/cosim.h"

namespace {

using namespace dfx;

struct Row {
  std::string workload, flow;
  int cores = 0;
  double model_cycles = 0, sim_cycles = 0, rtl_cycles = 0;
  double model_dram = 0, sim_dram = 0, rtl_dram = 0;  // bytes read + written
  std::string flow_yaml;
};

struct Fit {
  double mean = 0, worst = 0, r2 = 0;
};

// Relative errors of x against the reference y, and R² of y ≈ x.
Fit fit(const std::vector<double>& x, const std::vector<double>& y) {
  Fit f;
  double mean_y = 0;
  for (double v : y) mean_y += v / static_cast<double>(y.size());
  double ss_res = 0, ss_tot = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double e = std::fabs(x[i] - y[i]) / y[i];
    f.mean += e / static_cast<double>(x.size());
    f.worst = std::max(f.worst, e);
    ss_res += (y[i] - x[i]) * (y[i] - x[i]);
    ss_tot += (y[i] - mean_y) * (y[i] - mean_y);
  }
  f.r2 = ss_tot > 0 ? 1 - ss_res / ss_tot : 1;
  return f;
}

double sim_dram_bytes(const sim::SimResult& r) {
  double b = 0;
  for (const sim::PathTraffic& p : r.paths)
    if (p.from == 0 || p.to == 0) b += static_cast<double>(p.bytes);
  return b;
}

// A log-log scatter of model and SystemC cycles against RTL cycles, as SVG.
std::string scatter_svg(const std::vector<Row>& rows) {
  double lo = 1e30, hi = 0;
  for (const Row& r : rows)
    for (double v : {r.model_cycles, r.sim_cycles, r.rtl_cycles}) lo = std::min(lo, v), hi = std::max(hi, v);
  lo = std::pow(10, std::floor(std::log10(lo))), hi = std::pow(10, std::ceil(std::log10(hi)));
  const double size = 420, pad = 50;
  auto pos = [&](double v) { return (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)) * size; };
  std::ostringstream s;
  s << "<svg xmlns='http://www.w3.org/2000/svg' width='" << size + 2 * pad << "' height='" << size + 2 * pad
    << "' font-family='sans-serif' font-size='12'>\n<rect width='100%' height='100%' fill='white'/>\n";
  s << "<g transform='translate(" << pad << "," << pad << ")'>\n<rect width='" << size << "' height='" << size
    << "' fill='none' stroke='#999'/>\n<line x1='0' y1='" << size << "' x2='" << size << "' y2='0' stroke='#bbb' stroke-dasharray='4'/>\n";
  for (double t = lo; t <= hi * 1.0001; t *= 10) {
    const double p = pos(t);
    s << "<text x='" << p << "' y='" << size + 16 << "' text-anchor='middle'>" << t << "</text>\n";
    s << "<text x='-6' y='" << size - p + 4 << "' text-anchor='end'>" << t << "</text>\n";
  }
  for (const Row& r : rows) {
    s << "<circle cx='" << pos(r.rtl_cycles) << "' cy='" << size - pos(r.model_cycles) << "' r='3' fill='#d95f02' fill-opacity='0.7'/>\n";
    s << "<circle cx='" << pos(r.rtl_cycles) << "' cy='" << size - pos(r.sim_cycles) << "' r='3' fill='#1b9e77' fill-opacity='0.7'/>\n";
  }
  s << "<text x='" << size / 2 << "' y='" << size + 36 << "' text-anchor='middle'>RTL cycles</text>\n";
  s << "<text transform='translate(-40," << size / 2 << ") rotate(-90)' text-anchor='middle'>predicted cycles</text>\n";
  s << "<text x='10' y='14' fill='#d95f02'>● analytical model</text>\n<text x='10' y='30' fill='#1b9e77'>● SystemC model</text>\n";
  s << "</g>\n<text x='" << pad + size / 2 << "' y='24' text-anchor='middle' font-size='14'>Predicted vs RTL cycles ("
    << rows.size() << " dataflows)</text>\n</svg>\n";
  return s.str();
}

// The programs of every core as text, comments dropped: two dataflows that lower to the same
// programs are one data point.
std::string program_key(const arch::Arch& a, const std::vector<arch::Program>& programs) {
  std::string key;
  for (const arch::Program& p : programs) {
    std::istringstream in(arch::print_program(p, a));
    for (std::string line; std::getline(in, line);)
      if (!line.empty() && line[0] != '#') key += line + '\n';
  }
  return key;
}

// quick: SystemC only (it equals the RTL to 0.01%), for iterating on the analytical model.
std::vector<Row> run_dataflows(const std::string& configs, size_t wanted, bool quick) {
  const arch::Arch a = arch::load_arch(configs + "/arch/tpu_like.yaml");
  // Small workloads first round by round; the medium ones (tens of thousands of cycles, slower on
  // the RTL) every other round.
  const std::vector<std::string> small = {"gemm_chain_s1", "attention_s1", "gemm_chain_s2", "attention_s2", "gemm_s1",
                                          "conv_chain_s1"};
  const std::vector<std::string> medium = {"gemm_chain_m1", "attention_m1"};
  std::vector<Row> rows;
  std::set<std::string> seen;
  for (uint64_t seed = 1; rows.size() < wanted && seed <= 40; ++seed) {
    std::vector<std::string> workloads = small;
    if (seed % 2 == 1) workloads.insert(workloads.end(), medium.begin(), medium.end());
    for (const std::string& name : workloads) {
      const model::Workload w = model::load_workload(configs + "/workloads/cosim/" + name + ".yaml");
      mapper::SearchOptions so;
      so.seed = seed;
      so.evaluations = 600;
      so.top = 16;
      const mapper::Outcome outcome = mapper::explore(a, w, so);
      std::vector<mapper::Candidate> candidates = outcome.best;
      candidates.insert(candidates.end(), outcome.baselines.begin(), outcome.baselines.end());
      for (const mapper::Candidate& c : candidates) {
        if (rows.size() >= wanted) break;
        mapper::Lowered l;
        try {
          l = mapper::lower(a, w, model::load_dataflow_from_string(c.flow_yaml, c.name, a, w), arch::DType::Int16);
        } catch (const InputError&) {
          continue;  // the lowering's limits (docs/lowering.md)
        }
        if (!seen.insert(name + program_key(a, l.programs)).second) continue;
        sim::SimOptions options;
        options.seed = seed;
        verify::Cosim run;
        if (quick) {
          run.sim = sim::simulate(a, l.programs, {}, options, name);
          run.rtl.cycles = run.sim.cycles;
        } else {
          run = verify::cosim(a, l.programs, {}, options, {}, name);
        }
        if (!run.first_difference.empty()) std::cerr << name << ": outputs differ: " << run.first_difference << '\n';
        Row r{name, c.name, static_cast<int>(l.programs.size()), c.report.cycles, static_cast<double>(run.sim.cycles),
              static_cast<double>(run.rtl.cycles), static_cast<double>(c.report.dram_bytes), sim_dram_bytes(run.sim),
              static_cast<double>(run.rtl.dram_read_bytes + run.rtl.dram_write_bytes), c.flow_yaml};
        rows.push_back(r);
        std::fprintf(stderr, "%3zu %-14s model %9.0f  SystemC %9.0f  RTL %9.0f  DRAM %8.0f %8.0f  %s\n", rows.size(), name.c_str(),
                     r.model_cycles, r.sim_cycles, r.rtl_cycles, r.model_dram, r.sim_dram, c.name.c_str());
      }
    }
  }
  return rows;
}

// The model against TileFlow's own RTL measurements (REFERENCE.md §5).
std::string tileflow_section(const std::string& configs, const std::string& csv) {
  const arch::Arch a = arch::load_arch(configs + "/arch/tileflow_validation.yaml");
  std::vector<double> model, rtl;
  for (const validation::Case& c : validation::read_csv(csv)) {
    model.push_back(validation::model_figures(a, c)[0]);
    rtl.push_back(validation::rtl_figures(c)[0]);
  }
  const Fit f = fit(model, rtl);
  char buf[400];
  std::snprintf(buf, sizeof buf,
                "On TileFlow's published RTL measurements of the fused GEMM (%zu tilings, "
                "shared/validation/tileflow_rtl_fused_gemm.csv, details in docs/validation.md) the "
                "model's cycles are off by %.1f%% on average (worst %.1f%%), R² %.3f.\n",
                model.size(), 100 * f.mean, 100 * f.worst, f.r2);
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: dfx_fidelity CONFIG_DIR OUT.md [--dataflows N] [--validation CSV] [--quick] [--flows DIR]\n";
    return 2;
  }
  const std::string configs = argv[1], out = argv[2];
  size_t wanted = 100;
  std::string csv;
  bool quick = false;
  std::string flows;
  for (int i = 3; i < argc; ++i) {
    const std::string key = argv[i];
    if (key == "--quick") quick = true;
    else if (key == "--flows" && i + 1 < argc) flows = argv[++i];
    else if (key == "--dataflows" && i + 1 < argc) wanted = std::stoul(argv[++i]);
    else if (key == "--validation" && i + 1 < argc) csv = argv[++i];
  }
  try {
    const std::vector<Row> rows = run_dataflows(configs, wanted, quick);
    if (!flows.empty()) {
      std::filesystem::create_directories(flows);
      for (size_t i = 0; i < rows.size(); ++i) {
        char file[64];
        std::snprintf(file, sizeof file, "/%03zu_", i + 1);
        std::ofstream(flows + file + rows[i].workload + ".yaml") << rows[i].flow_yaml;
      }
    }
    if (quick) {
      std::vector<double> mc, sc, md, sd;
      for (const Row& r : rows) mc.push_back(r.model_cycles), sc.push_back(r.sim_cycles), md.push_back(r.model_dram), sd.push_back(r.sim_dram);
      const Fit q = fit(mc, sc), d = fit(md, sd);
      std::printf("%zu dataflows; model vs SystemC: cycles %.2f%% mean (worst %.2f%%), R2 %.4f; DRAM traffic %.2f%% mean (worst %.2f%%) "
                  "(nothing written)\n", rows.size(), 100 * q.mean, 100 * q.worst, q.r2, 100 * d.mean, 100 * d.worst);
      return 0;
    }
    std::vector<double> mc, sc, rc, md, sd, rd;
    for (const Row& r : rows) {
      mc.push_back(r.model_cycles), sc.push_back(r.sim_cycles), rc.push_back(r.rtl_cycles);
      md.push_back(r.model_dram), sd.push_back(r.sim_dram), rd.push_back(r.rtl_dram);
    }
    const Fit model_c = fit(mc, rc), sim_c = fit(sc, rc), model_d = fit(md, rd), sim_d = fit(sd, rd);
    const std::string svg = out.substr(0, out.rfind('.')) + "_cycles.svg";
    std::ofstream(svg) << scatter_svg(rows);
    std::ofstream f(out);
    f << "# Fidelity: analytical model and SystemC model against the RTL\n\n"
      << "Generated by `tools/fidelity.sh` (tools/fidelity.cpp) — do not edit by hand. " << rows.size()
      << " dataflows: the best tilings and fusions `dfx explore` finds for the small workloads of "
         "configs/workloads/cosim (GEMM, GEMM chains, attention with softmax, conv chain; search seeds 1, 2, …; "
         "every distinct one the lowering can express), lowered for the 4-core TPU-like chip and run with "
         "seeded int16 data on the SystemC model and on the verilated RTL (docs/rtl.md). Errors are relative "
         "to the RTL.\n\n";
    char line[300];
    f << "| comparison | mean error | worst error | R² |\n|---|---|---|---|\n";
    auto row = [&](const char* what, const Fit& x) {
      std::snprintf(line, sizeof line, "| %s | %.2f%% | %.2f%% | %.4f |\n", what, 100 * x.mean, 100 * x.worst, x.r2);
      f << line;
    };
    row("cycles: model vs RTL", model_c);
    row("cycles: SystemC vs RTL", sim_c);
    row("DRAM traffic: model vs RTL", model_d);
    row("DRAM traffic: SystemC vs RTL", sim_d);
    f << "\n![predicted vs RTL cycles](" << svg.substr(svg.rfind('/') + 1) << ")\n\n";
    if (!csv.empty()) f << tileflow_section(configs, csv) << '\n';
    size_t under = 0;
    for (const Row& r : rows) under += r.model_cycles < r.rtl_cycles;
    f << "## Reading the numbers\n\n"
      << "The SystemC model is calibrated to the RTL (docs/rtl.md) and agrees with it to the cycle or "
         "nearly. The analytical model predicts fewer cycles than the RTL for "
      << under << " of " << rows.size()
      << " dataflows. These workloads are small (a few thousand cycles), so what the model leaves out "
         "dominates: it assumes loads, compute and stores overlap fully from the first cycle, with no "
         "DRAM latency (40 cycles per transfer here), no array fill and drain (2N = 32 cycles per "
         "matrix instruction), no issue or flag cycles, and no pipeline prologue or epilogue "
         "(docs/status.md, known limits). Its DRAM traffic is lower than the RTL's where it lets "
         "cores share (multicast) an input that the lowered programs read once per core, and where "
         "a lowered program reloads a tile the model keeps (docs/lowering.md). On large workloads "
         "the gap narrows (G1 GEMM chain and attention on tpu_like: the model is within 8% of "
         "the RTL; the C1 conv chain, whose windows move as short rows, 43% under). Issue 5's "
         "goal of a 3% mean error for the model is not met.\n\n";
    f << "## Every dataflow\n\n| # | workload | dataflow | cores | model cycles | SystemC | RTL | model DRAM B | RTL DRAM B |\n"
      << "|---|---|---|---|---|---|---|---|---|\n";
    for (size_t i = 0; i < rows.size(); ++i) {
      const Row& r = rows[i];
      std::snprintf(line, sizeof line, "| %zu | %s | %s | %d | %.0f | %.0f | %.0f | %.0f | %.0f |\n", i + 1, r.workload.c_str(),
                    r.flow.c_str(), r.cores, r.model_cycles, r.sim_cycles, r.rtl_cycles, r.model_dram, r.rtl_dram);
      f << line;
    }
    std::printf("%zu dataflows; cycles model vs RTL %.2f%% mean (worst %.2f%%), SystemC vs RTL %.2f%% (%.2f%%); wrote %s\n",
                rows.size(), 100 * model_c.mean, 100 * model_c.worst, 100 * sim_c.mean, 100 * sim_c.worst, out.c_str());
  } catch (const InputError& e) {
    std::cerr << e.what() << '\n';
    return 2;
  }
  return 0;
}
