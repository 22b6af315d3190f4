#pragma once
// Monte-Carlo tree search over the tiling of a fixed structure (REFERENCE.md §7): one decision at
// a time (Space::tiling_options), children picked by UCB1, random completions scored by the model.
#include <cstdint>
#include <functional>
#include <random>
#include <vector>

#include "mapper/rng.h"
#include "mapper/space.h"

namespace dfx::mapper {

// Contract: calls `score` on batches of at most `batch` complete choices, `budget` choices in all,
// and no more once `stop` (if given) returns true; `score` returns their costs in order, +infinity
// for an invalid tree. A batch's paths are picked as if each earlier one in it had scored nothing
// (a virtual loss: its visits count at once, its reward when the batch is scored), so that they
// spread over the tree; a batch is scored at once (on a search's threads), then its rewards are
// added in order. A batch of 1 is the sequential search. Returns the best choice scored (its cost
// in `best_cost`).
Choice mcts_tiling(const Space& space, const Choice& structure, int64_t budget, size_t batch, Rng& rng,
                   const std::function<std::vector<double>(const std::vector<Choice>&)>& score, double& best_cost,
                   const std::function<bool()>& stop = {});

}  // namespace dfx::mapper
