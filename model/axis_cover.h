#pragma once
// One axis of what a written buffer has covered (the walk's cover, a set per axis: IndexSet), kept
// as a run of equal intervals evenly apart — {lo + k·step + [0, len) : 0 <= k < count} — while it
// is one, as the template's loops make it (a slice and its later steps' copies), and as a general
// set once it is not. The closed form (model/template_eval.cpp) grows thousands of covers a second;
// as a run each change is a few comparisons where the set's was a merge of lists. Internal to
// model/; tests/unit/axis_cover_test.cpp holds it to IndexSet on random changes.
#include <cstdint>

#include "model/index_set.h"

namespace dfx::model {

class AxisCover {
 public:
  bool empty() const { return !general_ && count_ == 0; }
  // As a new one (covers are emptied by the thousand a search: assigning a new one built and
  // moved a set each time). The set is in use only where general.
  void clear() {
    lo_ = len_ = step_ = count_ = 0;
    if (general_) general_ = false, set_ = IndexSet();
  }
  // ∪= [lo, hi).
  void add_interval(int64_t lo, int64_t hi);
  // ∪= o.
  void add(const AxisCover& o);
  // ∪= its copies moved by k·step for k = 1..count (IndexSet::add_translates).
  void add_translates(int64_t step, int64_t count);
  int64_t size() const;
  IndexSet set() const;

 private:
  // The run, normalised: count_ == 0 empty; count_ == 1 one interval (step_ == len_); else
  // step_ > len_ (copies apart).
  int64_t lo_ = 0, len_ = 0, step_ = 0, count_ = 0;
  bool general_ = false;
  IndexSet set_;  // when general_
  void assign_run(int64_t lo, int64_t len, int64_t step, int64_t count);
  void make_general();
  // Adds a run (normalised) by the run rules, or returns false where the union is not one.
  bool add_run(int64_t lo, int64_t len, int64_t step, int64_t count);
};

}  // namespace dfx::model
