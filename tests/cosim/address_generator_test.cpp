// The verilated address generator against the simulator's block addressing: the same addresses
// in the same order, one per cycle, `last` on the final one.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "Vaddress_generator.h"
#include "arch/isa.h"
#include "sim/memory.h"
#include "tests/cosim/drive.h"
#include "verilated.h"

namespace {

TEST(AddressGenerator, WalksBlocksLikeTheSimulator) {
  VerilatedContext context;
  Vaddress_generator g(&context);
  const auto tick = [&] { dfx::test::tick(g); };
  dfx::test::reset(g);
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<int> dims(1, 4), size(1, 5), stride(-7, 20);
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
      g.sizes[d] = static_cast<uint16_t>(d < pad ? 1 : r.sizes[d - pad]);
      g.strides[d] = static_cast<uint32_t>(d < pad ? 0 : r.strides[d - pad]);
    }
    g.base = static_cast<uint32_t>(r.base);
    g.start = 1;
    tick();
    g.start = 0;
    std::vector<int64_t> got;
    for (int cycle = 0; cycle < 1000 && g.valid; ++cycle) {
      got.push_back(static_cast<int32_t>(g.address));
      const bool last = g.last;
      tick();
      if (last) break;
    }
    EXPECT_EQ(got, want) << "trial " << trial;
    EXPECT_FALSE(g.valid) << "the generator stops after the last element";
  }
  g.final();
}

}  // namespace
