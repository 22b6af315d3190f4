// Random input data (the rounding rules are inline in values.h).
#include "sim/values.h"

#include <random>
#include <charconv>

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
  // The shortest form that reads back as v (0.1, not 0.10000000000000001), in plain digits
  // where they are not many (100000, not 1e+05).
  char text[400];
  const bool plain = std::fabs(v) >= 1e-4 && std::fabs(v) < 1e15;
  const std::string said(text, std::to_chars(text, text + sizeof text, v, plain ? std::chars_format::fixed : std::chars_format::scientific).ptr);
  if (std::isnan(v)) return "is NaN";
  if (std::isinf(v)) return "is " + said;
  if (is_integer(t)) {
    if (v != std::floor(v)) return "is " + said + ", not a whole number (the programs' type is int16)";
    if (v < -32768 || v > 32767) return "is " + said + ", outside int16's range [-32768, 32767]";
    return "";
  }
  if (std::isinf(to_storage(t, v)))
    return "is " + said + ", beyond " + arch::dtype_name(t) + "'s range (it would be stored as infinity)";
  return "";
}

}  // namespace dfx::sim
