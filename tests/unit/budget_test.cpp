// The search's budgets: a time budget shared like the evaluations (baselines a third, the open
// search the rest, each --polish sweep a tenth), and a stop request honoured inside every
// search, Monte-Carlo included.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>

#include "mapper/search.h"
#include "tests/unit/test_util.h"

namespace dfx::mapper {
namespace {

class Budget : public test::OnAttentionG1Edge {
 protected:

  static double cost_of(const Outcome& out, const std::string& name) {
    for (const Candidate& c : out.baselines)
      if (c.name == name) return c.cost;
    return INFINITY;
  }
};

// With an evaluation budget no time can exhaust, `seconds` decides: before, the first baseline's
// tiling search took all of it and the best was Layerwise; the fused dataflows are ~7× faster.
TEST_F(Budget, TimeIsSharedLikeTheEvaluations) {
  SearchOptions o;
  o.evaluations = 1'000'000'000;
  o.seconds = 1.5;
  const Outcome out = explore(a, w, o);
  ASSERT_FALSE(out.best.empty());
  const double layerwise = cost_of(out, "Layerwise");
  ASSERT_TRUE(std::isfinite(layerwise));
  EXPECT_LT(out.best.front().cost, 0.5 * layerwise) << "the open search got no time";
  EXPECT_LT(out.seconds, 10.0);
}

// --polish gets its tenth of the time as of the evaluations: before, the search took all of it
// and the best was never polished (G1 / edge's best point polishes in well under its 0.36 s).
TEST_F(Budget, PolishGetsItsShareOfTheTime) {
  SearchOptions o;
  o.evaluations = 1'000'000'000;
  o.seconds = 4;
  o.polish = true;
  const Outcome out = explore(a, w, o);
  EXPECT_TRUE(out.polished) << "the polish got no time";
  EXPECT_LT(out.seconds, 10.0);
}

// A stop request ends a Monte-Carlo tiling search too (Ctrl-C in `dfx explore --mcts`): before,
// it ran its whole share (here about 570 evaluations for each baseline, 1,140 for Layerwise) first.
TEST_F(Budget, StopEndsMonteCarloSearches) {
  std::atomic<bool> stop{false};
  SearchOptions o;
  o.evaluations = 6'000;
  o.mcts = true;
  o.stop = &stop;
  o.on_progress = [&](const Progress& p) {
    if (p.evaluations >= 100) stop = true;
  };
  const Outcome out = explore(a, w, o);
  EXPECT_GE(out.evaluations, 100);
  EXPECT_LT(out.evaluations, 300) << "the search went on after the stop request";
  EXPECT_FALSE(out.best.empty());
}

}  // namespace
}  // namespace dfx::mapper
