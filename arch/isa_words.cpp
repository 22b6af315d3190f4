// Fixed-width machine words for the RTL core (docs/isa.md, "Machine words").
#include "arch/isa_words.h"

namespace dfx::arch {
namespace {

// Field 0: opcode, vector op, pipes, event, accumulate.
uint32_t head(const Instruction& i) {
  return static_cast<uint32_t>(i.op) | static_cast<uint32_t>(i.vop) << 4 | static_cast<uint32_t>(i.from) << 8 |
         static_cast<uint32_t>(i.to) << 12 | static_cast<uint32_t>(i.event & 15) << 16 | (i.accumulate ? 1u << 20 : 0u);
}

class Encoder {
 public:
  Encoder(const std::string& name, int line) : name_(name), line_(line) {}

  uint32_t field(int64_t v, const char* what) const {
    if (v < INT32_MIN || v > INT32_MAX) fail(std::string(what) + " " + std::to_string(v) + " does not fit in 32 bits");
    return static_cast<uint32_t>(static_cast<int32_t>(v));
  }

  // A block: level and ring, base, loop steps, sizes and strides right-aligned to 4 dimensions
  // (the innermost always in the last field), ring stride and 4-bit ring weights.
  void block(const MemRef& r, uint32_t* f) const {
    if (r.level < 0) return;
    if (r.loop_steps.size() > kWordLoops) fail("an operand inside more than 8 nested loops");
    if (r.ring > kRingMax) fail("a ring of more than 255 copies");
    const auto dims = static_cast<uint32_t>(r.sizes.size());
    f[0] = static_cast<uint32_t>(r.level + 1) | static_cast<uint32_t>(r.ring) << 8 | dims << 16;
    f[1] = field(r.base, "address");
    for (size_t j = 0; j < r.loop_steps.size(); ++j) f[2 + j] = field(r.loop_steps[j], "loop step");
    for (uint32_t d = 0; d < 4; ++d) f[10 + d] = 1;
    for (uint32_t d = 0; d < dims; ++d) {
      f[10 + 4 - dims + d] = field(r.sizes[d], "size");
      f[14 + 4 - dims + d] = field(r.strides[d], "stride");
    }
    f[18] = field(r.ring_stride, "ring stride");
    for (size_t j = 0; j < r.ring_weights.size(); ++j) {
      if (r.ring_weights[j] < 0 || r.ring_weights[j] > kRingWeightMax) fail("a ring weight outside 0..15");
      f[19] |= static_cast<uint32_t>(r.ring_weights[j]) << (4 * j);
    }
  }

  [[noreturn]] void fail(const std::string& msg) const {
    throw InputError(SourceLoc{name_, line_, 1, ""}, "the RTL core cannot run this instruction: " + msg);
  }

 private:
  const std::string& name_;
  int line_;
};

MemRef unblock(const uint32_t* f, size_t loops) {
  MemRef r;
  if (f[0] == 0) return r;
  r.level = static_cast<int>(f[0] & 0xff) - 1;
  r.ring = (f[0] >> 8) & 0xff;
  const uint32_t dims = (f[0] >> 16) & 0xff;
  r.base = static_cast<int32_t>(f[1]);
  for (size_t j = 0; j < loops; ++j) r.loop_steps.push_back(static_cast<int32_t>(f[2 + j]));
  for (uint32_t d = 4 - dims; d < 4; ++d) {
    r.sizes.push_back(static_cast<int32_t>(f[10 + d]));
    r.strides.push_back(static_cast<int32_t>(f[14 + d]));
  }
  if (r.ring > 1) {
    r.ring_stride = static_cast<int32_t>(f[18]);
    for (size_t j = 0; j < loops; ++j) r.ring_weights.push_back((f[19] >> (4 * j)) & 15);
  }
  return r;
}

}  // namespace

std::vector<MachineWord> encode_words(const Program& p, const std::string& name) {
  std::vector<MachineWord> out;
  out.reserve(p.code.size());
  for (const Instruction& i : p.code) {
    const Encoder e(name, i.line);
    MachineWord w{};
    w[0] = head(i);
    w[1] = e.field(i.count, "loop count");
    w[2] = e.field(i.imm, "immediate");
    e.block(i.dst, &w[kOperandOffset]);
    e.block(i.a, &w[kOperandOffset + kOperandFields]);
    e.block(i.b, &w[kOperandOffset + 2 * kOperandFields]);
    out.push_back(w);
  }
  return out;
}

std::vector<Instruction> decode_words(const std::vector<MachineWord>& words) {
  std::vector<Instruction> out;
  size_t loops = 0;
  for (const MachineWord& w : words) {
    Instruction i;
    i.op = static_cast<Opcode>(w[0] & 15);
    i.vop = static_cast<VecOp>((w[0] >> 4) & 15);
    i.from = static_cast<Pipe>((w[0] >> 8) & 15);
    i.to = static_cast<Pipe>((w[0] >> 12) & 15);
    i.event = static_cast<int>((w[0] >> 16) & 15);
    i.accumulate = (w[0] >> 20) & 1;
    i.count = static_cast<int32_t>(w[1]);
    i.imm = static_cast<int32_t>(w[2]);
    if (i.op == Opcode::EndLoop && loops > 0) --loops;
    i.dst = unblock(&w[kOperandOffset], loops);
    i.a = unblock(&w[kOperandOffset + kOperandFields], loops);
    i.b = unblock(&w[kOperandOffset + 2 * kOperandFields], loops);
    if (i.op == Opcode::Mma && i.a.sizes.size() == 2 && i.b.sizes.size() == 2)
      i.m = i.a.sizes[0], i.k = i.a.sizes[1], i.n = i.b.sizes[1];
    if (i.op == Opcode::Loop) ++loops;
    out.push_back(i);
  }
  return out;
}

}  // namespace dfx::arch
