// Analyses per second of the fused-attention tree on edge, at G1's size and with 8× longer
// sequences (the same tree with 8× the trip counts): the cost follows the tree, not the counts.
#include <benchmark/benchmark.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "model/analyze.h"
#include "model/placement.h"
#include "model/walk.h"

namespace {

std::string read(const std::string& rel) {
  std::ifstream in(std::string(DFX_CONFIG_DIR) + "/" + rel);
  if (!in) throw std::runtime_error("cannot open " + rel);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  return s;
}

struct Case {
  dfx::arch::Arch a;
  dfx::model::Workload w;
  dfx::model::Dataflow f;
};

// scale = 1: G1 as shipped; scale = 8: M and L 8× longer, every loop over them 8× more steps.
Case attention(int scale) {
  std::string wl = read("workloads/attention_g1.yaml");
  std::string fl = read("dataflows/attention_g1_edge_fused_pipe.yaml");
  if (scale != 1) {
    const std::string big = std::to_string(512 * scale);
    wl = replace_all(wl, "m: 512", "m: " + big);
    wl = replace_all(wl, "l: 512", "l: " + big);
    fl = replace_all(fl, "\"m:16\"", "\"m:" + std::to_string(16 * scale) + "\"");
    fl = replace_all(fl, "\"l:512\"", "\"l:" + big + "\"");
    fl = replace_all(fl, "\"l:64\"", "\"l:" + std::to_string(64 * scale) + "\"");
    fl = replace_all(fl, "\"l:32\"", "\"l:" + std::to_string(32 * scale) + "\"");
  }
  Case c{dfx::arch::load_arch(std::string(DFX_CONFIG_DIR) + "/arch/edge.yaml"),
         dfx::model::load_workload_from_string(wl, "attention"), {}};
  c.f = dfx::model::load_dataflow_from_string(fl, "flow", c.a, c.w);
  return c;
}

void BM_AnalyzeFusedAttention(benchmark::State& state) {
  Case c = attention(static_cast<int>(state.range(0)));
  dfx::model::Report r = dfx::model::analyze(c.a, c.w, c.f);
  if (!r.valid) {
    state.SkipWithError(r.reason.c_str());
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(dfx::model::analyze(c.a, c.w, c.f));
  state.counters["analyses_per_s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["cycles"] = r.cycles;
}
BENCHMARK(BM_AnalyzeFusedAttention)->Arg(1)->Arg(8)->Unit(benchmark::kMicrosecond);

void BM_AnalyzeLayerwiseAttention(benchmark::State& state) {
  dfx::arch::Arch a = dfx::arch::load_arch(std::string(DFX_CONFIG_DIR) + "/arch/edge.yaml");
  dfx::model::Workload w = dfx::model::load_workload_from_string(read("workloads/attention_g1.yaml"), "w");
  dfx::model::Dataflow f = dfx::model::load_dataflow_from_string(read("dataflows/attention_g1_edge_layerwise.yaml"), "f", a, w);
  for (auto _ : state) benchmark::DoNotOptimize(dfx::model::analyze(a, w, f));
  state.counters["analyses_per_s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_AnalyzeLayerwiseAttention)->Unit(benchmark::kMicrosecond);

// The walk alone (the analysis's largest part) with representative steps replayed or walked
// (model/walk_replay.h): arg 0 picks the tree (0: the fused Pipe tree above, 1: the tree the
// search found, configs/dataflows/attention_g1_edge_explored.yaml), arg 1 the replay (0: off).
void BM_WalkFusedAttention(benchmark::State& state) {
  dfx::arch::Arch a = dfx::arch::load_arch(std::string(DFX_CONFIG_DIR) + "/arch/edge.yaml");
  dfx::model::Workload w = dfx::model::load_workload_from_string(read("workloads/attention_g1.yaml"), "w");
  const char* flow = state.range(0) == 0 ? "dataflows/attention_g1_edge_fused_pipe.yaml" : "dataflows/attention_g1_edge_explored.yaml";
  dfx::model::Dataflow f = dfx::model::load_dataflow_from_string(read(flow), "f", a, w);
  const dfx::model::Placement p = dfx::model::place(a, w, f);
  const auto replay = state.range(1) ? dfx::model::StepReplay::Worthwhile : dfx::model::StepReplay::Off;
  const dfx::model::WalkResult r = dfx::model::walk_tree(a, w, f, p, nullptr, replay);
  for (auto _ : state) benchmark::DoNotOptimize(dfx::model::walk_tree(a, w, f, p, nullptr, replay));
  state.counters["walks_per_s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["replayed_steps"] = static_cast<double>(r.replayed_steps);
}
BENCHMARK(BM_WalkFusedAttention)->ArgsProduct({{0, 1}, {0, 1}})->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
