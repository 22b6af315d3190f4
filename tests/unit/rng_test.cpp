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

// canonical() and chance() stand for the standard distributions the search used before them.
TEST(Rng, CanonicalAndChanceDrawAsTheStandardDistributions) {
  std::mt19937_64 expected(3);
  Rng rng(3);
  for (int i = 0; i < 20000; ++i) {
    const double p = (i % 7) / 6.0;
    if (i % 2) ASSERT_EQ(chance(rng, p), std::bernoulli_distribution(p)(expected)) << i;
    else ASSERT_EQ(canonical(rng), std::uniform_real_distribution<double>(0, 1)(expected)) << i;
  }
}

// An engine that always draws its largest word.
struct TopEngine {
  using result_type = uint64_t;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return ~result_type{0}; }
  result_type operator()() { return max(); }
};

// The words whose scaled value rounds up to 1 stay below it, as in libstdc++.
TEST(Rng, CanonicalStaysBelowOne) {
  TopEngine top;
  const double standard = std::generate_canonical<double, 53>(top);
  EXPECT_EQ(std::nextafter(1.0, 0.0), standard);
  EXPECT_EQ(canonical(top), standard);
}

}  // namespace
}  // namespace dfx::mapper
