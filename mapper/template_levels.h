#pragma once
// Which memory levels the mapper's template (mapper/space.h) puts its tiles in, read off the arch:
// one buffer that holds every operand (edge, cloud, tpu_like), or, on archs that split operand
// roles across levels (ascend_like: L1 → L0A/L0B for the cube, L0C for its results, UB for the
// vector unit), the staging levels around the units' own operand levels.
#include <vector>

#include "arch/arch.h"

namespace dfx::mapper {

struct TemplateLevels {
  std::vector<int> group;      // a fused group's tile: where its intermediates live
  std::vector<int> matrix_op;  // a matrix op's innermost tile (its operands, side by side)
  std::vector<int> vector_op;  // a vector op's tile
  int matrix_staging = -1;     // role-split archs: the level the cube's inputs stage through (L1)
  int registers = -1;          // per-PE level under a matrix op's tile, if any
  // On-chip levels one per chip above the group's tile (cloud's L2), holding every role: where
  // an op's output may wait for the ops of later groups instead of DRAM (Choice::home).
  std::vector<int> handover;

};

// Throws InputError (at the arch's levels) when no level can hold an operand of a unit the
// workload uses (`matrix`, `vector`).
TemplateLevels template_levels(const arch::Arch& a, bool matrix, bool vector);

}  // namespace dfx::mapper
