#pragma once
// How a search splits a --time budget among its phases as it splits --evals (mapper/search.cpp):
// the named baselines' tiling searches a third of the search's time — their climbs side by side
// end together by the third's end (baseline_end of the last); MCTS searches, one after another,
// each by its part's end (Layerwise's is double; one that ends early leaves the rest to the next); then
// the open search up to its end; then the --polish sweeps (a tenth of the search's time each, as
// of its evaluations), each an equal part of what is left. Without --time no phase ends (+infinity).
#include <algorithm>
#include <cmath>
#include <vector>

namespace dfx::mapper {

class TimeBudget {
 public:
  TimeBudget() = default;
  // `parts`: per named baseline, its part of their third; `sweeps`: the --polish sweeps' time
  // together, as a fraction of the search's.
  TimeBudget(double seconds, const std::vector<int>& parts, double sweeps) : seconds_(seconds) {
    if (seconds <= 0) return;
    search_ = seconds / (1 + sweeps);
    int total = 0;
    for (int p : parts) total += p;
    double end = 0;
    for (int p : parts) baseline_ends_.push_back(end += search_ / 3 * p / std::max(1, total));
  }
  // In seconds from the search's start.
  double baseline_end(size_t b) const { return b < baseline_ends_.size() ? baseline_ends_[b] : INFINITY; }
  double search_end() const { return search_; }
  // A sweep starting at `now`, with `left` sweeps to run (this one included).
  double sweep_end(double now, int left) const {
    return seconds_ > 0 ? now + std::max(0.0, seconds_ - now) / std::max(1, left) : INFINITY;
  }

 private:
  double seconds_ = 0, search_ = INFINITY;
  std::vector<double> baseline_ends_;
};

}  // namespace dfx::mapper
