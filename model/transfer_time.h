#pragma once
// How long one buffer activation's transfer takes (docs/semantics.md, "Latency"). Internal to
// model/ (the fast walk uses it).
#include <algorithm>
#include <cstdint>

#include "arch/arch.h"
#include "arch/unit_costs.h"
#include "model/divide.h"

namespace dfx::model {

struct TransferTime {
  double cycles = 0;
  double port = 0;  // the source's share when the source is the root level (the DRAM port)
  // Of `cycles`, the root's latency and issue when the transfer's own pieces on the root's port
  // take longer than that: then the loads and the stores of cores that run one program collide
  // on the port every round instead of taking turns in each other's waits (Time::cycles_decoupled).
  double colliding_wait = 0;
};

// The source sends `shared` elements (what the merged instances need), the buffer at `level`
// takes `fresh`; the slower end decides. A `port: row` end moves one piece of a row of `row`
// elements per cycle (the slice's innermost dimension, as the lowering lays tiles out), any other
// end streams bytes at its bandwidth. A transfer a program issues (into a level it addresses)
// also waits for its source's latency and takes its issue and last-write cycles. Inline: the
// closed form asks it for every buffer it fills and every operand of a nest's later steps.
inline TransferTime transfer_time(const arch::Arch& a, int source, int level, bool write, int64_t row, int64_t fresh, int64_t shared) {
  TransferTime t;
  if (fresh == 0 && shared == 0) return t;
  const auto& src = a.levels[static_cast<size_t>(source)];
  const auto& dst = a.levels[static_cast<size_t>(level)];
  // Each end moves its elements at its own word size: a level may hold a tensor in wider or
  // narrower words than the one it is filled from (the report's bytes count them so too).
  const double src_wb = src.word_bytes, dst_wb = dst.word_bytes;
  const double src_bw = write ? src.write_bw : src.read_bw, dst_bw = write ? dst.read_bw : dst.write_bw;
  const auto words = [](double bw, double wb) { return std::max<int64_t>(1, static_cast<int64_t>(bw / wb + 1e-9)); };
  const int64_t rate = std::min(words(src_bw, src_wb), words(dst_bw, dst_wb));
  row = std::max<int64_t>(1, row);
  const auto pieces = [&](int64_t n) { return static_cast<double>(divide(n + row - 1, row) * divide(row + rate - 1, rate)); };
  const double at_src = src.row_port ? pieces(shared) : static_cast<double>(shared) * src_wb / src_bw;
  const double at_dst = dst.row_port ? pieces(fresh) : static_cast<double>(fresh) * dst_wb / dst_bw;
  t.cycles = std::max(at_src, at_dst);
  if (src.parent < 0) t.port = at_src;
  if (fresh > 0 && a.addressable(level)) {
    const double startup = static_cast<double>(arch::transfer_startup(src, dst) + arch::kIssueCycles);
    t.cycles += startup;
    if (src.parent < 0 && at_src > startup) t.colliding_wait = startup;
  }
  return t;
}


}  // namespace dfx::model
