// What a buffer holds, as sets or as boxes (model/held.h).
#include "model/held.h"

#include <algorithm>
#include <cstdlib>

namespace dfx::model {

Slice Box::slice() const {
  Slice s(static_cast<size_t>(rank));
  for (int j = 0; j < rank; ++j) s[static_cast<size_t>(j)] = IndexSet::interval(r[j].first, r[j].second);
  return s;
}

namespace {

// |union of boxes| by inclusion–exclusion, as MultiSlice sizes a union of boxes.
int64_t union_size(const Box* const* parts, int n) {
  if (n == 0) return 0;
  if (n == 1) return parts[0]->size();
  const int rank = parts[0]->rank;
  int64_t total = 0;
  for (uint32_t mask = 1; mask < (1u << n); ++mask) {
    int64_t common = 1;
    for (int j = 0; j < rank && common > 0; ++j) {
      int64_t lo = INT64_MIN, hi = INT64_MAX;
      for (int i = 0; i < n; ++i)
        if (mask & (1u << i)) lo = std::max(lo, parts[i]->r[j].first), hi = std::min(hi, parts[i]->r[j].second);
      common *= std::max<int64_t>(0, hi - lo);
    }
    total += (__builtin_popcount(mask) % 2 ? 1 : -1) * common;
  }
  return total;
}

int64_t overlap(const Box& a, const Box& b) {
  int64_t n = 1;
  for (int j = 0; j < a.rank && n > 0; ++j)
    n *= std::max<int64_t>(0, std::min(a.r[j].second, b.r[j].second) - std::max(a.r[j].first, b.r[j].first));
  return n;
}

// |{x + k·step : x in an interval of `length`, 0 <= k < count}|: apart copies, or one run.
int64_t spread_length(int64_t length, int64_t step, int64_t count) {
  const int64_t apart = std::abs(step);
  return apart >= length ? count * length : (count - 1) * apart + length;
}

}  // namespace

int64_t Boxes::size() const {
  const Box* ptrs[kMaxParts];
  for (int i = 0; i < n; ++i) ptrs[i] = &part[i];
  return union_size(ptrs, n);
}

int64_t Boxes::minus_size(const Boxes& older) const {
  if (n == 1 && older.n == 1) return part[0].size() - overlap(part[0], older.part[0]);
  const Box* all[2 * kMaxParts];
  const Box* old[kMaxParts];
  int k = 0;
  for (int i = 0; i < n; ++i) all[k++] = &part[i];
  for (int i = 0; i < older.n; ++i) all[k++] = &older.part[i], old[i] = &older.part[i];
  return union_size(all, k) - union_size(old, older.n);
}

void Boxes::shift(const std::vector<int64_t>& per_dim) {
  for (int p = 0; p < n; ++p)
    for (int j = 0; j < part[p].rank; ++j) {
      Range& r = part[p].r[j];
      r.first += per_dim[static_cast<size_t>(j)], r.second += per_dim[static_cast<size_t>(j)];
    }
}

MultiSlice Boxes::multi_slice() const {
  MultiSlice m;
  for (int i = 0; i < n; ++i) m.parts.push_back(part[i].slice());
  return m;
}

namespace {

// Whether now − before (spread by `spreads`, with `spread`) is one box: `now` one box apart from
// `before`, and no axis spread twice.
bool apart_as_one(const Boxes& now, const Boxes& before, const Spreads& spreads, bool spread) {
  if (now.n != 1) return false;
  for (int i = 0; i < before.n; ++i)
    if (overlap(now.part[0], before.part[i]) != 0) return false;
  if (!spread) return true;
  uint64_t axes = 0;
  for (const auto& sp : spreads) {
    const size_t axis = std::get<0>(sp);
    if (axis >= 64 || (axes >> axis & 1)) return false;
    axes |= uint64_t{1} << axis;
  }
  return true;
}

}  // namespace

int64_t spread_size(const Box& box, const Spreads& spreads) {
  int64_t n = 1;
  for (int j = 0; j < box.rank; ++j) {
    int64_t length = box.r[j].second - box.r[j].first;
    for (const auto& [axis, step, count] : spreads)
      if (axis == static_cast<size_t>(j)) length = spread_length(length, step, count);
    n *= length;
  }
  return n;
}

int64_t SpreadBox::size() const { return spread_size(box, spreads); }

bool SpreadBox::apart_from(const SpreadBox& o) const {
  auto bounds = [](const SpreadBox& s, int j) {
    Range r = s.box.r[j];
    for (const auto& [axis, step, count] : s.spreads)
      if (axis == static_cast<size_t>(j)) (step > 0 ? r.second : r.first) += step * (count - 1);
    return r;
  };
  for (int j = 0; j < box.rank; ++j) {
    const Range a = bounds(*this, j), b = bounds(o, j);
    if (a.second <= b.first || b.second <= a.first) return true;
  }
  return false;
}

Region SpreadBox::region() const {
  Region r = Region::of(box.slice());
  for (const auto& [axis, step, count] : spreads) r.spread(axis, step, count);
  return r;
}

std::optional<SpreadBox> spread_apart(const Boxes& now, const Boxes& before, const Spreads& spreads, bool spread) {
  if (!apart_as_one(now, before, spreads, spread)) return std::nullopt;
  SpreadBox s{now.part[0], {}};
  if (spread) s.spreads = spreads;
  return s;
}

bool accesses_are_boxes(const Workload& w) {
  auto intervals = [](const TensorAccess& acc) {
    if (acc.index.size() > static_cast<size_t>(kMaxBoxRank)) return false;
    for (const auto& ix : acc.index) {
      uint64_t dims = 0;
      for (const auto& term : ix.terms) {
        if (term.coef != 1 || term.dim >= 64 || (dims >> term.dim & 1)) return false;
        dims |= uint64_t{1} << term.dim;
      }
    }
    return true;
  };
  return w.every_access(intervals);
}

bool accesses_are_plain_boxes(const Workload& w) {
  return accesses_are_boxes(w) && w.every_access([](const TensorAccess& acc) {
           return std::all_of(acc.index.begin(), acc.index.end(),
                              [](const AffineIndex& ix) { return ix.terms.empty() || (ix.terms.size() == 1 && ix.offset == 0); });
         });
}

void take_slice(MultiSlice& out, BufferAccesses::Accesses by, const OpBoxes& boxes) {
  out.parts.clear();
  for (const BufferAccesses::Access& a : by) out.add_access(*a.access, boxes[static_cast<size_t>(a.op)]);
}

void take_slice(Boxes& out, BufferAccesses::Accesses by, const OpBoxes& boxes) {
  out.n = 0;
  for (const BufferAccesses::Access& acc : by) {
    const TensorAccess& a = *acc.access;
    const Range* box = boxes[static_cast<size_t>(acc.op)];
    Box b;
    b.rank = static_cast<int>(a.index.size());
    bool empty = false;
    for (size_t j = 0; j < a.index.size() && !empty; ++j) {
      // A sum of dims with coefficient 1: one interval (IndexSet::of_affine's contiguous case).
      int64_t lo = a.index[j].offset, hi = lo + 1;
      for (const auto& term : a.index[j].terms) {
        const Range r = box[static_cast<size_t>(term.dim)];
        if (r.second <= r.first) empty = true;
        lo += r.first, hi += r.second - 1;
      }
      b.r[j] = {lo, hi};
    }
    if (empty) continue;
    bool known = false;
    for (int i = 0; i < out.n && !known; ++i) known = out.part[i] == b;
    if (known) continue;
    if (out.n == Boxes::kMaxParts) throw TooManyBoxes{};
    out.part[out.n++] = b;
  }
}

int64_t row_of(const MultiSlice& h) { return h.empty() || h.parts.front().empty() ? 1 : h.parts.front().back().size(); }

int64_t row_of(const Boxes& h) {
  if (h.empty() || h.part[0].rank == 0) return 1;
  const Range& r = h.part[0].r[h.part[0].rank - 1];
  return r.second - r.first;
}

// Where the representative's new slice is one box apart from what it held, every instance's is
// its box moved, and their union is the box spread along each axis; else as with sets.
int64_t merged_fresh(const Boxes& now, const Boxes& before, int64_t fresh, const Spreads& spreads) {
  if (spreads.empty()) return fresh;
  if (fresh == 0) return 0;
  // As spread_apart's size, without copying the spreads.
  if (apart_as_one(now, before, spreads, true)) return spread_size(now.part[0], spreads);
  return merged_fresh(now.multi_slice(), before.multi_slice(), fresh, spreads);
}

}  // namespace dfx::model
