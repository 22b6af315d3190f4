// One operator's tile as instructions: mma for `O += A * B`, one vec op for the vector forms.
#include "mapper/lower_ops.h"

#include <algorithm>
#include <map>

#include "model/matrix_blocking.h"

namespace dfx::mapper::lowering {
namespace {

using arch::Instruction;
using arch::MemRef;
using arch::Opcode;

[[noreturn]] void refuse(const model::Op& x, const std::string& msg) {
  throw InputError(x.loc, "cannot lower operator '" + x.name + "': " + msg);
}

// Dims whose block is more than one, among `dims`.
std::vector<int> nontrivial(const std::vector<int>& dims, const std::vector<int64_t>& block) {
  std::vector<int> out;
  for (int d : dims)
    if (block[static_cast<size_t>(d)] > 1) out.push_back(d);
  return out;
}

// Loops over extra dims wrap the instruction: each adds a loop step to every operand.
struct Wrapped {
  std::vector<Instruction> code;
  std::vector<int> loop_dims;
};

Wrapped open_loops(const std::vector<int>& dims, const std::vector<int64_t>& block, std::vector<OperandRef*> ops) {
  Wrapped w;
  for (int d : dims) {
    Instruction loop;
    loop.op = Opcode::Loop;
    loop.count = block[static_cast<size_t>(d)];
    w.code.push_back(loop);
    for (OperandRef* o : ops) {
      o->ref.loop_steps.push_back(stride_of(*o->acc, o->buf, d));
      if (o->ref.ring > 1) o->ref.ring_weights.push_back(0);
    }
  }
  w.loop_dims = dims;
  return w;
}

void close_loops(Wrapped& w) {
  for (size_t j = 0; j < w.loop_dims.size(); ++j) {
    Instruction end;
    end.op = Opcode::EndLoop;
    w.code.push_back(end);
  }
}

// The operand's block over the given dims (a 1-element block when there are none).
MemRef shaped(const OperandRef& o, const std::vector<int>& dims, const std::vector<int64_t>& block) {
  MemRef r = o.ref;
  for (int d : dims) {
    r.sizes.push_back(d < 0 ? 1 : block[static_cast<size_t>(d)]);
    r.strides.push_back(d < 0 ? 1 : stride_of(*o.acc, o.buf, d));
  }
  if (r.sizes.empty()) r.sizes = {1}, r.strides = {1};
  return r;
}

}  // namespace

std::vector<int> route(const arch::Arch& a, int from, int to, const SourceLoc& where) {
  std::vector<int> r = a.route(from, to);
  if (r.empty())
    throw InputError(where, "no data path from '" + a.levels[static_cast<size_t>(from)].name + "' to '" +
                              a.levels[static_cast<size_t>(to)].name + "' in the arch, which this dataflow needs");
  return r;
}

void apply_ring(const Buffer& b, arch::MemRef& r, size_t depth) {
  if (b.copies < 2) return;
  r.ring = b.copies;
  r.ring_stride = volume(b.box);
  r.ring_weights = b.ring_weights;
  r.ring_weights.resize(depth, 0);
}

std::vector<int64_t> row_major(const std::vector<int64_t>& box) {
  std::vector<int64_t> s(box.size(), 1);
  for (size_t p = box.size(); p-- > 1;) s[p - 1] = s[p] * box[p];
  return s;
}

int64_t volume(const std::vector<int64_t>& box) {
  int64_t v = 1;
  for (int64_t b : box) v *= b;
  return v;
}

bool indexes(const model::TensorAccess& acc, int dim) {
  for (const auto& ix : acc.index)
    for (const auto& t : ix.terms)
      if (t.dim == dim) return true;
  return false;
}

int64_t stride_of(const model::TensorAccess& acc, const Buffer& b, int dim) {
  int64_t s = 0;
  for (size_t p = 0; p < acc.index.size(); ++p)
    for (const auto& t : acc.index[p].terms)
      if (t.dim == dim) s += t.coef * b.strides[p];
  return s;
}

std::vector<int64_t> access_signature(const model::TensorAccess& acc) {
  std::vector<int64_t> sig;
  for (const auto& ix : acc.index) {
    sig.push_back(ix.offset);
    for (const auto& term : ix.terms) sig.push_back(term.dim), sig.push_back(term.coef);
    sig.push_back(-1);
  }
  return sig;
}

std::vector<int64_t> box_of(const model::TensorAccess& acc, const std::vector<int64_t>& ext) {
  std::vector<int64_t> box;
  for (const auto& ix : acc.index) {
    int64_t size = 1;
    for (const auto& t : ix.terms) size += t.coef * (ext[static_cast<size_t>(t.dim)] - 1);
    box.push_back(size);
  }
  return box;
}

bool is_reduction(const model::Op& op, int dim) {
  for (int d : op.reduction_dims)
    if (d == dim) return true;
  return false;
}

std::vector<Instruction> matrix_code(const model::Workload&, const model::Op& x, const std::vector<int64_t>& block,
                                     const OperandRefs& refs, bool accumulate, int64_t init_mask) {
  OperandRef a = refs.in[0], b = refs.in[1], c = refs.out;
  if (x.role_of(a.acc->tensor) != arch::Role::Left) std::swap(a, b);
  const model::MatrixBlocking mb = model::matrix_blocking(x, *a.acc, *b.acc, block);
  const int dm = mb.m, dn = mb.n, dk = mb.k;
  const std::vector<int>& around = mb.around;
  const size_t first_k_loop = mb.first_reduction_loop;
  const size_t depth = c.ref.loop_steps.size();
  Wrapped loops = open_loops(around, block, {&a, &b, &c});
  // Reduction loops around the mma accumulate; unless partial sums come back from outside, the
  // first contribution (every masked loop at 0) starts from zero.
  if (around.size() > first_k_loop && !(accumulate && init_mask == 0)) {
    for (size_t j = first_k_loop; j < around.size(); ++j) init_mask |= int64_t{1} << (depth + j);
    accumulate = true;
  }
  Instruction mma;
  mma.op = Opcode::Mma;
  mma.dst = shaped(c, {dm, dn}, block);
  mma.a = shaped(a, {dm, dk}, block);
  mma.b = shaped(b, {dk, dn}, block);
  mma.m = mma.a.sizes[0], mma.k = mma.a.sizes[1], mma.n = mma.b.sizes[1];
  mma.accumulate = accumulate;
  mma.imm = init_mask;
  loops.code.push_back(mma);
  close_loops(loops);
  return loops.code;
}

std::vector<Instruction> vector_code(const model::Workload& w, const model::Op& x, const std::vector<int64_t>& block,
                                     const OperandRefs& refs) {
  if (x.vector_ops.size() != 1) refuse(x, "it needs " + std::to_string(x.vector_ops.size()) + " vector operations; lowering maps one operator to one");
  const std::optional<arch::VecOp> vop = model::vector_instruction(x);
  if (!vop) refuse(x, "'" + x.vector_ops[0] + "' with " + std::to_string(x.inputs.size()) + " tensor input(s) has no vector instruction");
  Instruction v;
  v.op = Opcode::Vec;
  v.vop = *vop;
  const bool reduce = x.accumulate != model::Accumulate::None;
  const model::VectorBlocking vb = model::vector_blocking(x, block);
  const std::vector<int>& rows = vb.shape;
  OperandRef dst = refs.out;
  std::vector<OperandRef> src = refs.in;
  if (reduce) {
    if (nontrivial(x.reduction_dims, block).size() > 1) refuse(x, "its tile reduces over more than one dimension; a row reduction takes one");
    Wrapped loops = open_loops(vb.around, block, {&dst, &src[0]});
    const int row = vb.shape[0], col = vb.shape[1];
    v.dst = shaped(dst, {row}, block);
    v.a = shaped(src[0], {row, col}, block);
    loops.code.push_back(v);
    close_loops(loops);
    return loops.code;
  }
  if (rows.size() > arch::kMaxDims) refuse(x, "its tile spans more than four dimensions");
  for (const OperandRef& s : src)
    for (int d : x.dims)
      if (indexes(*s.acc, d) && block[static_cast<size_t>(d)] > 1 && std::find(rows.begin(), rows.end(), d) == rows.end())
        refuse(x, "an input uses dimension '" + w.dims[static_cast<size_t>(d)].name + "' that the output does not have");
  v.dst = shaped(dst, rows, block);
  v.a = shaped(src[0], rows, block);
  if (src.size() > 1) v.b = shaped(src[1], rows, block);
  return {v};
}

}  // namespace dfx::mapper::lowering
