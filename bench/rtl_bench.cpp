// Simulated cycles per second of the verilated systolic array (C++ mode, stepped in a loop).
#include <benchmark/benchmark.h>

#include <cstdint>

#include "Vsystolic_array_N16.h"
#include "Vsystolic_array_N4.h"
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
BENCHMARK(BM_Systolic<Vsystolic_array_N4, 4>)->Name("BM_SystolicN4");
BENCHMARK(BM_Systolic<Vsystolic_array_N16, 16>)->Name("BM_SystolicN16");

}  // namespace
