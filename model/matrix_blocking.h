#pragma once
// How the units run one tile of an operator as instructions: for `O += A * B` the matrix
// unit's mmas, for the rest the vector unit's vec ops. Shared by the lowering, which emits them,
// and by the analysis, which times them on units that take instructions whole (`schedule:
// instruction`, docs/formats.md).
#include <cstdint>
#include <vector>

#include "model/workload.h"

namespace dfx::model {

// The largest output-row (M), output-column (N) and reduction (K) dimension of the tile go into
// each mma; the other dimensions larger than one (batch dimensions, a convolution's second
// output dimension and its window) become loops around it, the reduction ones innermost.
struct MatrixBlocking {
  int m = -1, n = -1, k = -1;           // the mma's dimensions (-1: extent one)
  std::vector<int> around;               // loops around the mma, outermost first
  size_t first_reduction_loop = 0;       // index in `around` of the first reduction loop
  // Extents, for a tile of these per-dimension extents.
  int64_t mma_count(const std::vector<int64_t>& block) const;
  int64_t extent(int dim, const std::vector<int64_t>& block) const { return dim < 0 ? 1 : block[static_cast<size_t>(dim)]; }
};

// `block`: the tile's extent per workload dimension. `left`, `right`: the input accesses in the
// unit's left and right roles.
MatrixBlocking matrix_blocking(const Op& x, const TensorAccess& left, const TensorAccess& right,
                               const std::vector<int64_t>& block);

// A vector operator's tile: elementwise ops are one instruction over the output's dimensions
// larger than one; a row reduction is one instruction per output row, over [row, reduced].
struct VectorBlocking {
  std::vector<int> around;  // loops around the instruction, outermost first
  std::vector<int> shape;   // the block the instruction walks, outermost first (-1: extent one)
  int64_t count(const std::vector<int64_t>& block) const;
  // Rows of the walked block (all but its innermost dimension) and the length of each.
  int64_t rows(const std::vector<int64_t>& block) const;
  int64_t row_length(const std::vector<int64_t>& block) const;
};

VectorBlocking vector_blocking(const Op& x, const std::vector<int64_t>& block);

}  // namespace dfx::model
