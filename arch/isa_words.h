#pragma once
// The machine words the RTL core fetches: every instruction is one fixed-width word of 64
// 32-bit fields, so the core decodes fields at fixed positions without a length decoder
// (docs/isa.md, "Machine words"). The harness loads a program's words into the core's
// instruction memory; rtl/core/dfx_pkg.sv declares the same layout.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "arch/isa.h"

namespace dfx::arch {

constexpr int kWordFields = 64;      // 32-bit fields per instruction
constexpr int kWordLoops = 8;        // loop nesting the word can address
constexpr int kOperandFields = 20;   // fields per block (dst, a, b)
constexpr int kOperandOffset = 4;    // first block's field
constexpr int kRingWeightMax = 15;   // 4 bits per loop
constexpr int kRingMax = 255;

using MachineWord = std::array<uint32_t, kWordFields>;

// Contract: throws InputError (program name, instruction line) for anything the fixed word
// cannot hold: deeper loop nesting, values beyond 32 bits, rings over 255 copies.
std::vector<MachineWord> encode_words(const Program& p, const std::string& name);
// The inverse for checking the layout (line numbers are not kept).
std::vector<Instruction> decode_words(const std::vector<MachineWord>& words);

}  // namespace dfx::arch
