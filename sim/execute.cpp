// Functional semantics (docs/simulator.md, "Values"): integers are exact and wrap, floats compute
// in fp32 and round to the storage type when a vector result is written.
#include "sim/execute.h"

#include <algorithm>
#include <cmath>

#include "sim/values.h"

namespace dfx::sim {

void Executor::run(const arch::Instruction& i, const LoopIndex& idx, Memories& m) {
  block_addresses(i.dst, idx, dst_);
  block_addresses(i.a, idx, a_);
  if (i.b.level >= 0) block_addresses(i.b, idx, b_);
  switch (i.op) {
    case arch::Opcode::Dma: {
      // Read everything first: source and destination may overlap.
      result_.resize(a_.size());
      for (size_t e = 0; e < a_.size(); ++e) result_[e] = m.at(i.a.level, a_[e]);
      for (size_t e = 0; e < dst_.size(); ++e) m.at(i.dst.level, dst_[e]) = result_[e];
      break;
    }
    case arch::Opcode::Mma: mma(i, arch::accumulates(i, idx), m); break;
    case arch::Opcode::Vec: vec(i, m); break;
    default: break;
  }
}

void Executor::mma(const arch::Instruction& i, bool accumulate, Memories& m) {
  const auto M = static_cast<size_t>(i.a.sizes[0]), K = static_cast<size_t>(i.a.sizes[1]), N = static_cast<size_t>(i.b.sizes[1]);
  result_.assign(M * N, 0.0);
  const bool integer = is_integer(type_);
  for (size_t r = 0; r < M; ++r)
    for (size_t c = 0; c < N; ++c) {
      double acc = accumulate ? m.at(i.dst.level, dst_[r * N + c]) : 0.0;
      float facc = static_cast<float>(acc);
      for (size_t k = 0; k < K; ++k) {
        const double x = to_operand(type_, m.at(i.a.level, a_[r * K + k]));
        const double y = to_operand(type_, m.at(i.b.level, b_[k * N + c]));
        if (integer) acc += x * y;  // exact: |x·y| < 2^31, K < 2^20
        else facc += static_cast<float>(x) * static_cast<float>(y);
      }
      result_[r * N + c] = to_accumulator(type_, integer ? acc : static_cast<double>(facc));
    }
  for (size_t e = 0; e < result_.size(); ++e) m.at(i.dst.level, dst_[e]) = result_[e];
}

double Executor::elementwise(arch::VecOp op, double x, double y, int64_t imm) const {
  using arch::VecOp;
  const bool integer = is_integer(type_);
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

void Executor::vec(const arch::Instruction& i, Memories& m) {
  using arch::VecOp;
  const bool integer = is_integer(type_);
  // Integers keep accumulator width through vector ops; only cast narrows them.
  auto store = [&](double v) {
    if (i.vop == VecOp::Cast || !integer) return to_storage(type_, integer ? v : static_cast<double>(static_cast<float>(v)));
    return to_accumulator(type_, v);
  };
  if (i.vop == VecOp::RowSum || i.vop == VecOp::RowMax) {
    const auto rows = static_cast<size_t>(i.a.sizes[0]), cols = static_cast<size_t>(i.a.sizes[1]);
    result_.assign(rows, 0.0);
    for (size_t r = 0; r < rows; ++r) {
      double acc = m.at(i.a.level, a_[r * cols]);
      float facc = static_cast<float>(acc);
      for (size_t c = 1; c < cols; ++c) {
        const double v = m.at(i.a.level, a_[r * cols + c]);
        if (i.vop == VecOp::RowMax) acc = std::max(acc, v), facc = std::max(facc, static_cast<float>(v));
        else acc += v, facc += static_cast<float>(v);
      }
      result_[r] = store(integer ? acc : static_cast<double>(facc));
    }
  } else {
    result_.resize(dst_.size());
    for (size_t e = 0; e < dst_.size(); ++e) {
      const double y = i.b.level >= 0 ? m.at(i.b.level, b_[e]) : 0.0;
      result_[e] = store(elementwise(i.vop, m.at(i.a.level, a_[e]), y, i.imm));
    }
  }
  for (size_t e = 0; e < dst_.size(); ++e) m.at(i.dst.level, dst_[e]) = result_[e];
}

}  // namespace dfx::sim
