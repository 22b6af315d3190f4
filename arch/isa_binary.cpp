// The binary form: "DFXPROG3", the element type, the core and cores, the tensor table, the instruction count, then
// one variable-length record per instruction.
#include <cstring>

#include "arch/isa.h"

namespace dfx::arch {
namespace {

// Version 3 added which core a program is (.core); version 2's programs read as not saying it.
const char kMagic[8] = {'D', 'F', 'X', 'P', 'R', 'O', 'G', '3'};
const char kMagicV2[8] = {'D', 'F', 'X', 'P', 'R', 'O', 'G', '2'};

class Writer {
 public:
  std::vector<uint8_t> bytes;
  void u8(uint64_t v) { bytes.push_back(static_cast<uint8_t>(v)); }
  void i64(int64_t v) {
    for (int b = 0; b < 8; ++b) bytes.push_back(static_cast<uint8_t>(static_cast<uint64_t>(v) >> (8 * b)));
  }
  void text(const std::string& s) {
    u8(s.size());
    bytes.insert(bytes.end(), s.begin(), s.end());
  }
  void mem(const MemRef& r) {
    u8(static_cast<uint64_t>(r.level + 1));  // 0: no operand
    u8(r.sizes.size());
    u8(r.loop_steps.size());
    i64(r.base);
    for (int64_t s : r.loop_steps) i64(s);
    for (int64_t s : r.sizes) i64(s);
    for (int64_t s : r.strides) i64(s);
    i64(r.ring);
    if (r.ring > 1) {
      i64(r.ring_stride);
      u8(r.ring_weights.size());
      for (int64_t w : r.ring_weights) i64(w);
    }
  }
};

class Reader {
 public:
  Reader(const std::vector<uint8_t>& b, const std::string& name) : b_(b), name_(name) {}
  [[noreturn]] void fail(const std::string& msg) const {
    throw InputError(SourceLoc{name_, 0, 0, "byte " + std::to_string(pos_)}, msg);
  }
  uint8_t u8() {
    if (pos_ + 1 > b_.size()) fail("truncated program");
    return b_[pos_++];
  }
  int64_t i64() {
    if (pos_ + 8 > b_.size()) fail("truncated program");
    uint64_t v = 0;
    for (int b = 0; b < 8; ++b) v |= static_cast<uint64_t>(b_[pos_++]) << (8 * b);
    return static_cast<int64_t>(v);
  }
  std::string text() {
    const size_t n = u8();
    if (pos_ + n > b_.size()) fail("truncated program");
    std::string s(b_.begin() + static_cast<std::ptrdiff_t>(pos_), b_.begin() + static_cast<std::ptrdiff_t>(pos_ + n));
    pos_ += n;
    return s;
  }
  MemRef mem() {
    MemRef r;
    r.level = static_cast<int>(u8()) - 1;
    const size_t dims = u8(), steps = u8();
    if (dims > kMaxDims) fail("a block with " + std::to_string(dims) + " dimensions (at most 4)");
    r.base = i64();
    for (size_t j = 0; j < steps; ++j) r.loop_steps.push_back(i64());
    for (size_t d = 0; d < dims; ++d) r.sizes.push_back(i64());
    for (size_t d = 0; d < dims; ++d) r.strides.push_back(i64());
    r.ring = i64();
    if (r.ring > 1) {
      r.ring_stride = i64();
      for (size_t j = 0, n = u8(); j < n; ++j) r.ring_weights.push_back(i64());
    } else if (r.ring != 1) {
      fail("a block with " + std::to_string(r.ring) + " ring copies");
    }
    return r;
  }
  size_t pos_ = 0;

 private:
  const std::vector<uint8_t>& b_;
  const std::string& name_;
};

}  // namespace

std::vector<uint8_t> encode_program(const Program& p) {
  Writer w;
  w.bytes.assign(kMagic, kMagic + 8);
  w.u8(static_cast<uint64_t>(p.dtype));
  w.i64(p.core), w.i64(p.cores);
  w.u8(p.tensors.size());
  for (const TensorDecl& t : p.tensors) {
    w.u8(t.output ? 1 : 0);
    w.text(t.name);
    w.mem(t.at);
  }
  w.i64(static_cast<int64_t>(p.code.size()));
  for (const Instruction& i : p.code) {
    w.u8(static_cast<uint64_t>(i.op));
    w.u8(i.accumulate ? 1 : 0);
    w.u8(static_cast<uint64_t>(i.vop));
    w.u8(static_cast<uint64_t>(i.from));
    w.u8(static_cast<uint64_t>(i.to));
    w.u8(static_cast<uint64_t>(i.event));
    w.i64(i.count);
    w.i64(i.imm);
    w.i64(i.m), w.i64(i.n), w.i64(i.k);
    w.mem(i.dst), w.mem(i.a), w.mem(i.b);
  }
  return w.bytes;
}

Program decode_program(const std::vector<uint8_t>& bytes, const std::string& name) {
  Reader r(bytes, name);
  const bool v2 = bytes.size() >= 16 && std::memcmp(bytes.data(), kMagicV2, 8) == 0;
  if (bytes.size() < 16 || (!v2 && std::memcmp(bytes.data(), kMagic, 8) != 0)) r.fail("not a dfx program (bad header)");
  r.pos_ = 8;
  Program p;
  const uint8_t dtype = r.u8();
  if (dtype > static_cast<uint8_t>(DType::Bf16)) r.fail("unknown element type " + std::to_string(dtype));
  p.dtype = static_cast<DType>(dtype);
  if (!v2) {
    p.core = r.i64(), p.cores = r.i64();
    if (p.cores < 0 || (p.cores > 0 && (p.core < 0 || p.core >= p.cores))) r.fail("bad core index");
  }
  for (size_t t = 0, n = r.u8(); t < n; ++t) {
    TensorDecl d;
    d.output = r.u8() != 0;
    d.name = r.text();
    d.at = r.mem();
    p.tensors.push_back(d);
  }
  const int64_t count = r.i64();
  if (count < 0 || count > static_cast<int64_t>(bytes.size())) r.fail("bad instruction count");
  for (int64_t n = 0; n < count; ++n) {
    Instruction i;
    const uint8_t op = r.u8();
    if (op < static_cast<uint8_t>(Opcode::Dma) || op > static_cast<uint8_t>(Opcode::Barrier))
      r.fail("unknown opcode " + std::to_string(op) + " in instruction " + std::to_string(n));
    i.op = static_cast<Opcode>(op);
    i.accumulate = r.u8() != 0;
    const uint8_t vop = r.u8(), from = r.u8(), to = r.u8();
    if (vop > static_cast<uint8_t>(VecOp::Cast)) r.fail("unknown vector op " + std::to_string(vop));
    if (from >= kPipeCount || to >= kPipeCount) r.fail("unknown pipe");
    i.vop = static_cast<VecOp>(vop), i.from = static_cast<Pipe>(from), i.to = static_cast<Pipe>(to);
    i.event = r.u8();
    i.count = r.i64();
    i.imm = r.i64();
    i.m = r.i64(), i.n = r.i64(), i.k = r.i64();
    i.dst = r.mem(), i.a = r.mem(), i.b = r.mem();
    i.line = static_cast<int>(n + 1);
    p.code.push_back(i);
  }
  if (r.pos_ != bytes.size()) r.fail("trailing bytes after the last instruction");
  return p;
}

}  // namespace dfx::arch
