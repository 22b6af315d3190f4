// The verilated systolic array against a plain integer product: exact, and in fill + K + drain
// cycles (K + 2N - 2).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "Vsystolic_array_N4.h"
#include "Vsystolic_array_N8.h"
#include "verilated.h"

namespace {

template <class Model, int N>
void check_product(int K, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> value(-300, 300);
  std::vector<int32_t> A(static_cast<size_t>(N * K)), B(static_cast<size_t>(K * N));
  for (auto& x : A) x = value(rng);
  for (auto& x : B) x = value(rng);
  VerilatedContext context;
  Model m(&context);
  auto tick = [&] {
    m.clk = 0;
    m.eval();
    m.clk = 1;
    m.eval();
  };
  m.rst = 1;
  tick();
  m.rst = 0;
  m.clear = 1;
  tick();
  m.clear = 0;
  // Row r of A enters r cycles late, column c of B c cycles late, so that A[r][k] meets B[k][c]
  // in PE (r, c) at cycle k + r + c.
  const int cycles = K + 2 * N - 2;
  for (int t = 0; t < cycles; ++t) {
    for (int r = 0; r < N; ++r) {
      const int k = t - r;
      m.a_in[r] = static_cast<uint16_t>(k >= 0 && k < K ? A[static_cast<size_t>(r * K + k)] : 0);
    }
    for (int c = 0; c < N; ++c) {
      const int k = t - c;
      m.b_in[c] = static_cast<uint16_t>(k >= 0 && k < K ? B[static_cast<size_t>(k * N + c)] : 0);
    }
    tick();
  }
  for (int r = 0; r < N; ++r)
    for (int c = 0; c < N; ++c) {
      int64_t want = 0;
      for (int k = 0; k < K; ++k) want += int64_t{A[static_cast<size_t>(r * K + k)]} * B[static_cast<size_t>(k * N + c)];
      EXPECT_EQ(static_cast<int32_t>(m.acc[r][c]), want) << "C[" << r << "][" << c << "], N=" << N << ", K=" << K;
    }
  m.final();
}

TEST(SystolicArray, ExactProductN4) {
  for (int K : {1, 4, 17}) check_product<Vsystolic_array_N4, 4>(K, 1 + static_cast<uint64_t>(K));
}

TEST(SystolicArray, ExactProductN8) {
  for (int K : {8, 33}) check_product<Vsystolic_array_N8, 8>(K, 7 + static_cast<uint64_t>(K));
}

}  // namespace
