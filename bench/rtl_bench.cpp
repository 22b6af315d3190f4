// Simulated cycles per second of the verilated systolic array (C++ mode, stepped in a loop),
// and of the whole TPU-like chip (N = 16, 4 cores) running lowered programs under the harness.
#include <benchmark/benchmark.h>

#include <cstdint>

#include "Vsystolic_array_N16.h"
#include "Vsystolic_array_N4.h"
#include "arch/isa.h"
#include "mapper/lower.h"
#include "model/dataflow.h"
#include "model/workload.h"
#include "rtl/harness.h"
#include "sim/values.h"
#include "verilated.h"

namespace {

template <class Model, int N>
void BM_Systolic(benchmark::State& state) {
  VerilatedContext context;
  Model m(&context);
  m.en = 1;
  m.rst = 1;
  m.clk = 0;
  m.eval();
  m.clk = 1;
  m.eval();
  m.rst = 0;
  uint16_t x = 1;
  int64_t cycles = 0;
  for (auto _ : state) {
    for (int i = 0; i < 1000; ++i) {
      for (int r = 0; r < N; ++r) m.a_in[r] = x, m.b_in[r] = static_cast<uint16_t>(x + r);
      x = static_cast<uint16_t>(x * 33 + 7);
      m.clk = 0;
      m.eval();
      m.clk = 1;
      m.eval();
    }
    cycles += 1000;
  }
  benchmark::DoNotOptimize(m.acc[N - 1][N - 1]);
  state.counters["cycles_per_s"] = benchmark::Counter(static_cast<double>(cycles), benchmark::Counter::kIsRate);
  m.final();
}
// The chip on the lowered G1 GEMM chain (the shipped explored dataflow, int16, 4 cores busy,
// ~300 k cycles): the cycles the RTL simulates per second of host time, loading included.
void BM_ChipGemmChain(benchmark::State& state) {
  const std::string configs = DFX_CONFIG_DIR;
  const dfx::arch::Arch a = dfx::arch::load_arch(configs + "/arch/tpu_like.yaml");
  const dfx::model::Workload w = dfx::model::load_workload(configs + "/workloads/gemm_chain_g1.yaml");
  const dfx::model::Dataflow f = dfx::model::load_dataflow(configs + "/dataflows/gemm_chain_g1_tpu_like_explored.yaml", a, w);
  const dfx::mapper::Lowered l = dfx::mapper::lower(a, w, f, dfx::arch::DType::Int16);
  std::map<std::string, std::vector<double>> inputs;
  for (const auto& p : l.programs)
    for (const auto& t : p.tensors)
      if (!t.output) inputs[t.name] = dfx::sim::random_values(p.dtype, t.at.elements(), 1);
  int64_t cycles = 0;
  for (auto _ : state) cycles += dfx::rtl::run(a, l.programs, inputs, {}, "bench").cycles;
  state.counters["cycles_per_s"] = benchmark::Counter(static_cast<double>(cycles), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ChipGemmChain)->Unit(benchmark::kSecond)->Iterations(1);

BENCHMARK(BM_Systolic<Vsystolic_array_N4, 4>)->Name("BM_SystolicN4");
BENCHMARK(BM_Systolic<Vsystolic_array_N16, 16>)->Name("BM_SystolicN16");

}  // namespace
