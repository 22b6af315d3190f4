// Evaluations per second of dfx explore on attention G1 / edge, with one and two threads.
#include <benchmark/benchmark.h>

#include "mapper/search.h"

namespace {

void BM_ExploreAttentionG1Edge(benchmark::State& state) {
  const std::string root = DFX_CONFIG_DIR;
  dfx::arch::Arch a = dfx::arch::load_arch(root + "/arch/edge.yaml");
  dfx::model::Workload w = dfx::model::load_workload(root + "/workloads/attention_g1.yaml");
  dfx::mapper::SearchOptions o;
  o.evaluations = 1000;
  o.jobs = static_cast<int>(state.range(0));
  int64_t evaluations = 0;
  double best = 0;
  for (auto _ : state) {
    dfx::mapper::Outcome out = dfx::mapper::explore(a, w, o);
    evaluations += out.evaluations;
    best = out.best.front().report.cycles;
  }
  state.counters["evaluations_per_s"] = benchmark::Counter(static_cast<double>(evaluations), benchmark::Counter::kIsRate);
  state.counters["best_cycles"] = best;
}
BENCHMARK(BM_ExploreAttentionG1Edge)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
