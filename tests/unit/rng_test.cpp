// mapper::Rng draws std::mt19937_64's numbers, bit for bit: across the first block of 312 words
// (seeded and twisted as drawn), into later blocks, through the distributions the search uses,
// and after reseeding.
#include <gtest/gtest.h>

#include <random>

#include "mapper/rng.h"

namespace dfx::mapper {
namespace {

TEST(Rng, DrawsTheNumbersOfStdMt19937_64) {
  for (uint64_t seed : {uint64_t{0}, uint64_t{1}, uint64_t{5489}, uint64_t{0x9e3779b97f4a7c15}, ~uint64_t{0}}) {
    std::mt19937_64 expected(seed);
    Rng rng(seed);
    for (int i = 0; i < 1000; ++i) ASSERT_EQ(rng(), expected()) << "seed " << seed << ", draw " << i;
  }
  std::mt19937_64 expected;
  Rng rng;
  for (int i = 0; i < 10; ++i) ASSERT_EQ(rng(), expected()) << "default seed, draw " << i;
}

TEST(Rng, ThroughTheDistributionsAndAfterReseeding) {
  std::mt19937_64 expected(42);
  Rng rng(42);
  for (int i = 0; i < 500; ++i) {
    ASSERT_EQ(std::uniform_int_distribution<int>(0, 6)(rng), std::uniform_int_distribution<int>(0, 6)(expected)) << i;
    ASSERT_EQ(std::bernoulli_distribution(0.3)(rng), std::bernoulli_distribution(0.3)(expected)) << i;
    ASSERT_EQ(std::uniform_real_distribution<double>(0, 1)(rng), std::uniform_real_distribution<double>(0, 1)(expected)) << i;
  }
  rng.seed(7), expected.seed(7);
  for (int i = 0; i < 700; ++i) ASSERT_EQ(rng(), expected()) << "after reseeding, draw " << i;
}

}  // namespace
}  // namespace dfx::mapper
