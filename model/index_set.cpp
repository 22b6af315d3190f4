#include "model/index_set.h"

#include <algorithm>
#include <cstdint>

namespace dfx::model {

IndexSet IndexSet::interval(int64_t lo, int64_t hi) {
  IndexSet s;
  if (hi > lo) s.spans_.push_back({lo, hi});
  return s;
}

void IndexSet::normalize() {
  std::sort(spans_.begin(), spans_.end());
  Spans out;
  for (const auto& r : spans_) {
    if (r.second <= r.first) continue;
    if (!out.empty() && r.first <= out.back().second)
      out.back().second = std::max(out.back().second, r.second);
    else
      out.push_back(r);
  }
  spans_ = std::move(out);
}

IndexSet IndexSet::of_affine(const AffineIndex& ix, const Range* box) {
  // Minkowski sum term by term; unit-coefficient terms first keep the span list short.
  const auto& all = ix.terms;
  if (all.size() == 1 && all[0].coef == 1) {  // the common case: a plain dimension
    const Range r = box[static_cast<size_t>(all[0].dim)];
    return interval(ix.offset + r.first, ix.offset + r.second);
  }
  boost::container::small_vector<AffineIndex::Term, 4> terms(all.begin(), all.end());
  for (size_t i = 1; i < terms.size(); ++i)  // insertion sort by coefficient: stable, few terms
    for (size_t j = i; j > 0 && terms[j].coef < terms[j - 1].coef; --j) std::swap(terms[j], terms[j - 1]);
  IndexSet s = interval(ix.offset, ix.offset + 1);
  for (const auto& t : terms) {
    const Range r = box[static_cast<size_t>(t.dim)];
    if (r.second <= r.first) return IndexSet();
    IndexSet next;
    const int64_t width = s.spans_.empty() ? 0 : s.spans_.front().second - s.spans_.front().first;
    bool contiguous = s.spans_.size() == 1 && t.coef <= width;
    if (contiguous) {
      next.spans_.push_back({s.spans_[0].first + t.coef * r.first,
                             s.spans_[0].second + t.coef * (r.second - 1)});
    } else {
      if (s.spans_.size() * static_cast<size_t>(r.second - r.first) > kMaxSpans)
        throw SetTooLarge("a strided access needs " + std::to_string(s.spans_.size() * static_cast<size_t>(r.second - r.first)) +
                          " separate intervals at this tile size (more than the 2^20 dfx tracks exactly): tile the "
                          "strided dimension more finely or widen its window");
      for (const auto& sp : s.spans_)
        for (int64_t v = r.first; v < r.second; ++v)
          next.spans_.push_back({sp.first + t.coef * v, sp.second + t.coef * v});
      next.normalize();
    }
    s = std::move(next);
  }
  return s;
}

void IndexSet::assign_affine(const AffineIndex& ix, const Range* box) {
  if (ix.terms.size() == 1 && ix.terms[0].coef == 1) {  // the common case: a plain dimension
    const Range r = box[static_cast<size_t>(ix.terms[0].dim)];
    spans_.clear();
    if (r.second > r.first) spans_.push_back({ix.offset + r.first, ix.offset + r.second});
    return;
  }
  *this = of_affine(ix, box);
}

int64_t IndexSet::size() const {
  int64_t n = 0;
  for (const auto& r : spans_) n += r.second - r.first;
  return n;
}

IndexSet IndexSet::intersect(const IndexSet& o) const {
  IndexSet out;
  size_t i = 0, j = 0;
  while (i < spans_.size() && j < o.spans_.size()) {
    int64_t lo = std::max(spans_[i].first, o.spans_[j].first);
    int64_t hi = std::min(spans_[i].second, o.spans_[j].second);
    if (hi > lo) out.spans_.push_back({lo, hi});
    if (spans_[i].second < o.spans_[j].second) ++i; else ++j;
  }
  return out;
}

int64_t IndexSet::intersect_size(const IndexSet& o) const {
  if (spans_.size() == 1 && o.spans_.size() == 1)
    return std::max<int64_t>(0, std::min(spans_[0].second, o.spans_[0].second) -
                                    std::max(spans_[0].first, o.spans_[0].first));
  return intersect(o).size();
}

IndexSet IndexSet::united(const IndexSet& o) const {
  // Both lists are sorted and disjoint: merge them in one pass.
  IndexSet out;
  out.spans_.reserve(spans_.size() + o.spans_.size());
  size_t i = 0, j = 0;
  while (i < spans_.size() || j < o.spans_.size()) {
    const Range& next = (j == o.spans_.size() || (i < spans_.size() && spans_[i].first <= o.spans_[j].first))
                            ? spans_[i++] : o.spans_[j++];
    if (!out.spans_.empty() && next.first <= out.spans_.back().second)
      out.spans_.back().second = std::max(out.spans_.back().second, next.second);
    else
      out.spans_.push_back(next);
  }
  return out;
}

void IndexSet::unite(const IndexSet& o) {
  if (o.spans_.empty()) return;
  if (spans_.empty() || o.spans_.front().first < spans_.back().first) {
    *this = united(o);
    return;
  }
  // Every span before our last one ends before o starts: o merges into the tail.
  for (const Range& r : o.spans_) {
    if (r.first <= spans_.back().second) spans_.back().second = std::max(spans_.back().second, r.second);
    else spans_.push_back(r);
  }
}

bool IndexSet::contains(const IndexSet& o) const {
  const size_t n = spans_.size();
  if (n == 1 && o.spans_.size() == 1) {  // nearly always
    const Range &a = spans_.front(), &b = o.spans_.front();
    return a.first <= b.first && b.second <= a.second;
  }
  // Both lists are sorted and disjoint: each of o's spans must lie in one of ours. A long list
  // (a cover over many steps) is searched for the first.
  size_t i = 0;
  if (n > 8 && !o.spans_.empty()) {
    const int64_t end = o.spans_.front().second;
    i = static_cast<size_t>(std::lower_bound(spans_.begin(), spans_.end(), end, [](const Range& s, int64_t e) { return s.second < e; }) -
                            spans_.begin());
  }
  for (const Range& r : o.spans_) {
    while (i < n && spans_[i].second < r.second) ++i;
    if (i == n || spans_[i].first > r.first) return false;
  }
  return true;
}

IndexSet IndexSet::minus(const IndexSet& o) const {
  // Both lists are sorted and disjoint: cut o's spans out of each span in one pass.
  IndexSet out;
  size_t j = 0;
  for (const Range& r : spans_) {
    int64_t cur = r.first;
    while (j < o.spans_.size() && o.spans_[j].second <= cur) ++j;
    for (size_t k = j; k < o.spans_.size() && o.spans_[k].first < r.second; ++k) {
      if (o.spans_[k].first > cur) out.spans_.push_back({cur, o.spans_[k].first});
      cur = std::max(cur, o.spans_[k].second);
    }
    if (cur < r.second) out.spans_.push_back({cur, r.second});
  }
  return out;
}

IndexSet IndexSet::with_translates(int64_t step, int64_t first, int64_t last) const {
  // {x + k*step : x in this, first <= k <= last}.
  IndexSet out;
  if (spans_.empty() || last < first) return out;
  const int64_t span = step < 0 ? -step : step;
  bool wide = true;
  for (const auto& r : spans_) wide = wide && r.second - r.first >= span;
  if (wide) {
    // Each span's copies touch one another: one longer span each, still in order.
    const int64_t lo_k = step >= 0 ? first : last, hi_k = step >= 0 ? last : first;
    for (const auto& r : spans_) {
      const Range grown{r.first + lo_k * step, r.second + hi_k * step};
      if (!out.spans_.empty() && grown.first <= out.spans_.back().second)
        out.spans_.back().second = std::max(out.spans_.back().second, grown.second);
      else
        out.spans_.push_back(grown);
    }
    return out;
  }
  if (spans_.size() * static_cast<size_t>(last - first + 1) > kMaxSpans)
    throw SetTooLarge("the elements a buffer holds over " + std::to_string(last - first + 1) +
                      " steps fall into more than 2^20 separate intervals: too fine-grained to track exactly");
  out.spans_.reserve(spans_.size() * static_cast<size_t>(last - first + 1));
  for (int64_t k = first; k <= last; ++k)
    for (const auto& r : spans_) out.spans_.push_back({r.first + k * step, r.second + k * step});
  out.normalize();
  return out;
}

void IndexSet::add_translates(int64_t step, int64_t count) {
  if (count < 1 || step == 0 || spans_.empty()) return;
  const int64_t span = step < 0 ? -step : step;
  if (spans_.size() == 1 && spans_[0].second - spans_[0].first >= span) {
    (step > 0 ? spans_[0].second : spans_[0].first) += step * count;
    return;
  }
  if (hi() - lo() > span) {
    *this = united(with_translates(step, 1, count));
    return;
  }
  // The set fits in one step (a write cover with gaps: a spread, or a chunk of a wider step), so
  // its copies lie one after another: listed in order, a copy's span that touches the one before
  // merged into it — the normalised union, without sorting or merging two lists.
  if (spans_.size() * static_cast<size_t>(count) > kMaxSpans)
    throw SetTooLarge("the elements a buffer holds over " + std::to_string(count) +
                      " steps fall into more than 2^20 separate intervals: too fine-grained to track exactly");
  Spans out;
  out.reserve(spans_.size() * static_cast<size_t>(count + 1));
  for (int64_t i = 0; i <= count; ++i) {
    const int64_t by = (step > 0 ? i : count - i) * step;  // copies in increasing order
    for (const auto& r : spans_) {
      if (!out.empty() && r.first + by <= out.back().second)
        out.back().second = std::max(out.back().second, r.second + by);
      else
        out.push_back({r.first + by, r.second + by});
    }
  }
  spans_ = std::move(out);
}

void IndexSet::shift(int64_t delta) {
  for (auto& r : spans_) r.first += delta, r.second += delta;
}

int64_t slice_size(const Slice& s) {
  int64_t n = 1;
  for (const auto& d : s) n *= d.size();
  return n;
}

int64_t slice_overlap(const Slice& a, const Slice& b) {
  int64_t n = 1;
  for (size_t i = 0; i < a.size() && n; ++i) n *= a[i].intersect_size(b[i]);
  return n;
}

Slice slice_intersect(const Slice& a, const Slice& b) {
  Slice out(a.size());
  for (size_t i = 0; i < a.size(); ++i) out[i] = a[i].intersect(b[i]);
  return out;
}

void MultiSlice::add(Slice s) {
  if (slice_size(s) == 0) return;
  for (const auto& p : parts)
    if (p == s) return;
  parts.push_back(std::move(s));
}

void MultiSlice::add_access(const TensorAccess& a, const Range* box) {
  parts.emplace_back(a.index.size());
  Slice& s = parts.back();
  for (size_t j = 0; j < a.index.size(); ++j) s[j].assign_affine(a.index[j], box);
  bool keep = slice_size(s) != 0;
  for (size_t i = 0; keep && i + 1 < parts.size(); ++i) keep = !(parts[i] == s);
  if (!keep) parts.pop_back();
}

namespace {
// |union of parts| by inclusion–exclusion; parts are few (one per op touching the tensor).
using SlicePtrs = boost::container::small_vector<const Slice*, 8>;
// True when every set of every part is one interval or empty: then an intersection of parts
// is a box, sized with no set built.
bool all_boxes(const SlicePtrs& parts) {
  for (const Slice* p : parts)
    for (const IndexSet& set : *p)
      if (set.spans().size() > 1) return false;
  return true;
}

int64_t union_size_of_boxes(const SlicePtrs& parts) {
  const size_t n = parts.size(), rank = parts.front()->size();
  int64_t total = 0;
  for (uint32_t mask = 1; mask < (1u << n); ++mask) {
    int64_t common = 1;
    for (size_t j = 0; j < rank && common > 0; ++j) {
      int64_t lo = INT64_MIN, hi = INT64_MAX;
      for (size_t i = 0; i < n; ++i) {
        if (!(mask & (1u << i))) continue;
        const IndexSet& set = (*parts[i])[j];
        if (set.empty()) lo = 0, hi = 0;
        else lo = std::max(lo, set.lo()), hi = std::min(hi, set.hi());
      }
      common *= std::max<int64_t>(0, hi - lo);
    }
    total += (__builtin_popcount(mask) % 2 ? 1 : -1) * common;
  }
  return total;
}

int64_t union_size(const SlicePtrs& parts) {
  const size_t n = parts.size();
  if (n == 0) return 0;
  if (n == 1) return slice_size(*parts[0]);
  if (all_boxes(parts)) return union_size_of_boxes(parts);
  int64_t total = 0;
  for (uint32_t mask = 1; mask < (1u << n); ++mask) {
    Slice acc;
    bool first = true;
    int bits = 0;
    for (size_t i = 0; i < n; ++i) {
      if (!(mask & (1u << i))) continue;
      ++bits;
      acc = first ? *parts[i] : slice_intersect(acc, *parts[i]);
      first = false;
    }
    total += (bits % 2 ? 1 : -1) * slice_size(acc);
  }
  return total;
}
}  // namespace

int64_t MultiSlice::size() const {
  SlicePtrs ptrs;
  for (const auto& p : parts) ptrs.push_back(&p);
  return union_size(ptrs);
}

int64_t MultiSlice::minus_size(const MultiSlice& older) const {
  if (parts.size() == 1 && older.parts.size() == 1)
    return slice_size(parts[0]) - slice_overlap(parts[0], older.parts[0]);
  SlicePtrs all, old;
  for (const auto& p : parts) all.push_back(&p);
  for (const auto& p : older.parts) all.push_back(&p), old.push_back(&p);
  return union_size(all) - union_size(old);
}

void MultiSlice::shift(const std::vector<int64_t>& per_dim) {
  for (auto& p : parts)
    for (size_t i = 0; i < p.size(); ++i)
      if (per_dim[i]) p[i].shift(per_dim[i]);
}

Slice access_slice(const TensorAccess& a, const Range* box) {
  Slice s;
  s.reserve(a.index.size());
  for (const auto& ix : a.index) s.push_back(IndexSet::of_affine(ix, box));
  return s;
}

}  // namespace dfx::model

