#include "mapper/batch_scorer.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <memory>

namespace dfx::mapper {

BatchScorer::BatchScorer(const Space& space, const TreeScorer& scorer, int jobs)
    : space_(space), scorer_(scorer), pool_(std::max(1, jobs)) {}

ScoredBatch BatchScorer::score(size_t n, const std::function<Choice(size_t)>& choose,
                               const std::function<double(size_t, const Choice&)>& bar_of) {
  ScoredBatch out;
  out.chosen.resize(n);
  out.scored.resize(n);
  std::vector<double> bars(n);
  std::vector<TreeKey> keys(n);
  std::vector<const Scored*> hits(n);
  std::vector<char> ruled_out(n, 0);
  std::vector<size_t> from(n);  // the position whose result each one takes
  std::unique_ptr<std::atomic<bool>[]> ready(new std::atomic<bool>[n]);
  for (size_t i = 0; i < n; ++i) ready[i].store(false, std::memory_order_relaxed);
  // One pass on the threads: a position is prepared (its candidate and bar; unless its cycles
  // floor rules it out, its tree, key and look-up in the cache, which no thread writes during a
  // batch), then analysed unless a position before it that is prepared already holds the same
  // tree. Positions are handed out in order, so the only ones not yet prepared are the other
  // threads' current ones: rather than wait for those, a thread may now and then analyse a tree
  // twice (the same result: the analysis is a pure function of the tree). Which position's
  // analysis counts is settled after the pass, the same way whatever the threads did. No barrier
  // between the two (a batch's analyses begin while its last positions are drawn).
  std::atomic<size_t> next_position{0};
  auto run = [&] {
    for (size_t i = next_position++; i < n; i = next_position++) {
      out.chosen[i] = choose(i);
      bars[i] = bar_of(i, out.chosen[i]);
      // Whatever its tree, a candidate whose cycles floor is above its bar would not be used:
      // it is not built (about half of a search's candidates).
      // The tree lives and dies on the thread that builds it (only its key is kept, for the
      // cache): the batch's caller, which would free them all otherwise, runs alone.
      model::Dataflow tree;
      if (bars[i] < INFINITY && space_.cycles_floor(out.chosen[i]) > bars[i]) {
        ruled_out[i] = 1;
        out.chosen[i] = Choice{};
      } else {
        tree = space_.build(out.chosen[i], "candidate");
        keys[i] = tree_key(tree);
        hits[i] = cache_.find(keys[i]);
        // On machines timed by instructions the compute floor is 0; the tree's instructions
        // alone spare 16-75% of a search's analyses there (default budget: attention G2 /
        // tpu_like 8,467 -> 7,051, ViT attention / ascend_like 8,409 -> 4,475, conv C4 /
        // ascend_like 7,620 -> 1,910); on convolution chains the compute as the walk visits it
        // spares more (conv C1 / cloud with --polish 23,137 -> 2,507). Not cached: a later
        // position may have a higher bar.
        if (!hits[i] && bars[i] < INFINITY && scorer_.visited_floor(tree) > bars[i]) {
          ruled_out[i] = 1;
          out.chosen[i] = Choice{};
        }
      }
      ready[i].store(true, std::memory_order_release);
      if (ruled_out[i] || hits[i]) continue;
      bool repeat = false;
      for (size_t j = 0; j < i && !repeat; ++j)
        repeat = ready[j].load(std::memory_order_acquire) && !ruled_out[j] && !hits[j] && keys[j] == keys[i];
      if (!repeat) out.scored[i] = scorer_.score(tree);
    }
  };
  if (n > 1) pool_.run_on_all(run);
  else run();
  // The first position of each tree holds its analysis (it found no earlier one to take it from).
  for (size_t i = 0; i < n; ++i) {
    if (ruled_out[i] || hits[i]) continue;
    from[i] = i;
    for (size_t j = 0; j < i && from[i] == i; ++j)
      if (!ruled_out[j] && !hits[j] && keys[j] == keys[i]) from[i] = j;
  }
  for (size_t i = 0; i < n; ++i) {
    if (ruled_out[i]) {
      out.scored[i] = scorer_.ruled_out();
    } else if (hits[i]) {
      out.scored[i] = *hits[i];
    } else if (from[i] == i) {
      out.analyses += out.scored[i].analysed;
      cache_.insert(std::move(keys[i]), out.scored[i]);
    }
  }
  for (size_t i = 0; i < n; ++i)
    if (!ruled_out[i] && !hits[i] && from[i] != i) out.scored[i] = out.scored[from[i]];
  return out;
}

}  // namespace dfx::mapper
