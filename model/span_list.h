#pragma once
// The intervals of one IndexSet dimension: up to two kept inline, more on the heap. Sets are
// copied and moved constantly (every buffer slice is a few of them), and almost all are one
// interval: an inline pair of plain Ranges copies as a few words, where a generic small vector
// runs its element-by-element copy machinery each time.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "model/placement.h"

namespace dfx::model {

class SpanList {
 public:
  size_t size() const { return heap_.empty() ? small_ : heap_.size(); }
  bool empty() const { return size() == 0; }
  Range* begin() { return heap_.empty() ? inline_ : heap_.data(); }
  Range* end() { return begin() + size(); }
  const Range* begin() const { return heap_.empty() ? inline_ : heap_.data(); }
  const Range* end() const { return begin() + size(); }
  Range& operator[](size_t i) { return begin()[i]; }
  const Range& operator[](size_t i) const { return begin()[i]; }
  Range& front() { return *begin(); }
  const Range& front() const { return *begin(); }
  Range& back() { return end()[-1]; }
  const Range& back() const { return end()[-1]; }
  void clear() { small_ = 0, heap_.clear(); }
  // A hint for when the list outgrows the inline pair: most lists reserved for several
  // intervals end up with one or two, and those should not touch the heap.
  void reserve(size_t n) {
    if (!heap_.empty()) heap_.reserve(n);
    else spill_size_ = std::max(spill_size_, n);
  }
  void push_back(const Range& r) {
    if (heap_.empty() && small_ < kInline) {
      inline_[small_++] = r;
      return;
    }
    if (heap_.empty()) {
      heap_.reserve(std::max<size_t>(spill_size_, 4 * kInline));
      heap_.assign(inline_, inline_ + small_), small_ = 0;
    }
    heap_.push_back(r);
  }
  bool operator==(const SpanList& o) const {
    if (size() != o.size()) return false;
    for (size_t i = 0; i < size(); ++i)
      if ((*this)[i] != o[i]) return false;
    return true;
  }

 private:
  static constexpr uint32_t kInline = 2;
  uint32_t small_ = 0;       // inline intervals in use (while the heap list is empty)
  size_t spill_size_ = 0;    // capacity to give the heap list when it starts
  Range inline_[kInline];
  std::vector<Range> heap_;  // every interval, once there are more than kInline
};

}  // namespace dfx::model
