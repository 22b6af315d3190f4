#pragma once
// Lowering: buffers, strides and the instruction of one operator's tile.
#include <optional>
#include <vector>

#include "arch/isa.h"
#include "model/workload.h"

namespace dfx::mapper::lowering {

// A tensor's slice in one level, row-major over the tensor's indices.
// With copies > 1 the buffer is a ring: the copy used is (Σ ring_weights[j]·i_j) mod copies.
struct Buffer {
  int level = -1;
  int64_t base = 0;
  std::vector<int64_t> box, strides;
  int64_t copies = 1;
  std::vector<int64_t> ring_weights;  // per program loop enclosing the buffer's position
};

// Levels from `from` to `to` along the arch's declared paths (arch::Arch::route, the route the
// model stages transfers along). Contract: throws InputError (at `where`) when there is none.
std::vector<int> route(const arch::Arch& a, int from, int to, const SourceLoc& where);

// The buffer's ring on a block whose instruction sits `depth` loops deep.
void apply_ring(const Buffer& b, arch::MemRef& r, size_t depth);

// An operand of an instruction: its level, base and loop steps, the buffer and the access.
struct OperandRef {
  arch::MemRef ref;
  Buffer buf;
  const model::TensorAccess* acc = nullptr;
};
struct OperandRefs {
  std::vector<OperandRef> in;  // in the operator's input order
  OperandRef out;
};

std::vector<int64_t> row_major(const std::vector<int64_t>& box);
int64_t volume(const std::vector<int64_t>& box);
bool indexes(const model::TensorAccess& acc, int dim);
// Address step in the buffer for one step of `dim` (0 if the access does not use it).
int64_t stride_of(const model::TensorAccess& acc, const Buffer& b, int dim);
// The access's slice over dims of the given extents: per index Σ coef·(extent − 1) + 1.
std::vector<int64_t> box_of(const model::TensorAccess& acc, const std::vector<int64_t>& ext);
// How the access indexes its tensor, as integers (offsets and terms of every index): equal for
// accesses that address it the same way.
std::vector<int64_t> access_signature(const model::TensorAccess& acc);
bool is_reduction(const model::Op& op, int dim);

// Contract: the instruction(s) of a tile of a matrix or vector operator (an mma, a vec op,
// wrapped in loops over batch dimensions), or InputError at the operator when the lowering
// cannot express it.
std::vector<arch::Instruction> matrix_code(const model::Workload& w, const model::Op& x, const std::vector<int64_t>& block,
                                           const OperandRefs& refs, bool accumulate, int64_t init_mask);
std::vector<arch::Instruction> vector_code(const model::Workload& w, const model::Op& x, const std::vector<int64_t>& block,
                                           const OperandRefs& refs);

}  // namespace dfx::mapper::lowering
