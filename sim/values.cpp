// Element types. Eigen's half and bfloat16 do the float rounding (round to nearest even).
#include "sim/values.h"

#include <Eigen/Core>
#include <cmath>
#include <random>

namespace dfx::sim {

bool is_integer(arch::DType t) { return t == arch::DType::Int16; }

namespace {
// Two's-complement wrap to `bits`; NaN or out-of-range values (x / 0) become 0.
double wrap(double v, int bits) {
  if (!std::isfinite(v) || std::fabs(v) > 9e18) return 0;
  const auto x = static_cast<uint64_t>(static_cast<int64_t>(v));
  const uint64_t mask = (uint64_t{1} << bits) - 1, sign = uint64_t{1} << (bits - 1);
  const uint64_t low = x & mask;
  return static_cast<double>(static_cast<int64_t>(low ^ sign) - static_cast<int64_t>(sign));
}
}  // namespace

double to_storage(arch::DType t, double v) {
  switch (t) {
    case arch::DType::Int16: return wrap(v, 16);
    case arch::DType::Fp16: return static_cast<double>(static_cast<float>(Eigen::half(static_cast<float>(v))));
    case arch::DType::Bf16: return static_cast<double>(static_cast<float>(Eigen::bfloat16(static_cast<float>(v))));
  }
  return v;
}

double to_accumulator(arch::DType t, double v) {
  return is_integer(t) ? wrap(v, 32) : static_cast<double>(static_cast<float>(v));
}

std::vector<double> random_values(arch::DType t, int64_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> out(static_cast<size_t>(count));
  if (is_integer(t)) {
    std::uniform_int_distribution<int> d(-8, 7);
    for (double& v : out) v = d(rng);
  } else {
    std::uniform_real_distribution<double> d(-1.0, 1.0);
    for (double& v : out) v = to_storage(t, d(rng));
  }
  return out;
}

}  // namespace dfx::sim
