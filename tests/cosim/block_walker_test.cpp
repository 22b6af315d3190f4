// The verilated block walker against the simulator's block addressing: its row segments,
// taken up to E elements per cycle, give the same addresses in the same order, in one cycle per
// E-element piece of each row.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "Vblock_walker.h"
#include "arch/isa.h"
#include "sim/memory.h"
#include "tests/cosim/drive.h"
#include "verilated.h"

namespace {

TEST(BlockWalker, WalksBlocksLikeTheSimulator) {
  VerilatedContext context;
  Vblock_walker g(&context);
  const auto tick = [&] { dfx::test::tick(g); };
  dfx::test::reset(g);
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<int> dims(1, 4), size(1, 5), stride(-7, 20), width(1, 6);
  for (int trial = 0; trial < 200; ++trial) {
    dfx::arch::MemRef r;
    r.level = 0;
    r.base = 1000 + trial;
    for (int d = dims(rng); d > 0; --d) r.sizes.push_back(size(rng)), r.strides.push_back(stride(rng));
    std::vector<int64_t> want;
    dfx::sim::block_addresses(r, {}, want);
    // Outer dimensions the block does not use have size 1.
    const size_t pad = 4 - r.sizes.size();
    for (size_t d = 0; d < 4; ++d) {
      g.sizes[d] = static_cast<uint32_t>(d < pad ? 1 : r.sizes[d - pad]);
      g.strides[d] = static_cast<uint32_t>(d < pad ? 0 : r.strides[d - pad]);
    }
    g.base = static_cast<uint32_t>(r.base);
    g.start = 1;
    tick();
    g.start = 0;
    const int E = width(rng);
    int64_t rows = 1, expected_cycles = 0;
    for (size_t d = 0; d + 1 < r.sizes.size(); ++d) rows *= r.sizes[d];
    expected_cycles = rows * ((r.sizes.back() + E - 1) / E);
    std::vector<int64_t> got;
    int cycles = 0;
    for (; cycles < 1000 && g.valid; ++cycles) {
      const auto take = std::min<uint32_t>(g.row_left, static_cast<uint32_t>(E));
      for (uint32_t j = 0; j < take; ++j) got.push_back(static_cast<int32_t>(g.address) + int64_t{static_cast<int32_t>(g.stride)} * j);
      g.take = take;
      tick();
    }
    g.take = 0;
    EXPECT_EQ(got, want) << "trial " << trial << ", E=" << E;
    EXPECT_EQ(cycles, expected_cycles) << "trial " << trial << ", E=" << E;
    EXPECT_FALSE(g.valid) << "the walker stops after the last row";
  }
  g.final();
}

}  // namespace
