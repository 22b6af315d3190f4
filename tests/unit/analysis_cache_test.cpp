// The search's memo of analyses: keys that equate exactly the trees that are equal, and a search
// whose repeated candidates cost no analysis without changing what it finds.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "mapper/analysis_cache.h"
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
