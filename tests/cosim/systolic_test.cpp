// The verilated systolic array against a plain integer product: exact, and in fill + K + drain
// cycles (K + 2N - 2).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "Vsystolic_array_N4.h"
#include "Vsystolic_array_N8.h"
#include "arch/isa.h"
#include "sim/simulator.h"
#include "sim/timing.h"
#include "tests/cosim/drive.h"
#include "verilated.h"

namespace {

// Runs A·B on the verilated N×N array; returns the accumulators and the cycles it took.
template <class Model, int N>
std::vector<int64_t> rtl_product(const std::vector<int32_t>& A, const std::vector<int32_t>& B, int K, int& cycles_taken) {
  VerilatedContext context;
  Model m(&context);
  const auto tick = [&] { dfx::test::tick(m); };
  m.en = 1;
  dfx::test::reset(m);
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
  cycles_taken = cycles;
  std::vector<int64_t> out;
  for (int r = 0; r < N; ++r)
    for (int c = 0; c < N; ++c) out.push_back(static_cast<int32_t>(m.acc[r][c]));
  m.final();
  return out;
}

template <class Model, int N>
void check_product(int K, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> value(-300, 300);
  std::vector<int32_t> A(static_cast<size_t>(N * K)), B(static_cast<size_t>(K * N));
  for (auto& x : A) x = value(rng);
  for (auto& x : B) x = value(rng);
  int cycles = 0;
  const std::vector<int64_t> acc = rtl_product<Model, N>(A, B, K, cycles);
  for (int r = 0; r < N; ++r)
    for (int c = 0; c < N; ++c) {
      int64_t want = 0;
      for (int k = 0; k < K; ++k) want += int64_t{A[static_cast<size_t>(r * K + k)]} * B[static_cast<size_t>(k * N + c)];
      EXPECT_EQ(acc[static_cast<size_t>(r * N + c)], want) << "C[" << r << "][" << c << "], N=" << N << ", K=" << K;
    }
}

// The SystemC model's mma on one array block against the RTL: the same accumulators bit for
// bit, and the model's time two cycles beyond the array's fill + k (see check_back_to_back).
template <class Model, int N>
void check_against_simulator(int K, uint64_t seed) {
  const std::string arch_text = "name: t\ncompute:\n  matrix: {rows: " + std::to_string(N) + ", cols: " + std::to_string(N) +
                                "}\nlevels:\n  - {name: DRAM, capacity: unlimited, read_bw: 64, write_bw: 64}\n"
                                "  - {name: SPM, capacity: 256 KiB, read_bw: 4096, write_bw: 4096}\n";
  const dfx::arch::Arch a = dfx::arch::load_arch_from_string(arch_text, "t.yaml");
  const std::string n = std::to_string(N), k = std::to_string(K);
  const std::string prog = ".input A SPM[0 : " + n + "x" + k + " / " + k + ",1]\n.input B SPM[10000 : " + k + "x" + n + " / " + n +
                           ",1]\n.output C SPM[20000 : " + n + "x" + n + " / " + n + ",1]\nmma SPM[20000 : " + n + "x" + n + " / " + n +
                           ",1] = SPM[0 : " + n + "x" + k + " / " + k + ",1] * SPM[10000 : " + k + "x" + n + " / " + n + ",1]\nhalt\n";
  const dfx::arch::Program p = dfx::arch::parse_program(prog, "mma.s", a);
  dfx::arch::check_program(p, a, "mma.s");
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> value(-300, 300);
  std::vector<int32_t> A(static_cast<size_t>(N * K)), B(static_cast<size_t>(K * N));
  for (auto& x : A) x = value(rng);
  for (auto& x : B) x = value(rng);
  const dfx::sim::SimResult s = dfx::sim::simulate(a, {p}, {{"A", {A.begin(), A.end()}}, {"B", {B.begin(), B.end()}}}, {}, "mma.s");
  int cycles = 0;
  const std::vector<int64_t> acc = rtl_product<Model, N>(A, B, K, cycles);
  const std::vector<double>& c = s.outputs.at("C");
  for (size_t e = 0; e < acc.size(); ++e) EXPECT_EQ(static_cast<int64_t>(c[e]), acc[e]) << "element " << e << ", K=" << K;
  const int64_t busy = s.cores[0].pipes[static_cast<size_t>(dfx::arch::Pipe::Matrix)].busy;
  EXPECT_EQ(busy, std::max(K, N) + 2 * N) << "K=" << K;
  if (K >= N) {
    EXPECT_EQ(busy, cycles + 2) << "fill + k, K=" << K;
  }
}

TEST(SystolicArray, ExactProductN4) {
  for (int K : {1, 4, 17}) check_product<Vsystolic_array_N4, 4>(K, 1 + static_cast<uint64_t>(K));
}

TEST(SystolicArray, ExactProductN8) {
  for (int K : {8, 33}) check_product<Vsystolic_array_N8, 8>(K, 7 + static_cast<uint64_t>(K));
}

// Several blocks (C_b = A_b·B_b, all N×N) back to back: block b+1 streams in while block b is
// read out of the shadow registers one row per cycle. Checks every block exactly, and that the
// whole takes what the SystemC model charges an mma of B·N rows: fill + B·K + drain.
template <class Model, int N>
void check_back_to_back(int blocks, int K, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> value(-300, 300);
  std::vector<std::vector<int32_t>> A(static_cast<size_t>(blocks)), B(static_cast<size_t>(blocks));
  for (int b = 0; b < blocks; ++b) {
    A[static_cast<size_t>(b)].resize(static_cast<size_t>(N * K));
    B[static_cast<size_t>(b)].resize(static_cast<size_t>(K * N));
    for (auto& x : A[static_cast<size_t>(b)]) x = value(rng);
    for (auto& x : B[static_cast<size_t>(b)]) x = value(rng);
  }
  auto want = [&](int b, int r, int c) {
    int64_t sum = 0;
    for (int k = 0; k < K; ++k) sum += int64_t{A[static_cast<size_t>(b)][static_cast<size_t>(r * K + k)]} * B[static_cast<size_t>(b)][static_cast<size_t>(k * N + c)];
    return static_cast<int32_t>(sum);
  };
  VerilatedContext context;
  Model m(&context);
  const auto tick = [&] { dfx::test::tick(m); };
  m.en = 1;
  dfx::test::reset(m);
  const int compute = blocks * K + 2 * N - 2;
  for (int t = 0; t < compute; ++t) {
    for (int r = 0; r < N; ++r) {
      const int s = t - r, b = s / K, k = s % K;
      const bool live = s >= 0 && b < blocks;
      m.a_in[r] = static_cast<uint16_t>(live ? A[static_cast<size_t>(b)][static_cast<size_t>(r * K + k)] : 0);
      m.first_in[r] = live && k == 0;
    }
    for (int c = 0; c < N; ++c) {
      const int s = t - c, b = s / K, k = s % K;
      m.b_in[c] = static_cast<uint16_t>(s >= 0 && b < blocks ? B[static_cast<size_t>(b)][static_cast<size_t>(k * N + c)] : 0);
    }
    tick();
    // Drain: row r of block b is complete in the shadows after tick (b+1)K + r + N - 1.
    for (int b = 0; b + 1 < blocks; ++b) {
      const int r = t - ((b + 1) * K + N - 1);
      if (r < 0 || r >= N) continue;
      for (int c = 0; c < N; ++c)
        EXPECT_EQ(static_cast<int32_t>(m.shadow[r][c]), want(b, r, c)) << "block " << b << " C[" << r << "][" << c << "], K=" << K;
    }
  }
  for (int r = 0; r < N; ++r)
    for (int c = 0; c < N; ++c) EXPECT_EQ(static_cast<int32_t>(m.acc[r][c]), want(blocks - 1, r, c)) << "last block";
  m.final();
  // The model: blocks · max(K, N) + 2N, two cycles beyond the array's fill + K: the matrix unit
  // reads the last row out of the shadows, which an empty block's tag fills a cycle after the
  // last operand, one row per cycle (rtl/core/matrix_unit.sv).
  const dfx::arch::Arch a = dfx::arch::load_arch_from_string(
      "name: t\ncompute:\n  matrix: {rows: " + std::to_string(N) + ", cols: " + std::to_string(N) +
          "}\nlevels:\n  - {name: DRAM, capacity: unlimited, read_bw: 64, write_bw: 64}\n",
      "t.yaml");
  EXPECT_EQ(dfx::sim::mma_cycles(*a.unit(dfx::arch::UnitKind::Matrix), int64_t{blocks} * N, N, K), compute + 2);
}

TEST(SystolicArray, BlocksRunBackToBackWhileTheLastDrains) {
  for (int K : {4, 9, 32}) check_back_to_back<Vsystolic_array_N4, 4>(3, K, 11 + static_cast<uint64_t>(K));
  check_back_to_back<Vsystolic_array_N8, 8>(4, 8, 17);
  check_back_to_back<Vsystolic_array_N8, 8>(2, 20, 19);
}

TEST(SystolicArray, SimulatorAgreesWithRtlOnOneBlock) {
  for (int K : {4, 17, 64}) check_against_simulator<Vsystolic_array_N4, 4>(K, 3 + static_cast<uint64_t>(K));
  for (int K : {8, 33}) check_against_simulator<Vsystolic_array_N8, 8>(K, 5 + static_cast<uint64_t>(K));
}

}  // namespace
