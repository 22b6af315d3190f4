#pragma once
// Exact sets of tensor elements touched by a tile: per tensor dimension a sorted list of disjoint
// half-open intervals; a slice is their Cartesian product; a few slices may be united.
#include <boost/container/small_vector.hpp>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

#include "model/placement.h"
#include "model/span_list.h"
#include "model/workload.h"

namespace dfx::model {

// Exact sets of strided accesses need one interval per element in the worst case; past this many
// intervals the analysis gives up with a clear reason instead of running out of time or memory.
constexpr size_t kMaxSpans = size_t{1} << 20;

class SetTooLarge : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class IndexSet {
 public:
  IndexSet() = default;
  static IndexSet interval(int64_t lo, int64_t hi);
  // {offset + sum coef_i * x_i : x_i in box ranges}, exactly.
  static IndexSet of_affine(const AffineIndex& ix, const Range* box);
  // *this = of_affine(ix, box), reusing this set's storage.
  void assign_affine(const AffineIndex& ix, const Range* box);
  int64_t size() const;
  int64_t intersect_size(const IndexSet& o) const;
  IndexSet intersect(const IndexSet& o) const;
  IndexSet united(const IndexSet& o) const;
  // *this = united(o), in place where o starts at or after this set's last span (a write cover
  // growing step by step, nearly always).
  void unite(const IndexSet& o);
  bool contains(const IndexSet& o) const;  // o ⊆ this
  IndexSet minus(const IndexSet& o) const;
  IndexSet with_translates(int64_t step, int64_t first, int64_t last) const;
  // *this = united(with_translates(step, 1, count)), in place where it is one span its copies
  // touch (a buffer's cover growing over a loop's steps, nearly always).
  void add_translates(int64_t step, int64_t count);
  void shift(int64_t delta);
  bool empty() const { return spans_.empty(); }
  int64_t lo() const { return spans_.empty() ? 0 : spans_.front().first; }
  int64_t hi() const { return spans_.empty() ? 0 : spans_.back().second; }
  bool operator==(const IndexSet& o) const { return spans_ == o.spans_; }
  using Spans = SpanList;  // most sets are one interval
  const Spans& spans() const { return spans_; }

 private:
  Spans spans_;
  void normalize();
};

using Slice = boost::container::small_vector<IndexSet, 4>;  // one set per tensor dimension

int64_t slice_size(const Slice& s);
int64_t slice_overlap(const Slice& a, const Slice& b);
Slice slice_intersect(const Slice& a, const Slice& b);

// A union of slices (several ops of one subtree may touch a tensor differently).
struct MultiSlice {
  boost::container::small_vector<Slice, 2> parts;
  void add(Slice s);
  // add(access_slice(a, box)), built in place: slices are nested small vectors, and moving one
  // moves every set in it element by element.
  void add_access(const TensorAccess& a, const Range* box);
  int64_t size() const;                                  // |union|
  int64_t minus_size(const MultiSlice& older) const;     // |this − older|
  void shift(const std::vector<int64_t>& per_dim);
  bool empty() const { return parts.empty(); }
};

Slice access_slice(const TensorAccess& a, const Range* box);

}  // namespace dfx::model

namespace dfx::model {

// A set of elements as disjoint slices (products). Used for what several spatial instances need
// in one step together: the union of their per-instance differences, read once (multicast).
class Region {
 public:
  static Region difference(const MultiSlice& now, const MultiSlice& before);
  static Region of(const Slice& s);
  void unite(const Region& other);
  // The union of this region moved by k*step along tensor dimension `axis`, k = 0..count-1.
  void spread(size_t axis, int64_t step, int64_t count);
  int64_t size() const;
  int64_t size_outside(const Region& other) const;  // |this − other|
  bool empty() const { return pieces_.empty(); }

 private:
  std::vector<Slice> pieces_;
  void add(const Slice& s);          // keeps pieces disjoint
  static std::vector<Slice> minus(const Slice& p, const Slice& q);
  // p minus every slice of `qs`, as disjoint products.
  template <class Slices>
  static std::vector<Slice> minus_all(const Slice& p, const Slices& qs) {
    std::vector<Slice> parts = {p};
    for (const auto& q : qs) {
      std::vector<Slice> next;
      for (const auto& part : parts)
        for (auto& m : minus(part, q)) next.push_back(std::move(m));
      parts = std::move(next);
      if (parts.empty()) break;
    }
    return parts;
  }
};

// {x + k*step : x in set, 0 <= k < count}.
IndexSet spread_set(const IndexSet& set, int64_t step, int64_t count);

}  // namespace dfx::model
