// The search's memo of analyses: keys that equate exactly the trees that are equal, and a search
// whose repeated candidates cost no analysis without changing what it finds.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "mapper/analysis_cache.h"
#include "mapper/batch_scorer.h"
#include "mapper/tree_scorer.h"
#include "model/analyze.h"
#include "mapper/search.h"
#include "mapper/space.h"
#include "tests/unit/test_util.h"

namespace dfx::mapper {
namespace {

using AnalysisCacheTest = test::OnAttentionG1Edge;

// Equal keys ⇔ equal trees, with the tree's flow.yaml (which round-trips) as the judge: over
// random points and their mutations, which repeat trees often and differ in ignored genes.
TEST_F(AnalysisCacheTest, KeysEquateExactlyTheEqualTrees) {
  Space space(a, w);
  dfx::mapper::Rng rng(5);
  std::map<TreeKey, std::string> seen;
  int repeats = 0;
  Choice c = space.random(rng);
  for (int i = 0; i < 600; ++i) {
    c = i % 50 == 0 ? space.random(rng) : space.mutate(c, rng, i % 7 == 0);
    const std::string yaml = space.flow_yaml(c, "t");
    auto [it, fresh] = seen.emplace(tree_key(space.build(c, "t")), yaml);
    if (fresh) continue;
    ++repeats;
    EXPECT_EQ(it->second, yaml);
  }
  std::map<std::string, int> yamls;
  for (const auto& [key, yaml] : seen) EXPECT_EQ(++yamls[yaml], 1) << "two keys for one tree:\n" << yaml;
  EXPECT_GT(repeats, 0);  // otherwise the first check checked nothing
}

// A batch holding one tree three times: the first position's analysis gives up at its fill under
// a bar at the tree's compute floor; the second, whose bar is the tree's cycles, must not take
// that (it is analysed, once), and the third, with the first's bar, is ruled out as the first.
TEST_F(AnalysisCacheTest, ARepeatWithAHigherBarIsNotRuledOutByAnAnalysisThatGaveUp) {
  Space space(a, w);
  dfx::mapper::Rng rng(3);
  Choice c;
  double cycles = 0;  // its analysed cycles
  for (int tries = 0; tries < 200 && cycles == 0; ++tries) {
    c = space.random(rng);
    const model::Dataflow f = space.build(c, "t");
    const double floor = space.cycles_floor(c);
    // Scored by a scorer of its own: the batch's must not find the tree's phases in its cache.
    const Scored full = TreeScorer(a, w, Objective::Cycles, {}).score(f);
    if (full.valid && !model::analyze_below(a, w, f, model::CyclesBar{floor, floor}, nullptr).report) cycles = full.report->cycles;
  }
  ASSERT_GT(cycles, 0) << "no valid random tree gives up at its fill";
  const double floor = space.cycles_floor(c);
  for (int jobs : {1, 2}) {
    const TreeScorer scorer(a, w, Objective::Cycles, {});
    BatchScorer batch(space, scorer, jobs);
    const std::vector<double> bars = {floor, cycles, floor};
    const ScoredBatch out = batch.score(3, [&](size_t) { return c; }, [&](size_t i, const Choice&) { return bars[i]; });
    EXPECT_TRUE(out.scored[0].ruled_out);
    EXPECT_GT(out.scored[0].at_least, floor);
    ASSERT_FALSE(out.scored[1].ruled_out);
    EXPECT_EQ(out.scored[1].report->cycles, cycles);
    EXPECT_TRUE(out.scored[2].ruled_out);
    EXPECT_EQ(out.analyses, 1);
  }
}

TEST_F(AnalysisCacheTest, RepeatsAreNotAnalysedAgainAndThreadsDoNotChangeTheCount) {
  SearchOptions one;
  one.seed = 4;
  one.evaluations = 600;
  SearchOptions two = one;
  two.jobs = 2;
  const Outcome x = explore(a, w, one), y = explore(a, w, two);
  EXPECT_EQ(x.evaluations, 600);
  EXPECT_GT(x.analyses, 0);
  EXPECT_LT(x.analyses, x.evaluations);  // the climbs revisit trees
  EXPECT_EQ(x.analyses, y.analyses);
  EXPECT_EQ(x.convergence, y.convergence);
  EXPECT_EQ(x.best.front().flow_yaml, y.best.front().flow_yaml);
}

}  // namespace
}  // namespace dfx::mapper
