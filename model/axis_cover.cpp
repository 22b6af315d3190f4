// AxisCover: a run of equal intervals while the union stays one, a general set after.
#include "model/axis_cover.h"

#include <algorithm>

#include "model/divide.h"

namespace dfx::model {

void AxisCover::assign_run(int64_t lo, int64_t len, int64_t step, int64_t count) {
  if (count <= 0 || len <= 0) {
    count_ = 0;
    return;
  }
  if (count == 1) step = len;
  if (step < 0) lo += (count - 1) * step, step = -step;  // the same copies, listed upwards
  if (step <= len) len += (count - 1) * step, step = len, count = 1;  // copies that touch: one interval
  lo_ = lo, len_ = len, step_ = step, count_ = count;
}

void AxisCover::make_general() {
  if (general_) return;
  set_ = set();
  general_ = true;
}

bool AxisCover::add_run(int64_t lo, int64_t len, int64_t step, int64_t count) {
  if (count_ == 0) return assign_run(lo, len, step, count), true;
  const int64_t hi = lo + (count - 1) * step + len, q_hi = lo_ + (count_ - 1) * step_ + len_;
  if (count_ == 1) {
    if (lo >= lo_ && hi <= q_hi) return true;  // inside the interval
    if (count == 1 && lo <= q_hi && lo_ <= hi) {  // two intervals that meet
      const int64_t from = std::min(lo, lo_);
      return assign_run(from, std::max(hi, q_hi) - from, 0, 1), true;
    }
  } else if (len <= len_ && (count == 1 || remainder(step, step_) == 0)) {
    // Inside the run: its first and last intervals each inside one of the run's (the others
    // follow at the same place in the run's period).
    auto inside = [&](int64_t from) {
      if (from < lo_) return false;
      const int64_t k = divide(from - lo_, step_);
      return k < count_ && from + len <= lo_ + k * step_ + len_;
    };
    if (inside(lo) && inside(lo + (count - 1) * step)) return true;
  }
  // Copies of one length at one spacing and at one phase, with no gap between the two runs of
  // them: one run.
  if (len != len_) return false;
  const int64_t spacing = count_ >= 2 ? step_ : count >= 2 ? step : std::abs(lo - lo_);
  if (spacing <= 0 || (count_ >= 2 && step_ != spacing) || (count >= 2 && step != spacing) || remainder(lo - lo_, spacing) != 0) return false;
  const int64_t k = divide(lo - lo_, spacing);
  if (k > count_ || k + count < 0) return false;  // a gap of missing copies between them
  const int64_t first = std::min<int64_t>(0, k), last = std::max(count_, k + count);
  assign_run(lo_ + first * spacing, len, spacing, last - first);
  return true;
}

void AxisCover::add_interval(int64_t lo, int64_t hi) {
  if (hi <= lo) return;
  if (!general_ && add_run(lo, hi - lo, hi - lo, 1)) return;
  make_general();
  const IndexSet part = IndexSet::interval(lo, hi);
  if (!set_.contains(part)) set_.unite(part);
}

void AxisCover::add(const AxisCover& o) {
  if (o.empty()) return;
  if (!general_ && !o.general_ && add_run(o.lo_, o.len_, o.step_, o.count_)) return;
  make_general();
  const IndexSet part = o.set();
  if (!set_.contains(part)) set_.unite(part);
}

void AxisCover::add_translates(int64_t step, int64_t count) {
  if (count < 1 || step == 0 || empty()) return;
  if (!general_) {
    const int64_t apart = std::abs(step);
    if (count_ == 1) {  // an interval's copies: one interval, or a run of them
      if (apart <= len_) return assign_run(step > 0 ? lo_ : lo_ + step * count, len_ + apart * count, 0, 1);
      return assign_run(step > 0 ? lo_ : lo_ + step * count, len_, apart, count + 1);
    }
    if (apart <= len_)  // each interval's copies touch it: longer intervals, at the same places
      return assign_run(step > 0 ? lo_ : lo_ - apart * count, len_ + apart * count, step_, count_);
    if (remainder(apart, step_) == 0 && divide(apart, step_) <= count_) {  // copies at the run's phase, no gap
      const int64_t more = divide(apart, step_) * count;
      return assign_run(step > 0 ? lo_ : lo_ - more * step_, len_, step_, count_ + more);
    }
  }
  make_general();
  set_.add_translates(step, count);
}

int64_t AxisCover::size() const { return general_ ? set_.size() : count_ * len_; }

IndexSet AxisCover::set() const {
  if (general_) return set_;
  if (count_ == 0) return IndexSet();
  IndexSet s = IndexSet::interval(lo_, lo_ + len_);
  s.add_translates(step_, count_ - 1);
  return s;
}

}  // namespace dfx::model
