// Instruction timings (docs/simulator.md, "Timing model").
#include "sim/timing.h"

#include "arch/unit_costs.h"

#include <algorithm>
#include <cmath>

namespace dfx::sim {
namespace {
int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t words_per_cycle(double bytes_per_cycle, int word_bytes) {
  return std::max<int64_t>(1, static_cast<int64_t>(std::floor(bytes_per_cycle / word_bytes + 1e-9)));
}

bool reduces(const arch::Instruction& v) { return v.vop == arch::VecOp::RowSum || v.vop == arch::VecOp::RowMax; }
}  // namespace

int64_t transfer_bytes(const arch::Arch& a, const arch::Instruction& dma) {
  return dma.dst.elements() * a.levels[static_cast<size_t>(dma.dst.level)].word_bytes;
}

int64_t row_segments(const std::vector<const arch::MemRef*>& blocks, int64_t rate) {
  const int64_t row = blocks.front()->sizes.back(), total = blocks.front()->elements();
  const bool same_rows = std::all_of(blocks.begin(), blocks.end(), [&](const arch::MemRef* b) { return b->sizes.back() == row; });
  if (same_rows) return total / row * ceil_div(row, rate);
  // Rows of different lengths: walk the pieces.
  std::vector<int64_t> left;
  for (const arch::MemRef* b : blocks) left.push_back(b->sizes.back());
  int64_t pieces = 0;
  for (int64_t done = 0; done < total; ++pieces) {
    int64_t piece = rate;
    for (int64_t l : left) piece = std::min(piece, l);
    done += piece;
    for (size_t i = 0; i < left.size(); ++i)
      if ((left[i] -= piece) == 0) left[i] = blocks[i]->sizes.back();
  }
  return pieces;
}

int64_t dma_rate(const arch::Arch& a, const arch::Instruction& dma) {
  const auto& src = a.levels[static_cast<size_t>(dma.a.level)];
  const auto& dst = a.levels[static_cast<size_t>(dma.dst.level)];
  return std::min(words_per_cycle(src.read_bw, src.word_bytes), words_per_cycle(dst.write_bw, dst.word_bytes));
}

int64_t dma_stream_cycles(const arch::Arch& a, const arch::Instruction& dma) {
  const auto& src = a.levels[static_cast<size_t>(dma.a.level)];
  const auto& dst = a.levels[static_cast<size_t>(dma.dst.level)];
  if (src.row_port || dst.row_port) return row_segments({&dma.a, &dma.dst}, dma_rate(a, dma));
  return stream_cycles(transfer_bytes(a, dma), std::min(src.read_bw, dst.write_bw));
}

int64_t dma_cycles(const arch::Arch& a, const arch::Instruction& dma) {
  const auto& src = a.levels[static_cast<size_t>(dma.a.level)];
  const auto& dst = a.levels[static_cast<size_t>(dma.dst.level)];
  return arch::transfer_startup(src, dst) + dma_stream_cycles(a, dma);
}

int64_t stream_cycles(int64_t bytes, double bytes_per_cycle) {
  return static_cast<int64_t>(std::ceil(static_cast<double>(bytes) / bytes_per_cycle - 1e-9));
}

int64_t vec_rate(const arch::Arch& a, const arch::ComputeUnit& u, const arch::Instruction& v) {
  return arch::vector_rate(u, a.levels[static_cast<size_t>(v.a.level)], v.b.level >= 0 ? 2 : 1);
}

int64_t vec_cycles(const arch::Arch& a, const arch::ComputeUnit& u, const arch::Instruction& v) {
  const int64_t depth = arch::vector_depth(v.vop, u.pes_per_instance);
  if (!a.levels[static_cast<size_t>(v.a.level)].row_port)
    return ceil_div(std::max(v.dst.elements(), v.a.elements()), u.pes_per_instance) + depth + 1;
  const int64_t rate = vec_rate(a, u, v);
  std::vector<const arch::MemRef*> walked = {&v.a};
  if (!reduces(v)) {
    walked.push_back(&v.dst);
    if (v.b.level >= 0) walked.push_back(&v.b);
  }
  return row_segments(walked, rate) + depth + 1;
}

}  // namespace dfx::sim