namespace dfx::model {

IndexSet spread_set(const IndexSet& set, int64_t step, int64_t count) {
  if (step == 0 || set.empty() || count <= 1) return set;
  const int64_t span = step > 0 ? step : -step;
  if (set.spans().size() == 1 && set.size() >= span) {
    if (step > 0) return IndexSet::interval(set.lo(), set.hi() + step * (count - 1));
    return IndexSet::interval(set.lo() + step * (count - 1), set.hi());
  }
  return set.with_translates(step, 0, count - 1);
}

std::vector<Slice> Region::minus(const Slice& p, const Slice& q) {
  // p − q as disjoint products: peel one dimension at a time.
  if (slice_overlap(p, q) == 0) return {p};
  std::vector<Slice> out;
  Slice rest = p;
  for (size_t j = 0; j < p.size(); ++j) {
    IndexSet keep = rest[j].minus(q[j]);  // elements of rest[j] not in q[j]
    if (!keep.empty()) {
      out.push_back(rest);
      out.back()[j] = std::move(keep);
    }
    rest[j] = rest[j].intersect(q[j]);
    if (rest[j].empty()) break;
  }
  return out;
}

namespace {
bool slice_contains(const Slice& outer, const Slice& inner) {
  for (size_t j = 0; j < outer.size(); ++j)
    if (!outer[j].contains(inner[j])) return false;
  return true;
}
}  // namespace

void Region::add(const Slice& s) {
  if (slice_size(s) == 0) return;
  // Most slices meet no piece, or lie inside one: no products to cut then.
  bool meets = false;
  for (const auto& q : pieces_) {
    if (slice_overlap(s, q) == 0) continue;
    if (slice_contains(q, s)) return;
    meets = true;
    break;
  }
  if (!meets) {
    pieces_.push_back(s);
    return;
  }
  for (auto& part : minus_all(s, pieces_))
    if (slice_size(part) > 0) pieces_.push_back(std::move(part));
}

Region Region::difference(const MultiSlice& now, const MultiSlice& before) {
  Region r;
  for (const auto& p : now.parts) {
    std::vector<Slice> parts = before.parts.size() == 1 ? minus(p, before.parts.front()) : minus_all(p, before.parts);
    // One slice's pieces are disjoint already; several slices' may meet.
    if (now.parts.size() == 1) {
      for (auto& part : parts)
        if (slice_size(part) > 0) r.pieces_.push_back(std::move(part));
    } else {
      for (const auto& part : parts) r.add(part);
    }
  }
  return r;
}

Region Region::of(const Slice& s) {
  Region r;
  r.add(s);
  return r;
}

void Region::unite(const Region& other) {
  for (const auto& p : other.pieces_) add(p);
}

void Region::spread(size_t axis, int64_t step, int64_t count) {
  if (step == 0 || count <= 1) return;
  std::vector<Slice> old = std::move(pieces_);
  pieces_.clear();
  for (auto& p : old) {
    p[axis] = spread_set(p[axis], step, count);
    add(p);
  }
}

int64_t Region::size_outside(const Region& other) const {
  int64_t n = 0;
  for (const auto& p : pieces_) {
    const bool meets = std::any_of(other.pieces_.begin(), other.pieces_.end(), [&](const Slice& q) { return slice_overlap(p, q) > 0; });
    if (!meets) {
      n += slice_size(p);
      continue;
    }
    for (const auto& part : minus_all(p, other.pieces_)) n += slice_size(part);
  }
  return n;
}

int64_t Region::size() const {
  int64_t n = 0;
  for (const auto& p : pieces_) n += slice_size(p);
  return n;
}

}  // namespace dfx::model
