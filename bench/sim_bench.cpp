// Simulated cycles per second of the SystemC model: one core running a lowered G1 attention
// program (core 0's share of the shipped dataflows), real fp16 data included.
#include <benchmark/benchmark.h>

#include "mapper/lower.h"
#include "model/dataflow.h"
#include "model/workload.h"
#include "sim/simulator.h"

namespace {

std::string config(const std::string& rel) { return std::string(DFX_CONFIG_DIR) + "/" + rel; }

void BM_SimulateAttentionG1(benchmark::State& state, const std::string& flow, bool trace) {
  const auto a = dfx::arch::load_arch(config("arch/edge.yaml"));
  const auto w = dfx::model::load_workload(config("workloads/attention_g1.yaml"));
  const auto f = dfx::model::load_dataflow(config("dataflows/" + flow + ".yaml"), a, w);
  const auto low = dfx::mapper::lower(a, w, f, dfx::arch::DType::Fp16);
  // Core 0's share alone, on purpose: its program no longer says which of the cores it is, so
  // that the simulator takes it as a program of its own (arch::check_program_set).
  dfx::arch::Program share = low.programs[0];
  share.cores = 0;
  dfx::sim::SimOptions o;
  o.trace = trace;
  int64_t cycles = 0, instructions = 0;
  for (auto _ : state) {
    const auto r = dfx::sim::simulate(a, {share}, {}, o, flow);
    cycles += r.cycles;
    for (const auto& p : r.cores[0].pipes) instructions += p.instructions;
  }
  state.counters["cycles_per_s"] = benchmark::Counter(static_cast<double>(cycles), benchmark::Counter::kIsRate);
  state.counters["instructions_per_s"] = benchmark::Counter(static_cast<double>(instructions), benchmark::Counter::kIsRate);
}

BENCHMARK_CAPTURE(BM_SimulateAttentionG1, fused_pipe, std::string("attention_g1_edge_fused_pipe"), false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SimulateAttentionG1, layerwise, std::string("attention_g1_edge_layerwise"), false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SimulateAttentionG1, fused_pipe_traced, std::string("attention_g1_edge_fused_pipe"), true)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
