#pragma once
// How long each instruction takes when nothing else is in its way (docs/simulator.md): the
// simulator adds waiting for flags and for the shared DRAM port on top.
#include <cstdint>

#include "arch/arch.h"
#include "arch/isa.h"

namespace dfx::sim {

// Bytes a transfer moves (the destination level's word size times its elements).
int64_t transfer_bytes(const arch::Arch& a, const arch::Instruction& dma);
// Cycles to stream `bytes` at `bytes_per_cycle`: ⌈bytes / bw⌉.
int64_t stream_cycles(int64_t bytes, double bytes_per_cycle);
// A transfer alone: the latency of its slower end plus streaming at the narrower of the source's
// read and the destination's write bandwidth.
int64_t dma_cycles(const arch::Arch& a, const arch::Instruction& dma);
// A systolic R×C array: fill (R+C−2), then per R×C block of the output max(k, R) cycles (k
// operands stream in while the previous block drains its R rows), then the last drain (R).
// A cube m0×n0×k0: one block product per cycle plus a pipeline of m0+n0 cycles.
int64_t mma_cycles(const arch::ComputeUnit& u, int64_t m, int64_t n, int64_t k);
// The vector unit: one pass of `lanes` elements per cycle plus the op's pipeline depth.
int64_t vec_cycles(const arch::ComputeUnit& u, const arch::Instruction& v);

}  // namespace dfx::sim
