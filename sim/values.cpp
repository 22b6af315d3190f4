// Element types. Eigen's half and bfloat16 do the float rounding (round to nearest even).
#include "sim/values.h"

#include <Eigen/Core>
#include <algorithm>
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

double vector_result(arch::DType t, arch::VecOp op, double x, double y, int64_t imm) {
  using arch::VecOp;
  const bool integer = is_integer(t);
  if (!integer) x = static_cast<float>(x), y = static_cast<float>(y);
  switch (op) {
    case VecOp::Add: return x + y;
    case VecOp::Sub: return x - y;
    case VecOp::Mul: return x * y;
    case VecOp::Div: return integer ? (y == 0 ? 0 : std::trunc(x / y)) : static_cast<float>(x) / static_cast<float>(y);
    case VecOp::Max: return std::max(x, y);
    case VecOp::Min: return std::min(x, y);
    case VecOp::Exp: return integer ? std::trunc(std::exp(x)) : std::exp(static_cast<float>(x));
    case VecOp::Scale:
      return integer ? std::floor(x * static_cast<double>(imm) / 65536.0) : static_cast<float>(x) * (static_cast<float>(imm) / 65536.0f);
    default: return x;  // copy, cast
  }
}

double vector_store(arch::DType t, arch::VecOp op, double v) {
  if (!is_integer(t)) return to_storage(t, static_cast<double>(static_cast<float>(v)));
  return op == arch::VecOp::Cast ? to_storage(t, v) : to_accumulator(t, v);
}

double reduce_step(arch::DType t, arch::VecOp op, double acc, double v) {
  if (is_integer(t)) return op == arch::VecOp::RowMax ? std::max(acc, v) : acc + v;
  const auto fa = static_cast<float>(acc), fv = static_cast<float>(v);
  return op == arch::VecOp::RowMax ? std::max(fa, fv) : fa + fv;
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
