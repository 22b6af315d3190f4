// Loads moved up in the dispatch order (docs/lowering.md, "Loads first").
#include <algorithm>
#include <cstddef>

#include "mapper/lower_internal.h"

namespace dfx::mapper::lowering {
namespace {

// The pipe that runs an instruction: a flag's set runs in its source, its wait in its target.
arch::Pipe runs_on(const arch::Instruction& i, const arch::Arch& a) {
  if (i.op == arch::Opcode::SetFlag) return i.from;
  if (i.op == arch::Opcode::WaitFlag) return i.to;
  return arch::pipe_of(i, a);
}

// Whether `later` (on pipe p) may be dispatched before `earlier`. Each pipe keeps its own order,
// loops and barriers stay where they are, and a wait stays behind every set of its own counter:
// then every wait's matching set is still dispatched before it, so the earliest unfinished
// instruction can always run and the program cannot deadlock on a full queue.
bool may_pass(const arch::Instruction& earlier, const arch::Instruction& later, arch::Pipe p, const arch::Arch& a) {
  switch (earlier.op) {
    case arch::Opcode::Loop:
    case arch::Opcode::EndLoop:
    case arch::Opcode::Barrier:
    case arch::Opcode::Halt: return false;
    default: break;
  }
  if (runs_on(earlier, a) == p) return false;
  const bool same_counter = earlier.op == arch::Opcode::SetFlag && later.op == arch::Opcode::WaitFlag && earlier.from == later.from &&
                            earlier.to == later.to && earlier.event == later.event;
  return !same_counter;
}

// Where code[k] may go above a whole inner loop that ends at code[end] (its `loop`), or k itself
// when it may not pass every instruction inside: it stays at the same loop depth, so its loop
// indices do not change.
size_t above_loop(const std::vector<arch::Instruction>& code, size_t end, size_t k, arch::Pipe p, const arch::Arch& a) {
  int depth = 0;
  for (size_t j = end + 1; j-- > 0;) {
    const arch::Instruction& i = code[j];
    if (i.op == arch::Opcode::EndLoop) ++depth;
    else if (i.op == arch::Opcode::Loop && --depth == 0) return j;
    else if (i.op != arch::Opcode::Loop && !may_pass(i, code[k], p, a)) return k;
  }
  return k;
}

}  // namespace

void hoist_loads(std::vector<arch::Instruction>& code, const arch::Arch& a) {
  // The pipes that read DRAM (level 0, the outermost).
  bool loads[arch::kPipeCount] = {};
  for (const arch::Instruction& i : code)
    if (i.op == arch::Opcode::Dma && i.a.level == 0) loads[static_cast<int>(arch::pipe_of(i, a))] = true;
  for (size_t k = 1; k < code.size(); ++k) {
    const arch::Pipe p = runs_on(code[k], a);
    if (!loads[static_cast<int>(p)]) continue;
    size_t j = k;
    while (j > 0) {
      const size_t to = code[j - 1].op == arch::Opcode::EndLoop ? above_loop(code, j - 1, j, p, a)
                        : may_pass(code[j - 1], code[j], p, a) ? j - 1
                                                               : j;
      if (to == j) break;
      std::rotate(code.begin() + static_cast<std::ptrdiff_t>(to), code.begin() + static_cast<std::ptrdiff_t>(j),
                  code.begin() + static_cast<std::ptrdiff_t>(j) + 1);
      j = to;
    }
  }
}

}  // namespace dfx::mapper::lowering
