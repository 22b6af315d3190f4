#include "mapper/mcts.h"

#include <algorithm>
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

Choice mcts_tiling(const Space& space, const Choice& structure, int64_t budget, size_t batch, Rng& rng,
                   const std::function<std::vector<double>(const std::vector<Choice>&)>& score, double& best_cost,
                   const std::function<bool()>& stop) {
  const size_t steps = space.tiling_steps(structure);
  std::vector<Node> tree(1);
  tree[0].partial = space.tiling_start(structure);
  tree[0].untried = space.tiling_options(tree[0].partial, 0);
  Choice best;
  best_cost = std::numeric_limits<double>::infinity();
  const double explore = 0.5;  // UCB1 constant; rewards lie in [0, 1]
  std::vector<Choice> drawn;
  std::vector<size_t> leaves;
  auto up_from = [&](size_t leaf, auto&& visit) {  // the leaf and its ancestors, the root last
    for (size_t n = leaf;; n = tree[n].parent) {
      visit(tree[n]);
      if (n == 0) break;
    }
  };
  for (int64_t used = 0; used < budget && !(stop && stop());) {
    drawn.clear(), leaves.clear();
    const size_t k = std::min(std::max<size_t>(1, batch), static_cast<size_t>(budget - used));
    for (size_t j = 0; j < k; ++j) {
      // Select: follow UCB1 through fully expanded nodes.
      size_t n = 0;
      while (tree[n].untried.empty() && !tree[n].children.empty()) {
        size_t pick = tree[n].children.front();
        double top = -1;
        for (size_t c : tree[n].children) {
          const Node& x = tree[c];
          const double ucb = x.value / static_cast<double>(x.visits) +
                             explore * std::sqrt(std::log(static_cast<double>(tree[n].visits)) / static_cast<double>(x.visits));
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
      // Roll out: complete the remaining decisions at random.
      Choice c = tree[n].partial;
      for (size_t s = tree[n].step; s < steps; ++s) c = space.draw_tiling_option(c, s, rng);
      drawn.push_back(std::move(c));
      leaves.push_back(n);
      up_from(n, [](Node& x) { x.visits += 1; });  // a visit that has scored nothing yet
    }
    const std::vector<double> costs = score(drawn);
    used += static_cast<int64_t>(drawn.size());
    for (size_t j = 0; j < drawn.size(); ++j) {
      if (costs[j] < best_cost) best_cost = costs[j], best = drawn[j];
      // Reward relative to the best so far: 1 for the best, less for worse, 0 for invalid.
      const double reward = std::isfinite(costs[j]) ? best_cost / costs[j] : 0.0;
      up_from(leaves[j], [&](Node& x) { x.value += reward; });
    }
  }
  return best;
}

}  // namespace dfx::mapper
