// Fixed instruction costs (docs/simulator.md, "Timing model").
#include "arch/unit_costs.h"

#include <algorithm>

namespace dfx::arch {

int64_t matrix_fill_drain(const ComputeUnit& u) {
  if (u.shape.size() == 3) return u.shape[0] + u.shape[1];
  const int64_t rows = u.shape.size() == 2 ? u.shape[0] : 1;
  const int64_t cols = u.shape.size() == 2 ? u.shape[1] : u.pes_per_instance;
  return rows + cols;
}

int64_t mma_cycles(const ComputeUnit& u, int64_t m, int64_t n, int64_t k) {
  auto ceil_div = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
  if (u.shape.size() == 3) return ceil_div(m, u.shape[0]) * ceil_div(n, u.shape[1]) * ceil_div(k, u.shape[2]) + matrix_fill_drain(u);
  const int64_t rows = u.shape.size() == 2 ? u.shape[0] : 1;
  const int64_t cols = u.shape.size() == 2 ? u.shape[1] : u.pes_per_instance;
  return ceil_div(m, rows) * ceil_div(n, cols) * std::max(k, rows) + matrix_fill_drain(u);
}

int64_t vector_depth(VecOp op, int64_t lanes) {
  if (op == VecOp::RowSum || op == VecOp::RowMax) {
    int64_t tree = 0;
    while ((int64_t{1} << tree) < lanes) ++tree;
    return 4 + tree;
  }
  if (op == VecOp::Exp || op == VecOp::Div) return 12;
  return 4;
}

int64_t vector_rate(const ComputeUnit& u, const MemoryLevel& operands, int sources) {
  const int64_t words = std::max<int64_t>(1, static_cast<int64_t>(operands.read_bw / operands.word_bytes + 1e-9));
  return std::max<int64_t>(1, std::min(u.pes_per_instance, words / sources));
}

int64_t vector_op_cycles(const ComputeUnit& u, const MemoryLevel& operands, VecOp op, int sources, int64_t rows, int64_t row) {
  const int64_t rate = vector_rate(u, operands, sources);
  const int64_t passes = operands.row_port ? rows * ((row + rate - 1) / rate) : (rows * row + u.pes_per_instance - 1) / u.pes_per_instance;
  return passes + vector_depth(op, u.pes_per_instance) + 1;
}

int64_t transfer_startup(const MemoryLevel& src, const MemoryLevel& dst) {
  return std::max(src.latency, dst.latency) + 1;
}

}  // namespace dfx::arch
