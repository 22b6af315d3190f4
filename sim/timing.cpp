// Instruction timings (docs/simulator.md, "Timing model").
#include "sim/timing.h"

#include <algorithm>
#include <cmath>

namespace dfx::sim {
namespace {
int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Pipeline depth of a vector op: reductions add a tree over the lanes; exp and div are
// iterative units (assumed until the RTL calibrates them).
int64_t vec_depth(arch::VecOp op, int64_t lanes) {
  using arch::VecOp;
  if (op == VecOp::RowSum || op == VecOp::RowMax) {
    int64_t tree = 0;
    while ((int64_t{1} << tree) < lanes) ++tree;
    return 4 + tree;
  }
  if (op == VecOp::Exp || op == VecOp::Div) return 12;
  return 4;
}
}  // namespace

int64_t transfer_bytes(const arch::Arch& a, const arch::Instruction& dma) {
  return dma.dst.elements() * a.levels[static_cast<size_t>(dma.dst.level)].word_bytes;
}

int64_t stream_cycles(int64_t bytes, double bytes_per_cycle) {
  return static_cast<int64_t>(std::ceil(static_cast<double>(bytes) / bytes_per_cycle - 1e-9));
}

int64_t dma_cycles(const arch::Arch& a, const arch::Instruction& dma) {
  const auto& src = a.levels[static_cast<size_t>(dma.a.level)];
  const auto& dst = a.levels[static_cast<size_t>(dma.dst.level)];
  return std::max(src.latency, dst.latency) + stream_cycles(transfer_bytes(a, dma), std::min(src.read_bw, dst.write_bw));
}

int64_t mma_cycles(const arch::ComputeUnit& u, int64_t m, int64_t n, int64_t k) {
  if (u.shape.size() == 3) {
    const int64_t m0 = u.shape[0], n0 = u.shape[1], k0 = u.shape[2];
    return ceil_div(m, m0) * ceil_div(n, n0) * ceil_div(k, k0) + m0 + n0;
  }
  const int64_t rows = u.shape.size() == 2 ? u.shape[0] : 1, cols = u.shape.size() == 2 ? u.shape[1] : u.pes_per_instance;
  // Consecutive blocks pipeline: while one block streams its k operands, the previous block's
  // results drain through shadow accumulators, one row per cycle.
  const int64_t blocks = ceil_div(m, rows) * ceil_div(n, cols);
  return (rows + cols - 2) + blocks * std::max(k, rows) + rows;
}

int64_t vec_cycles(const arch::ComputeUnit& u, const arch::Instruction& v) {
  const int64_t elements = std::max(v.dst.elements(), v.a.elements());
  return ceil_div(elements, u.pes_per_instance) + vec_depth(v.vop, u.pes_per_instance);
}

}  // namespace dfx::sim
