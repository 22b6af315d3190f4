#pragma once
// Lowering: a tile tree becomes one program per core (docs/lowering.md). Loops above each
// operator's on-chip tile become program loops; the tile itself becomes one matrix or vector
// instruction; tensors move in and out by dma at the outermost loop where their slice changes;
// flags order the pipes (a fill before its readers, readers before the next fill).
#include <string>
#include <vector>

#include "arch/arch.h"
#include "arch/isa.h"
#include "model/dataflow.h"
#include "model/workload.h"

namespace dfx::mapper {

struct Lowered {
  std::vector<arch::Program> programs;  // one per core used
  std::string text;                     // core 0's program as assembly, with a header comment
};

// The element type a workload's programs default to: fp16 when an operator needs exp or a
// division (softmax), int16 otherwise.
arch::DType default_dtype(const model::Workload& w);

// Contract: returns checked programs (arch::check_program passes) or throws InputError naming
// the part of the dataflow the lowering cannot express (a factor that does not divide its
// extent, an operator with more than one vector operation, buffers beyond a level's capacity…).
Lowered lower(const arch::Arch& a, const model::Workload& w, const model::Dataflow& f, arch::DType dtype);

// Whether lower() succeeds, at the cost of two cores' programs: the first (it runs every
// operator, so its buffers are the largest) and the last (its DRAM addresses reach furthest);
// the cores between differ from them only in their addresses and in operators they skip.
// Contract: throws what lower() would, else returns.
void check_lowering(const arch::Arch& a, const model::Workload& w, const model::Dataflow& f, arch::DType dtype);

}  // namespace dfx::mapper
