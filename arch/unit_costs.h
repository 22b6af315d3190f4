#pragma once
// The fixed costs of one instruction, whatever its size: what the SystemC model charges on top
// of streaming (sim/timing.h) and what the analytical model adds per instruction and per
// transfer (model/walk.cpp). Calibrated to the RTL core (docs/rtl.md).
#include <cstdint>

#include "arch/arch.h"
#include "arch/isa.h"

namespace dfx::arch {

// The cycle a unit instruction spends leaving its queue for its unit.
constexpr int64_t kIssueCycles = 1;

// Instructions each pipe's queue holds before the in-order dispatcher stalls (rtl/core/pipe_queue.sv).
constexpr int64_t kQueueDepth = 8;

// A systolic R×C array fills for R and drains for C cycles around its blocks; a cube's pipeline
// is m0 + n0 deep.
int64_t matrix_fill_drain(const ComputeUnit& u);

// One mma of m×n×k on the unit. A systolic R×C array: per R×C block of the output max(k, R)
// cycles (k operands stream in while the previous block drains its R rows), plus the fill and
// drain of the last block. A cube m0×n0×k0: one block product per cycle plus its pipeline.
int64_t mma_cycles(const ComputeUnit& u, int64_t m, int64_t n, int64_t k);

// Pipeline depth of a vector op: reductions add a tree over the lanes; exp and div are
// iterative units (rtl/core/vector_unit.sv).
int64_t vector_depth(VecOp op, int64_t lanes);

// Elements per cycle of a vector op: its lanes, or fewer when its operands' read port (of the
// level they are in, in words) is narrower than lanes × sources.
int64_t vector_rate(const ComputeUnit& u, const MemoryLevel& operands, int sources);

// A vector op walking `rows` rows of `row` elements alone: on a `port: row` level one row piece of
// at most vector_rate elements per cycle, otherwise ⌈elements / lanes⌉ passes; then the op's
// pipeline depth and a cycle to finish.
int64_t vector_op_cycles(const ComputeUnit& u, const MemoryLevel& operands, VecOp op, int sources, int64_t rows, int64_t row);

// What a transfer costs beyond streaming its data: the latency of its slower end and a cycle to
// write the last piece.
int64_t transfer_startup(const MemoryLevel& src, const MemoryLevel& dst);

}  // namespace dfx::arch
