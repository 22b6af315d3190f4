// ISA basics shared by the text and binary forms.
#include "arch/isa.h"

#include <cctype>

namespace dfx::arch {

int64_t MemRef::elements() const {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

bool MemRef::operator==(const MemRef& o) const {
  return level == o.level && base == o.base && loop_steps == o.loop_steps && sizes == o.sizes && strides == o.strides &&
         ring == o.ring && (ring <= 1 || (ring_stride == o.ring_stride && ring_weights == o.ring_weights));
}

bool Instruction::operator==(const Instruction& o) const {
  return op == o.op && dst == o.dst && a == o.a && b == o.b && m == o.m && n == o.n && k == o.k &&
         accumulate == o.accumulate && vop == o.vop && imm == o.imm && from == o.from && to == o.to &&
         event == o.event && count == o.count;
}

std::pair<int64_t, int64_t> address_range(const MemRef& r, const std::vector<int64_t>& loop_counts) {
  int64_t lo = r.base, hi = r.base;
  for (size_t d = 0; d < r.sizes.size() && d < r.strides.size(); ++d) {
    const int64_t span = (r.sizes[d] - 1) * r.strides[d];
    (span < 0 ? lo : hi) += span;
  }
  for (size_t j = 0; j < r.loop_steps.size() && j < loop_counts.size(); ++j) {
    const int64_t span = r.loop_steps[j] * (loop_counts[j] - 1);
    (span < 0 ? lo : hi) += span;
  }
  if (r.ring > 1) {
    const int64_t span = (r.ring - 1) * r.ring_stride;
    (span < 0 ? lo : hi) += span;
  }
  return {lo, hi};
}

const char* pipe_name(Pipe p) {
  switch (p) {
    case Pipe::Dma: return "dma";
    case Pipe::Matrix: return "matrix";
    case Pipe::Vector: return "vector";
    case Pipe::Scalar: return "scalar";
    case Pipe::Mte1: return "mte1";
    case Pipe::Mte2: return "mte2";
    case Pipe::Mte3: return "mte3";
    case Pipe::Fixpipe: return "fixpipe";
    case Pipe::DmaOut: return "dma_out";
  }
  return "?";
}

const char* vecop_name(VecOp v) {
  static const char* names[] = {"add", "sub", "mul", "div", "max", "min", "exp", "scale", "copy", "rowsum", "rowmax", "cast"};
  return names[static_cast<int>(v)];
}

const char* dtype_name(DType t) {
  switch (t) {
    case DType::Int16: return "int16";
    case DType::Fp16: return "fp16";
    case DType::Bf16: return "bf16";
  }
  return "?";
}

bool engine_pipe(const std::string& engine, Pipe& p) {
  std::string e;
  for (char c : engine) e += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (Pipe x : {Pipe::Dma, Pipe::Mte1, Pipe::Mte2, Pipe::Mte3, Pipe::Fixpipe, Pipe::DmaOut})
    if (e == pipe_name(x)) {
      p = x;
      return true;
    }
  return false;
}

Pipe pipe_of(const Instruction& i, const Arch& a) {
  switch (i.op) {
    case Opcode::Dma:
      // A path in the transfer's direction first; paths also work backwards (as in the model).
      for (bool backwards : {false, true})
        for (const auto& path : a.paths)
          if (path.from == (backwards ? i.dst.level : i.a.level) && path.to == (backwards ? i.a.level : i.dst.level)) {
            Pipe p = Pipe::Dma;
            engine_pipe(path.engine, p);
            return p;
          }
      return Pipe::Dma;
    case Opcode::Mma: return Pipe::Matrix;
    case Opcode::Vec: return Pipe::Vector;
    default: return Pipe::Scalar;
  }
}

}  // namespace dfx::arch

namespace dfx::arch {

void block_addresses(const arch::MemRef& r, const std::vector<int64_t>& idx, std::vector<int64_t>& out) {
  int64_t base = r.base;
  for (size_t j = 0; j < r.loop_steps.size() && j < idx.size(); ++j) base += r.loop_steps[j] * idx[j];
  if (r.ring > 1) {
    int64_t copy = 0;
    for (size_t j = 0; j < r.ring_weights.size() && j < idx.size(); ++j) copy += r.ring_weights[j] * idx[j];
    base += (copy % r.ring) * r.ring_stride;
  }
  out.assign(1, base);
  // Expand one dimension at a time, outermost first, so the result is row-major.
  for (size_t d = 0; d < r.sizes.size(); ++d) {
    const size_t prev = out.size();
    out.resize(prev * static_cast<size_t>(r.sizes[d]));
    for (size_t i = prev; i-- > 0;)
      for (int64_t s = r.sizes[d]; s-- > 0;) out[i * static_cast<size_t>(r.sizes[d]) + static_cast<size_t>(s)] = out[i] + s * r.strides[d];
  }
}

bool accumulates(const Instruction& mma, const std::vector<int64_t>& loop_index) {
  if (!mma.accumulate) return false;
  if (mma.imm == 0) return true;
  for (size_t j = 0; j < loop_index.size() && j < 63; ++j)
    if ((mma.imm >> j & 1) && loop_index[j] != 0) return true;
  return false;
}

}  // namespace dfx::arch
