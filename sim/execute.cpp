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
      const std::vector<double>& src = m.level(i.a.level);
      result_.resize(a_.size());
      for (size_t e = 0; e < a_.size(); ++e) result_[e] = src[static_cast<size_t>(a_[e])];
      std::vector<double>& dst = m.level(i.dst.level);
      for (size_t e = 0; e < dst_.size(); ++e) dst[static_cast<size_t>(dst_[e])] = result_[e];
      break;
    }
    case arch::Opcode::Mma: mma(i, arch::accumulates(i, idx), m); break;
    case arch::Opcode::Vec: vec(i, m); break;
    default: break;
  }
}

// Operands are gathered into dense matrices and multiplied by Eigen: in double for integers
// (exact: |products| < 2^31 and K < 2^20 keep every sum below 2^53), in float for floats.
void Executor::mma(const arch::Instruction& i, bool accumulate, Memories& m) {
  const auto M = static_cast<Eigen::Index>(i.a.sizes[0]), K = static_cast<Eigen::Index>(i.a.sizes[1]),
             N = static_cast<Eigen::Index>(i.b.sizes[1]);
  const std::vector<double>& va = m.level(i.a.level);
  const std::vector<double>& vb = m.level(i.b.level);
  std::vector<double>& vc = m.level(i.dst.level);
  auto gather = [&](auto& mat, const std::vector<double>& v, const std::vector<int64_t>& addr, Eigen::Index rows, Eigen::Index cols) {
    mat.resize(rows, cols);
    for (Eigen::Index r = 0; r < rows; ++r)
      for (Eigen::Index c = 0; c < cols; ++c)
        mat(r, c) = static_cast<typename std::decay_t<decltype(mat)>::Scalar>(to_operand(type_, v[static_cast<size_t>(addr[static_cast<size_t>(r * cols + c)])]));
  };
  if (is_integer(type_)) {
    gather(ad_, va, a_, M, K), gather(bd_, vb, b_, K, N);
    cd_.noalias() = ad_ * bd_;
    for (Eigen::Index r = 0; r < M; ++r)
      for (Eigen::Index c = 0; c < N; ++c) {
        double& out = vc[static_cast<size_t>(dst_[static_cast<size_t>(r * N + c)])];
        out = to_accumulator(type_, (accumulate ? out : 0.0) + cd_(r, c));
      }
  } else {
    gather(af_, va, a_, M, K), gather(bf_, vb, b_, K, N);
    cf_.noalias() = af_ * bf_;
    for (Eigen::Index r = 0; r < M; ++r)
      for (Eigen::Index c = 0; c < N; ++c) {
        double& out = vc[static_cast<size_t>(dst_[static_cast<size_t>(r * N + c)])];
        out = static_cast<double>((accumulate ? static_cast<float>(out) : 0.0f) + cf_(r, c));
      }
  }
}

void Executor::vec(const arch::Instruction& i, Memories& m) {
  using arch::VecOp;
  if (i.vop == VecOp::RowSum || i.vop == VecOp::RowMax) {
    const auto rows = static_cast<size_t>(i.a.sizes[0]), cols = static_cast<size_t>(i.a.sizes[1]);
    result_.assign(rows, 0.0);
    const std::vector<double>& src = m.level(i.a.level);
    for (size_t r = 0; r < rows; ++r) {
      double acc = src[static_cast<size_t>(a_[r * cols])];
      for (size_t c = 1; c < cols; ++c) acc = reduce_step(type_, i.vop, acc, src[static_cast<size_t>(a_[r * cols + c])]);
      result_[r] = vector_store(type_, i.vop, acc);
    }
  } else {
    const std::vector<double>& x = m.level(i.a.level);
    const std::vector<double>* y = i.b.level >= 0 ? &m.level(i.b.level) : nullptr;
    result_.resize(dst_.size());
    for (size_t e = 0; e < dst_.size(); ++e) {
      const double ye = y ? (*y)[static_cast<size_t>(b_[e])] : 0.0;
      result_[e] = vector_store(type_, i.vop, vector_result(type_, i.vop, x[static_cast<size_t>(a_[e])], ye, i.imm));
    }
  }
  std::vector<double>& dst = m.level(i.dst.level);
  for (size_t e = 0; e < dst_.size(); ++e) dst[static_cast<size_t>(dst_[e])] = result_[e];
}

}  // namespace dfx::sim
