#pragma once
// The search's random engine: std::mt19937_64's sequence, bit for bit, computed as it is drawn.
//
// A search seeds a generator per candidate (each position of a batch has its own, so draws do
// not depend on the threads), and a candidate draws a few dozen numbers. std::mt19937_64 fills
// its 312 words of state on seeding and twists all of them on the first draw: about 2,000
// cycles before the first number, 6% of a search's time on attention G1 / edge. This engine
// seeds and twists each word when a draw first needs it — the same operations in the same
// order, so the same numbers (tests/unit/rng_test.cpp compares them with std::mt19937_64's).
#include <cmath>
#include <cstdint>
#include <limits>

namespace dfx::mapper {

class Rng {
 public:
  using result_type = uint64_t;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }
  static constexpr result_type default_seed = 5489u;  // std::mt19937_64's

  explicit Rng(result_type seed = default_seed) { this->seed(seed); }
  // Words not yet seeded hold nothing: a copy would read them. Generators are not copied.
  Rng(const Rng&) = delete;
  Rng& operator=(const Rng&) = delete;
  void seed(result_type seed) {
    x_[0] = seed;
    seeded_ = 1;
    next_ = 0;
  }
  result_type operator()() {
    if (next_ == kWords) next_ = 0;
    if (seeded_ < kWords) seed_through(next_ + kShift < kWords ? next_ + kShift : kWords - 1);
    twist(next_);
    return temper(x_[next_++]);
  }

 private:
  static constexpr unsigned kWords = 312, kShift = 156;
  uint64_t x_[kWords];
  unsigned seeded_ = 0;  // words of the seeded state filled in (all of them after the first block)
  unsigned next_ = 0;    // the word the next draw twists and returns

  // The seeding recurrence up to word `last` (std::mersenne_twister_engine::seed).
  void seed_through(unsigned last) {
    for (; seeded_ <= last; ++seeded_) {
      const uint64_t prev = x_[seeded_ - 1];
      x_[seeded_] = 6364136223846793005ull * (prev ^ (prev >> 62)) + seeded_;
    }
  }
  // Word k of the next block from the words it depends on: k + 1 and k + 156 of this block where
  // they come later, of the next where they came earlier (k + 156 wraps, k + 1 wraps at the end).
  void twist(unsigned k) {
    constexpr uint64_t upper = ~uint64_t{0} << 31, lower = ~upper;
    const uint64_t y = (x_[k] & upper) | (x_[k + 1 == kWords ? 0 : k + 1] & lower);
    const uint64_t from = x_[k + kShift < kWords ? k + kShift : k + kShift - kWords];
    x_[k] = from ^ (y >> 1) ^ ((y & 1) ? 0xb5026f5aa96619e9ull : 0);
  }
  static uint64_t temper(uint64_t z) {
    z ^= (z >> 29) & 0x5555555555555555ull;
    z ^= (z << 17) & 0x71d67fffeda60000ull;
    z ^= (z << 37) & 0xfff7eee000000000ull;
    return z ^ (z >> 43);
  }
};

// A double in [0, 1) from one draw: std::generate_canonical<double, 53>'s value for this engine
// (the word scaled by 2^-64, rounded once, kept below 1), and so that of the uniform_real and
// bernoulli distributions, without the two long-double logarithms libstdc++ takes on every call
// (2% of a search's time; tests/unit/rng_test.cpp compares them).
template <class Engine = Rng>
double canonical(Engine& rng) {
  static_assert(Engine::min() == 0 && Engine::max() == ~uint64_t{0}, "an engine of 64-bit words");
  const double r = static_cast<double>(rng()) * 0x1p-64;
  return r < 1 ? r : std::nextafter(1.0, 0.0);
}

// True with probability `p`: std::bernoulli_distribution(p)(rng), draw for draw.
inline bool chance(Rng& rng, double p) { return canonical(rng) < p; }

}  // namespace dfx::mapper
