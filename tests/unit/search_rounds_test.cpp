// Searches that score several things per batch: MCTS's batches of paths, with roll-outs drawn
// step by step, and the named baselines' climbs side by side.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "mapper/search.h"
#include "mapper/space.h"
#include "tests/unit/test_util.h"

namespace dfx::mapper {
namespace {

using SearchRounds = test::OnAttentionG1Edge;

// A roll-out's draw (Space::draw_tiling_option) takes one of the options the step lists
// (Space::tiling_options), at every step of every baseline's structure, --fix applied or not;
// and the options are distinct (pinned ones that coincide, every spatial choice of qk with
// --fix qk:sp=m:4, listed once: found by Choice::hash with equality checked).
TEST_F(SearchRounds, DrawnTilingOptionsAreListedOnes) {
  for (bool pinned : {false, true}) {
    Space space(a, w);
    if (pinned) space.pin({"qk:sp=m:4"});
    dfx::mapper::Rng rng(3);
    for (const Baseline& b : space.baselines()) {
      SCOPED_TRACE(b.name + (pinned ? ", pinned" : ""));
      Choice c = space.tiling_start(b.structure);
      for (size_t step = 0; step < space.tiling_steps(b.structure); ++step) {
        const std::vector<Choice> options = space.tiling_options(c, step);
        for (const Choice& o : options) EXPECT_EQ(std::count(options.begin(), options.end(), o), 1) << "step " << step;
        for (int k = 0; k < 8; ++k) {
          const Choice drawn = space.draw_tiling_option(c, step, rng);
          EXPECT_NE(std::find(options.begin(), options.end(), drawn), options.end()) << "step " << step;
        }
        c = space.draw_tiling_option(c, step, rng);
      }
    }
  }
}

// MCTS scores its paths in batches on the search's threads: the thread count changes nothing.
TEST_F(SearchRounds, MctsGivesTheSameOnOneAndTwoThreads) {
  SearchOptions o;
  o.evaluations = 600;
  o.mcts = true;
  o.seed = 4;
  const Outcome one = explore(a, w, o);
  o.jobs = 2;
  const Outcome two = explore(a, w, o);
  ASSERT_FALSE(one.best.empty());
  EXPECT_EQ(one.best.front().cost, two.best.front().cost);
  EXPECT_EQ(one.best.front().flow_yaml, two.best.front().flow_yaml);
  EXPECT_EQ(one.evaluations, two.evaluations);
  ASSERT_EQ(one.baselines.size(), two.baselines.size());
  for (size_t i = 0; i < one.baselines.size(); ++i) EXPECT_EQ(one.baselines[i].cost, two.baselines[i].cost) << one.baselines[i].name;
}

// The baselines' climbs share the budget round by round: a search spends exactly --evals,
// whether the baselines' third ends inside a round or not.
TEST_F(SearchRounds, ClimbsSideBySideSpendTheBudgetExactly) {
  for (int64_t evaluations : {40, 333, 1000, 2501}) {
    SearchOptions o;
    o.evaluations = evaluations;
    o.seed = 2;
    EXPECT_EQ(explore(a, w, o).evaluations, evaluations);
  }
}

}  // namespace
}  // namespace dfx::mapper
