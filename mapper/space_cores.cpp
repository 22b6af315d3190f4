// The loops that spread a group over the cores (Space::core_splits): which dims, over how many
// cores each, and what of a dim remains on one core.
#include <algorithm>

#include "mapper/space.h"

namespace dfx::mapper {

// The ways to spread over the cores that use more than half of them; where none does (a ViT's
// 12 heads and 197 tokens on 32 cores), the ways that use the most any does: 12 cores are far
// better than one.
std::vector<Space::CoreSplit> Space::splits_of(const std::vector<int>& dims, size_t first_op, size_t end_op) const {
  // Dims the group's ops read one tensor along in two ways (a Gram matrix's m and n; two ops
  // reading X[m,k] and X[n,k]) are not offered: the cores' slices of it would differ in shape,
  // which the analysis refuses.
  const uint64_t apart = dims_read_apart(w_, first_op, end_op);
  std::vector<int> spreadable;
  for (int d : dims) spreadable.push_back(apart >> d & 1 ? -1 : d);
  std::vector<CoreSplit> out = splits_above(spreadable, cores_ / 2);
  if (out.empty()) out = splits_above(spreadable, 1);
  if (!divisors_only_) add_uneven_splits(spreadable, first_op, end_op, out);
  return out;
}

namespace {

// The coefficient of dim d in index ix (0 where it does not appear).
int64_t coef_of(const model::AffineIndex& ix, int d) {
  for (const auto& term : ix.terms)
    if (term.dim == d) return term.coef;
  return 0;
}

}  // namespace

uint64_t dims_read_apart(const model::Workload& w, size_t first_op, size_t end_op) {
  // The reads of each tensor the run takes from outside it (one made inside moves with its
  // producer's box: a convolution's O1[p1] read as O1[p2+r2] is not apart).
  std::vector<const model::TensorAccess*> reads;
  uint64_t apart = 0;
  for (size_t t = 0; t < w.tensors.size(); ++t) {
    const int producer = w.tensors[t].producer;
    if (producer >= static_cast<int>(first_op) && producer < static_cast<int>(end_op)) continue;
    reads.clear();
    for (size_t o = first_op; o < end_op; ++o)
      for (const auto& in : w.ops[o].inputs)
        if (in.tensor == static_cast<int>(t)) reads.push_back(&in);
    // A dim a step moves one read by and another otherwise, at some position of the tensor
    // (A[m,k] beside A[n,k]: m and n; A[m] beside A[m+1] move alike).
    for (size_t x = 0; x < reads.size(); ++x)
      for (size_t y = x + 1; y < reads.size(); ++y)
        for (size_t j = 0; j < reads[x]->index.size(); ++j)
          for (const model::AffineIndex* ix : {&reads[x]->index[j], &reads[y]->index[j]})
            for (const auto& term : ix->terms)
              if (term.dim < 64 && coef_of(reads[x]->index[j], term.dim) != coef_of(reads[y]->index[j], term.dim))
                apart |= uint64_t{1} << term.dim;
  }
  return apart;
}

void Space::note_reads_apart() {
  reads_apart_.assign(w_.ops.size(), 0);
  for (size_t o = 0; o < w_.ops.size(); ++o) reads_apart_[o] = dims_read_apart(w_, o, o + 1);
}

bool Space::windowed(int dim, size_t first_op, size_t end_op) const {
  auto other = [&](const model::TensorAccess& acc) {
    return std::any_of(acc.index.begin(), acc.index.end(), [&](const model::AffineIndex& ix) { return ix.uses(dim) && !ix.is(dim); });
  };
  for (size_t o = first_op; o < end_op; ++o)
    for (const model::TensorAccess& in : w_.ops[o].inputs)
      if (other(in)) return true;
  return false;
}

// A dim may also spread in even chunks that leave the last core less (197 tokens over 32
// cores: 28 of 7 and one of 1), alone or beside a dim that divides (a ViT's 12 heads over 4 cores
// and its 197 tokens over 8: 25 each, 22 on the last), where that uses more than half the cores,
// for dims that no more than half the cores divide (a prime; 56 rows on 32 cores divide over 28).
// Offering every uneven split of every dim spread the search thin (mlp_block / ascend_like
// 58.2 K -> 110 K cycles at 4,000 evaluations). Beside a divided dim, each core keeps fewer
// heads' K and V than the tokens alone over 29 cores would. A split that divides may use more
// cores and still lose: a GEMM chain's l over 32 cores leaves each core a partial sum of the
// whole output. The analysis refuses the trees whose shared buffers such shares cannot take
// (model::runs_may_step_below), windows above all where a level the cores share multicasts: such
// dims are not offered there (conv C2's 73 rows on cloud: its ISOS baseline, drawing them, fell
// from 1.57x to 0.66x over Layerwise).
void Space::add_uneven_splits(const std::vector<int>& dims, size_t first_op, size_t end_op, std::vector<CoreSplit>& out) const {
  const int64_t least = cores_ / 2;
  const bool shared_multicast = std::any_of(a_.levels.begin(), a_.levels.end(), [&](const arch::MemoryLevel& l) {
    return l.instances < cores_ && l.multicast;
  });
  for (size_t j = 0; j < dims.size(); ++j) {
    if (dims[j] < 0) continue;
    const int64_t sj = w_.dims[static_cast<size_t>(dims[j])].size;
    if (spread_of(dims[j], least) > 0) continue;  // it divides well enough: no uneven shares
    if (shared_multicast && windowed(dims[j], first_op, end_op)) continue;
    if (const int64_t n = widest_spread(sj, cores_); n > least && sj % n != 0) {
      CoreSplit s;
      s.dim[0] = s.dim[1] = j, s.cores[0] = n;
      out.push_back(s);
    }
    for (size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] < 0) continue;
      const int64_t si = w_.dims[static_cast<size_t>(dims[i])].size;
      for (int64_t a = 2; i != j && a <= cores_ / 2; ++a) {
        const int64_t n = widest_spread(sj, cores_ / a);
        if (si % a != 0 || n < 2 || sj % n == 0 || a * n <= least) continue;
        CoreSplit s;
        s.dim[0] = i, s.dim[1] = j, s.cores[0] = a, s.cores[1] = n;
        out.push_back(s);
      }
    }
  }
}

