// Random input data (the rounding rules are inline in values.h).
#include "sim/values.h"

#include <random>
#include <sstream>

namespace dfx::sim {

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

std::string input_value_problem(arch::DType t, double v) {
  std::ostringstream said;
  said.precision(17);
  said << v;
  if (std::isnan(v)) return "is NaN";
  if (std::isinf(v)) return "is " + said.str();
  if (is_integer(t)) {
    if (v != std::floor(v)) return "is " + said.str() + ", not a whole number (the programs' type is int16)";
    if (v < -32768 || v > 32767) return "is " + said.str() + ", outside int16's range [-32768, 32767]";
    return "";
  }
  if (std::isinf(to_storage(t, v)))
    return "is " + said.str() + ", beyond " + arch::dtype_name(t) + "'s range (it would be stored as infinity)";
  return "";
}

}  // namespace dfx::sim
