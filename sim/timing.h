#pragma once
// How long each instruction takes when nothing else is in its way (docs/simulator.md): the
// simulator adds waiting for flags and for the shared DRAM port on top. Calibrated to the RTL
// core (docs/rtl.md): an instruction takes one cycle to issue from its queue, a flag operation
// occupies its pipe for a cycle, and units reading levels with `port: row` stream one row
// segment per cycle.
#include <cstdint>
#include <vector>

#include "arch/arch.h"
#include "arch/isa.h"
#include "arch/unit_costs.h"

namespace dfx::sim {

using arch::kIssueCycles;

// Bytes a transfer moves (the destination level's word size times its elements).
int64_t transfer_bytes(const arch::Arch& a, const arch::Instruction& dma);
// Cycles to stream `bytes` at `bytes_per_cycle`: ⌈bytes / bw⌉.
int64_t stream_cycles(int64_t bytes, double bytes_per_cycle);
// Cycles for walking blocks of equal element count together, a piece per cycle: each piece is
// at most `rate` elements and never crosses the end of an innermost row of any block (the RTL's
// block walkers). Blocks of one shape take rows · ⌈row / rate⌉.
int64_t row_segments(const std::vector<const arch::MemRef*>& blocks, int64_t rate);
// Elements per cycle of a transfer: the narrower of the source's read and the destination's
// write port, in words (at least 1).
int64_t dma_rate(const arch::Arch& a, const arch::Instruction& dma);
// Cycles a transfer spends streaming: with a `port: row` end, one row piece per cycle
// (row_segments at dma_rate; on a row-port DRAM each piece is a request taking the port for a
// cycle); otherwise ⌈bytes / narrower bandwidth⌉.
int64_t dma_stream_cycles(const arch::Arch& a, const arch::Instruction& dma);
// A transfer alone: streaming, the latency of its slower end, and a cycle to write the last
// piece.
int64_t dma_cycles(const arch::Arch& a, const arch::Instruction& dma);
using arch::mma_cycles;

// Elements per cycle of a vector op: its lanes, or fewer when the operands' read port (of the
// first source's level, in words) is narrower than lanes × sources.
int64_t vec_rate(const arch::Arch& a, const arch::ComputeUnit& u, const arch::Instruction& v);
// The vector unit: its passes, the op's pipeline depth, and a cycle to finish. Operands in a
// `port: row` level: one row segment per cycle at vec_rate (reductions walk their source only);
// otherwise ⌈elements / lanes⌉ passes, the ports' bandwidth charged apart.
int64_t vec_cycles(const arch::Arch& a, const arch::ComputeUnit& u, const arch::Instruction& v);

}  // namespace dfx::sim
