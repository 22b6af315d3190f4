#pragma once
// Monte-Carlo tree search over the tiling of a fixed structure (REFERENCE.md §7): one decision at
// a time (Space::tiling_options), children picked by UCB1, random completions scored by the model.
#include <cstdint>
#include <functional>
#include <random>

#include "mapper/space.h"

namespace dfx::mapper {

// Contract: calls `score` at most `budget` times, each on a complete choice, and no more once
// `stop` (if given) returns true; `score` returns the cost, or +infinity for an invalid tree.
// Returns the best choice scored (its cost in `best_cost`).
Choice mcts_tiling(const Space& space, const Choice& structure, int64_t budget, std::mt19937_64& rng,
                   const std::function<double(const Choice&)>& score, double& best_cost,
                   const std::function<bool()>& stop = {});

}  // namespace dfx::mapper
