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
  std::vector<double> bars(n), floors(n, 0);  // floors: of the compute, for the analysis's fill check
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
    // A position's tree lives on the thread that builds it (only its key is kept, for the
    // cache): the batch's caller, which would free them all otherwise, runs alone. Its storage
    // is kept from position to position and batch to batch (Space::build_into).
    thread_local model::Dataflow tree;
    for (size_t i = next_position++; i < n; i = next_position++) {
      out.chosen[i] = choose(i);
      bars[i] = bar_of(i, out.chosen[i]);
      // Whatever its tree, a candidate whose cycles floor is above its bar would not be used:
      // it is not built (about half of a search's candidates).
      if (bars[i] < INFINITY) floors[i] = space_.cycles_floor(out.chosen[i]);
      if (floors[i] > bars[i]) {
        ruled_out[i] = 1;
        out.chosen[i] = Choice{};
      } else {
        space_.build_into(out.chosen[i], "candidate", tree);
        keys[i] = tree_key(tree);
        hits[i] = cache_.find(keys[i]);
        // An analysis that gave up at its fill is kept with the cycles it vouched for: below
        // them the tree is ruled out again; above them it is analysed in full.
        if (hits[i] && hits[i]->ruled_out) {
          if (hits[i]->at_least > bars[i]) ruled_out[i] = 1, out.chosen[i] = Choice{};
          hits[i] = nullptr;
        }
        // On machines timed by instructions the compute floor is 0; the tree's instructions
        // alone spare 16-75% of a search's analyses there (default budget: attention G2 /
        // tpu_like 8,467 -> 7,051, ViT attention / ascend_like 8,409 -> 4,475, conv C4 /
        // ascend_like 7,620 -> 1,910); on convolution chains the compute as the walk visits it
        // spares more (conv C1 / cloud with --polish 23,137 -> 2,507). Not cached: a later
        // position may have a higher bar.
        if (!hits[i] && !ruled_out[i] && bars[i] < INFINITY) {
          const double visited = scorer_.visited_floor(tree);
          if (visited > bars[i]) ruled_out[i] = 1, out.chosen[i] = Choice{};
          else if (scorer_.visited_floor_is_compute()) floors[i] = std::max(floors[i], visited);
        }
      }
      ready[i].store(true, std::memory_order_release);
      if (ruled_out[i] || hits[i]) continue;
      bool repeat = false;
      for (size_t j = 0; j < i && !repeat; ++j)
        repeat = ready[j].load(std::memory_order_acquire) && !ruled_out[j] && !hits[j] && keys[j] == keys[i];
      // The analysis itself may give up once its pipeline's fill shows the cycles above the bar
      // (model::analyze_below: 6-7% of attention G1 / edge's analyses).
      if (!repeat) out.scored[i] = scorer_.score(tree, model::CyclesBar{floors[i], bars[i]});
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
  // Hits are copied before anything is kept: a full cache starts again empty, and the entries
  // hits[] point to with it.
  for (size_t i = 0; i < n; ++i) {
    if (ruled_out[i]) out.scored[i] = scorer_.ruled_out();
    else if (hits[i]) out.scored[i] = *hits[i];
  }
  // An analysis that gave up (Scored::ruled_out) is kept too, with its `at_least`; a full one
  // later takes its place.
  for (size_t i = 0; i < n; ++i) {
    if (ruled_out[i] || hits[i]) continue;
    if (from[i] == i) {
      if (out.scored[i].ruled_out) out.chosen[i] = Choice{};
      else out.analyses += out.scored[i].analysed;
      cache_.insert(std::move(keys[i]), out.scored[i]);
    }
  }
  // Repeats take their first position's result; where that analysis gave up under a lower bar
  // than theirs, the first of them with a bar it does not exceed is analysed again (rare: the
  // same tree drawn twice in a batch with different bars), and the others take that.
  std::vector<size_t> full(n, n);  // per first position: the repeat analysed in full for it
  for (size_t i = 0; i < n; ++i) {
    if (ruled_out[i] || hits[i] || from[i] == i) continue;
    const size_t first = from[i];
    const Scored& taken = out.scored[first];
    if (!taken.ruled_out || taken.at_least > bars[i]) {
      out.scored[i] = taken;
    } else if (full[first] < n) {
      out.scored[i] = out.scored[full[first]];
    } else {
      out.scored[i] = scorer_.score(space_.build(out.chosen[i], "candidate"), model::CyclesBar{floors[i], bars[i]});
      if (!out.scored[i].ruled_out) {
        full[first] = i;
        out.analyses += out.scored[i].analysed;
        cache_.insert(std::move(keys[i]), out.scored[i]);
      }
    }
    if (out.scored[i].ruled_out) out.chosen[i] = Choice{};
  }
  return out;
}

}  // namespace dfx::mapper
