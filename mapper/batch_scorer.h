#pragma once
// A search's batches of candidates, scored on its threads (mapper/search_batches.cpp). Everything a
// position needs that depends on it alone — its candidate, its bar, whether its cycles floor
// (Space::cycles_floor) rules it out, and if not its tree, its key, its look-up in the cache
// (which no thread writes during a batch) and whether a floor from the walk's visits
// (TreeScorer::visited_floor) rules it out — is done on the threads, and in the same pass its
// analysis, unless a position before it holds the same tree (a tree chosen twice in the batch is
// counted as analysed once, for its first position, and analysed once unless the second thread
// got to it before the first had its key). The thread count changes how many analyses run, never
// a result or a count reported; the cache changes neither the results nor `analyses`, but a tree
// it answers is not checked against the visited floor, so it counts as valid where, not yet in
// the cache, it could have counted as ruled out.
#include <cstdint>
#include <functional>
#include <vector>

#include "mapper/analysis_cache.h"
#include "mapper/space.h"
#include "mapper/tree_scorer.h"
#include "mapper/worker_pool.h"

namespace dfx::mapper {

struct ScoredBatch {
  // Per position: its candidate; empty where its cycles floor ruled it out (dropped on the
  // thread that drew it: nothing uses a candidate that could not be used).
  std::vector<Choice> chosen;
  std::vector<Scored> scored;  // per position: its result
  int64_t analyses = 0;        // analyses run for it (the rest were repeats or rejected early)
};

class BatchScorer {
 public:
  BatchScorer(const Space& space, const TreeScorer& scorer, int jobs);

  // Position i takes the candidate `choose(i)` and the bar `bar_of(i, candidate)`, the cost below
  // which its result would be used: above it, Space::cycles_floor or TreeScorer::visited_floor
  // rules it out (TreeScorer::ruled_out()). Both are called on the threads, side by side for
  // different positions.
  ScoredBatch score(size_t n, const std::function<Choice(size_t)>& choose,
                    const std::function<double(size_t, const Choice&)>& bar_of);

 private:
  const Space& space_;
  const TreeScorer& scorer_;
  AnalysisCache cache_;
  WorkerPool pool_;
};

}  // namespace dfx::mapper
