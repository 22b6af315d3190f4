#pragma once
// What a value becomes when a unit writes it: the rounding and wrapping rules of each element
// type, shared by the simulator, its reference checks and (later) the RTL (docs/simulator.md).
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "arch/isa.h"

namespace dfx::sim {

inline bool is_integer(arch::DType t) { return t == arch::DType::Int16; }

namespace detail {
// Two's-complement wrap to `bits`; NaN or out-of-range values (x / 0) become 0.
inline double wrap(double v, int bits) {
  if (!std::isfinite(v) || std::fabs(v) > 9e18) return 0;
  const auto x = static_cast<uint64_t>(static_cast<int64_t>(v));
  const uint64_t mask = (uint64_t{1} << bits) - 1, sign = uint64_t{1} << (bits - 1);
  const uint64_t low = x & mask;
  return static_cast<double>(static_cast<int64_t>(low ^ sign) - static_cast<int64_t>(sign));
}
}  // namespace detail

// The storage type: int16 wraps to 16 bits, fp16/bf16 round to nearest even (Eigen's half and
// bfloat16). Inline: the simulator calls these for every element.
inline double to_storage(arch::DType t, double v) {
  switch (t) {
    case arch::DType::Int16: return detail::wrap(v, 16);
    case arch::DType::Fp16: return static_cast<double>(static_cast<float>(Eigen::half(static_cast<float>(v))));
    case arch::DType::Bf16: return static_cast<double>(static_cast<float>(Eigen::bfloat16(static_cast<float>(v))));
  }
  return v;
}

// Why `v` cannot be an input value of type `t` ("" when it can): NaN and infinities never can;
// int16 takes whole numbers in [-32768, 32767]; fp16 and bf16 take any finite value within the
// type's range, rounded to it. Storing such a value would silently change it: to_storage()
// wraps integers and turns NaN into 0 (what a unit's result must do, not what data given as
// input should).
std::string input_value_problem(arch::DType t, double v);

// The accumulator type: int32 (wrapping) for int16 data, fp32 for floats.
inline double to_accumulator(arch::DType t, double v) {
  return is_integer(t) ? detail::wrap(v, 32) : static_cast<double>(static_cast<float>(v));
}

// A matrix-unit operand: the low 16 bits for integers, the storage rounding for floats.
inline double to_operand(arch::DType t, double v) { return to_storage(t, v); }

// A vector op on one element (y is the second source, imm the scale), before storage: exact
// for integers (division truncates, x / 0 = 0), fp32 for floats.
inline double vector_result(arch::DType t, arch::VecOp op, double x, double y, int64_t imm) {
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

// What a vector result becomes in memory: integers keep accumulator width (only cast narrows
// them to int16); floats round to the storage type.
inline double vector_store(arch::DType t, arch::VecOp op, double v) {
  if (!is_integer(t)) return to_storage(t, static_cast<double>(static_cast<float>(v)));
  return op == arch::VecOp::Cast ? to_storage(t, v) : to_accumulator(t, v);
}

// A row reduction's running value after one more element (fp32 for floats).
inline double reduce_step(arch::DType t, arch::VecOp op, double acc, double v) {
  if (is_integer(t)) return op == arch::VecOp::RowMax ? std::max(acc, v) : acc + v;
  const auto fa = static_cast<float>(acc), fv = static_cast<float>(v);
  return op == arch::VecOp::RowMax ? std::max(fa, fv) : fa + fv;
}

// Random data for an input: integers in [-8, 7], floats in [-1, 1) rounded to the type.
std::vector<double> random_values(arch::DType t, int64_t count, uint64_t seed);

}  // namespace dfx::sim
