#include "mapper/batch_scorer.h"

#include <algorithm>
#include <atomic>
#include <cmath>

namespace dfx::mapper {

BatchScorer::BatchScorer(const Space& space, const TreeScorer& scorer, int jobs)
    : space_(space), scorer_(scorer), pool_(std::max(1, jobs)) {}

ScoredBatch BatchScorer::score(size_t n, const std::function<Choice(size_t)>& choose,
                               const std::function<double(size_t, const Choice&)>& bar_of) {
  ScoredBatch out;
  out.chosen.resize(n);
  out.scored.resize(n);
  std::vector<double> bars(n);
  std::vector<model::Dataflow> trees(n);
  std::vector<TreeKey> keys(n);
  std::vector<const Scored*> hits(n);
  std::vector<char> ruled_out(n, 0);
  std::atomic<size_t> next_position{0};
  pool_.run_on_all([&] {
    for (size_t i = next_position++; i < n; i = next_position++) {
      out.chosen[i] = choose(i);
      bars[i] = bar_of(i, out.chosen[i]);
      // Whatever its tree, a candidate whose cycles floor is above its bar would not be used:
      // it is not built (about half of a search's candidates).
      if (bars[i] < INFINITY && space_.cycles_floor(out.chosen[i]) > bars[i]) {
        ruled_out[i] = 1;
        continue;
      }
      trees[i] = space_.build(out.chosen[i], "candidate");
      keys[i] = tree_key(trees[i]);
      hits[i] = cache_.find(keys[i]);
    }
  });
  std::vector<size_t> from(n);  // the position whose result each one takes
  std::vector<size_t> work;     // positions to analyse
  for (size_t i = 0; i < n; ++i) {
    from[i] = i;
    if (ruled_out[i]) {
      out.scored[i] = scorer_.ruled_out();
      continue;
    }
    if (hits[i]) {
      out.scored[i] = *hits[i];
      continue;
    }
    auto twin = std::find_if(work.begin(), work.end(), [&](size_t j) { return keys[j] == keys[i]; });
    if (twin != work.end()) from[i] = *twin;
    else work.push_back(i);
  }
  std::atomic<size_t> next{0};  // candidates differ in cost: hand them out one at a time
  auto run = [&] {
    for (size_t k = next++; k < work.size(); k = next++) out.scored[work[k]] = scorer_.score(trees[work[k]]);
  };
  if (work.size() > 1) pool_.run_on_all(run);
  else run();
  for (size_t i : work) {
    out.analyses += out.scored[i].analysed;
    cache_.insert(std::move(keys[i]), out.scored[i]);
  }
  for (size_t i = 0; i < n; ++i)
    if (from[i] != i) out.scored[i] = out.scored[from[i]];
  return out;
}

}  // namespace dfx::mapper
