// Random input data (the rounding rules are inline in values.h).
#include "sim/values.h"

#include <random>

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

}  // namespace dfx::sim
