#include "mapper/mcts.h"

#include <cmath>
#include <limits>

namespace dfx::mapper {
namespace {

struct Node {
  Choice partial;
  size_t step = 0;                 // the next decision to take
  std::vector<Choice> untried;     // values of that decision not expanded yet
  std::vector<size_t> children;
  int64_t visits = 0;
  double value = 0;                // sum of rewards
  size_t parent = 0;
};

}  // namespace

Choice mcts_tiling(const Space& space, const Choice& structure, int64_t budget, std::mt19937_64& rng,
                   const std::function<double(const Choice&)>& score, double& best_cost,
                   const std::function<bool()>& stop) {
  const size_t steps = space.tiling_steps(structure);
  std::vector<Node> tree(1);
  tree[0].partial = space.tiling_start(structure);
  tree[0].untried = space.tiling_options(tree[0].partial, 0);
  Choice best;
  best_cost = std::numeric_limits<double>::infinity();
  const double explore = 0.5;  // UCB1 constant; rewards lie in [0, 1]
  for (int64_t it = 0; it < budget && !(stop && stop()); ++it) {
    // Select: follow UCB1 through fully expanded nodes.
    size_t n = 0;
    while (tree[n].untried.empty() && !tree[n].children.empty()) {
      size_t pick = tree[n].children.front();
      double top = -1;
      for (size_t c : tree[n].children) {
        const Node& k = tree[c];
        const double ucb = k.value / static_cast<double>(k.visits) +
                           explore * std::sqrt(std::log(static_cast<double>(tree[n].visits)) / static_cast<double>(k.visits));
        if (ucb > top) top = ucb, pick = c;
      }
      n = pick;
    }
    // Expand one untried value.
    if (!tree[n].untried.empty() && tree[n].step < steps) {
      const size_t i = std::uniform_int_distribution<size_t>(0, tree[n].untried.size() - 1)(rng);
      Node child;
      child.partial = tree[n].untried[i];
      tree[n].untried.erase(tree[n].untried.begin() + static_cast<long>(i));
      child.step = tree[n].step + 1;
      child.parent = n;
      if (child.step < steps) child.untried = space.tiling_options(child.partial, child.step);
      tree.push_back(std::move(child));
      tree[n].children.push_back(tree.size() - 1);
      n = tree.size() - 1;
    }
    // Roll out: complete the remaining decisions at random, and score.
    Choice c = tree[n].partial;
    for (size_t s = tree[n].step; s < steps; ++s) {
      std::vector<Choice> options = space.tiling_options(c, s);
      c = options[std::uniform_int_distribution<size_t>(0, options.size() - 1)(rng)];
    }
    const double cost = score(c);
    if (cost < best_cost) best_cost = cost, best = c;
    // Reward relative to the best so far: 1 for the best, less for worse, 0 for invalid.
    const double reward = std::isfinite(cost) ? best_cost / cost : 0.0;
    for (size_t k = n;; k = tree[k].parent) {
      tree[k].visits += 1;
      tree[k].value += reward;
      if (k == 0) break;
    }
  }
  return best;
}

}  // namespace dfx::mapper