// One dim over the cores (spread_of), then pairs (a dim of -1 takes no part) that use as many cores as any single dim does
// and more than `least`: every way to use the most cores two dims allow. A pair can win with no
// more cores: b over 8 of attention's 32 cores and m over 4 keep each core on one b's K and V,
// where m over all 32 has every core read every b's (which split is best is the search's to find).
std::vector<Space::CoreSplit> Space::splits_above(const std::vector<int>& dims, int64_t least) const {
  std::vector<CoreSplit> out;
  int64_t best_single = 0;
  for (size_t i = 0; i < dims.size(); ++i)
    if (const int64_t n = dims[i] < 0 ? 0 : spread_of(dims[i], least); n > 0) {
      CoreSplit s;
      s.dim[0] = s.dim[1] = i, s.cores[0] = n;
      out.push_back(s);
      best_single = std::max(best_single, n);
    }
  for (size_t i = 0; i < dims.size(); ++i)
    for (size_t j = i + 1; j < dims.size(); ++j) {
      if (dims[i] < 0 || dims[j] < 0) continue;
      const int64_t si = w_.dims[static_cast<size_t>(dims[i])].size, sj = w_.dims[static_cast<size_t>(dims[j])].size;
      int64_t most = 0;
      for (int64_t a = 2; a <= cores_ / 2; ++a)
        for (int64_t b = 2; a * b <= cores_; ++b)
          if (si % a == 0 && sj % b == 0) most = std::max(most, a * b);
      if (most < best_single || most <= least) continue;
      for (int64_t a = 2; a <= cores_ / 2; ++a)
        if (most % a == 0 && si % a == 0 && sj % (most / a) == 0 && most / a >= 2) {
          CoreSplit s;
          s.dim[0] = i, s.dim[1] = j, s.cores[0] = a, s.cores[1] = most / a;
          out.push_back(s);
        }
    }
  return out;
}

const std::vector<Space::CoreSplit>& Space::core_splits(const std::vector<int>& ops) const {
  return run_splits_[static_cast<size_t>(ops.front())][ops.size() - 1];
}

int64_t Space::core_share(const Choice& c, const std::vector<int>& group_ops, size_t g, size_t i) const {
  const int k = c.core_dim[g];
  return k < 0 ? 1 : core_splits(group_ops)[static_cast<size_t>(k)].on(i);
}

int64_t Space::core_extent(const Choice& c, const std::vector<int>& group_ops, size_t g, size_t i) const {
  const int64_t share = core_share(c, group_ops, g, i);  // the first core's (the last may have less)
  return ceil_div(w_.dims[static_cast<size_t>(outer_dims(group_ops)[i])].size, share);
}

Space::SplitList Space::allowed_splits(const Choice& c, const std::vector<int>& group_ops, size_t g) const {
  SplitList out;
  if (!(c.may_spread.empty() || c.may_spread[g])) return out;
  // A named baseline spreads one loop, as the dataflow it is named after does.
  const bool baseline = !c.may_spread.empty();
  const auto& splits = core_splits(group_ops);
  for (size_t k = 0; k < splits.size(); ++k)
    if (may_tile(c, g, splits[k].dim[0]) && may_tile(c, g, splits[k].dim[1]) && !(baseline && splits[k].cores[1] > 1))
      out.push_back(static_cast<int>(k));
  return out;
}

// How many cores a loop over `dim` spreads over: all of them when they divide its extent, else
// the most that do (28 of ascend_like's 32 for 56 rows), if more than `least`; 0: none.
int64_t Space::spread_of(int dim, int64_t least) const {
  const int64_t size = w_.dims[static_cast<size_t>(dim)].size;
  for (int64_t n = cores_; n > 1 && n > least; --n)
    if (size % n == 0) return n;
  return 0;
}

}  // namespace dfx::mapper
