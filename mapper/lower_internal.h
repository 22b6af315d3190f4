#pragma once
// Lowering internals: the program skeleton mirrors the tile tree (a Group per tree node, a Loop
// per temporal loop above an operator's on-chip tile, a Compute per operator); planning then
// attaches transfers, flags and instructions to the skeleton's items (docs/lowering.md).
#include <map>
#include <vector>

#include "arch/isa.h"
#include "mapper/lower.h"

namespace dfx::mapper::lowering {

struct Item {
  enum class Kind { Group, Loop, Compute };
  Kind kind = Kind::Group;
  int node = -1;                // Group: the tree node
  int dim = -1;                 // Loop: the dimension it walks
  int64_t count = 1, chunk = 1; // Loop: iterations; extent of its dim inside one iteration
  bool on_cores = false;        // Loop: a spatial loop of a DRAM tile, run by `count` cores at once
  int op = -1;                  // Compute: the operator
  std::vector<int64_t> block;   // Compute: extent of every dim one instruction covers
  std::vector<Item> body;
  std::vector<arch::Instruction> before, code, after;  // emitted around / as the item
};

struct Skeleton {
  Item root;
  int64_t cores = 1;  // the most cores any operator's on-core loops spread over
  std::vector<int> instruction_tile;  // per op: the tree node whose tile becomes its instruction
};

Skeleton build_skeleton(const arch::Arch& a, const model::Workload& w, const model::Dataflow& f);

// The skeleton's instructions in program order (mapper/lower_skeleton.cpp).
void flatten(const Item& it, std::vector<arch::Instruction>& out);

// Attaches transfers, instructions, flags and barriers for one core and returns its program: the
// flags' initial tokens, then the skeleton in order, then halt. A core skips the operators whose
// on-core loops spread over fewer cores than its number.
arch::Program plan_program(const arch::Arch& a, const model::Workload& w, const model::Dataflow& f, Skeleton s,
                           int64_t core, arch::DType dtype);

// Moves every instruction of a pipe that loads from DRAM up in the dispatch order, as far as
// the previous instruction of its pipe, its loop's start or a barrier (a wait stops at a set of
// its own counter): the in-order dispatcher stalls on a full queue (the vector unit's softmax
// chain), and loads placed after it in the program started only once that queue drained,
// although their buffers were free (mapper/lower_hoist.cpp).
void hoist_loads(std::vector<arch::Instruction>& code, const arch::Arch& a);

}  // namespace dfx::mapper::lowering
