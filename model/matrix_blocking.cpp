#include "model/matrix_blocking.h"

#include <algorithm>

namespace dfx::model {
namespace {

bool indexes(const TensorAccess& acc, int dim) {
  for (const auto& ix : acc.index)
    for (const auto& t : ix.terms)
      if (t.dim == dim) return true;
  return false;
}

}  // namespace

int64_t MatrixBlocking::mma_count(const std::vector<int64_t>& block) const {
  int64_t count = 1;
  for (int d : around) count *= block[static_cast<size_t>(d)];
  return count;
}

MatrixBlocking matrix_blocking(const Op& x, const TensorAccess& left, const TensorAccess& right,
                               const std::vector<int64_t>& block) {
  std::vector<int> m, n, k, batch;
  for (int d : x.dims) {
    if (block[static_cast<size_t>(d)] <= 1) continue;
    const bool in_c = indexes(x.out, d), in_a = indexes(left, d), in_b = indexes(right, d);
    if (in_c && in_a && in_b) batch.push_back(d);
    else if (in_c && in_a) m.push_back(d);
    else if (in_c && in_b) n.push_back(d);
    else if (in_a && in_b) k.push_back(d);
  }
  MatrixBlocking b;
  b.around = batch;
  auto keep_largest = [&](std::vector<int>& dims) {
    if (dims.empty()) return -1;
    auto best = std::max_element(dims.begin(), dims.end(), [&](int p, int q) { return block[static_cast<size_t>(p)] < block[static_cast<size_t>(q)]; });
    const int d = *best;
    dims.erase(best);
    b.around.insert(b.around.end(), dims.begin(), dims.end());
    return d;
  };
  b.m = keep_largest(m);
  b.n = keep_largest(n);
  b.first_reduction_loop = b.around.size();
  b.k = keep_largest(k);
  return b;
}

namespace {
int64_t extent_of(int dim, const std::vector<int64_t>& block) { return dim < 0 ? 1 : block[static_cast<size_t>(dim)]; }
}  // namespace

int64_t VectorBlocking::count(const std::vector<int64_t>& block) const {
  int64_t c = 1;
  for (int d : around) c *= extent_of(d, block);
  return c;
}

int64_t VectorBlocking::rows(const std::vector<int64_t>& block) const {
  int64_t r = 1;
  for (size_t i = 0; i + 1 < shape.size(); ++i) r *= extent_of(shape[i], block);
  return r;
}

int64_t VectorBlocking::row_length(const std::vector<int64_t>& block) const {
  return shape.empty() ? 1 : extent_of(shape.back(), block);
}

VectorBlocking vector_blocking(const Op& x, const std::vector<int64_t>& block) {
  std::vector<int> rows;
  for (const auto& ix : x.out.index) {
    const int d = ix.terms.size() == 1 ? ix.terms[0].dim : -1;
    if (d >= 0 && block[static_cast<size_t>(d)] > 1) rows.push_back(d);
  }
  VectorBlocking v;
  if (x.accumulate == Accumulate::None) {
    v.shape = rows;
    return v;
  }
  int col = -1;
  for (int d : x.reduction_dims)
    if (block[static_cast<size_t>(d)] > 1 && col < 0) col = d;
  v.around.assign(rows.begin(), rows.end() - (rows.empty() ? 0 : 1));
  v.shape = {rows.empty() ? -1 : rows.back(), col};
  return v;
}

}  // namespace dfx::model
