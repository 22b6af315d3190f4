// The cycles floor against the full analysis on the mapper's candidates (never above the cycles
// the analysis reports), and the search that uses it: the same results as analysing everything.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "mapper/search.h"
#include "mapper/space.h"
#include "model/analyze.h"
#include "model/cycles_floor.h"
#include "tests/unit/random_candidates.h"
#include "tests/unit/test_util.h"

namespace dfx::model {
namespace {

class CyclesFloor : public test::OnArchWorkload {};

TEST_P(CyclesFloor, NeverAboveTheAnalysedCyclesOnRandomCandidates) {
  int compared = 0, positive = 0;
  std::vector<double> ratios;  // floor / cycles
  test::for_random_candidates(mapper::Space(a, w), 12, 150, [&](const Dataflow& f) {
    const Report r = analyze(a, w, f);
    if (!r.valid) return;
    ++compared;
    const double floor = cycles_floor(a, w, f);
    ASSERT_LE(floor, r.cycles) << to_yaml(f, a, w);
    positive += floor > 0;
    ratios.push_back(floor / r.cycles);
  });
  EXPECT_GE(compared, 100);
  EXPECT_EQ(positive, compared) << "a floor of zero passes the check above and rules nothing out";
  std::sort(ratios.begin(), ratios.end());
  std::cout << GetParam().workload << " on " << GetParam().arch << ": floor / cycles over " << compared
            << " valid random candidates: median " << ratios[ratios.size() / 2] << ", best " << ratios.back() << "\n";
}

// Same outcome, fewer analyses: the floor only skips candidates whose result the search would
// not have used. Everything but the counts of analyses and valid candidates must match.
TEST_P(CyclesFloor, SearchFindsTheSameWithAndWithoutIt) {
  for (uint64_t seed : {1, 2}) {
    mapper::SearchOptions o;
    o.evaluations = 1500;
    o.seed = seed;
    o.top = 3;
    const mapper::Outcome with = mapper::explore(a, w, o);
    o.rule_out = false;
    const mapper::Outcome without = mapper::explore(a, w, o);
    EXPECT_EQ(without.ruled_out, 0);
    EXPECT_LT(with.analyses, without.analyses) << "seed " << seed << ": the floor ruled nothing out";
    ASSERT_EQ(with.best.size(), without.best.size());
    for (size_t i = 0; i < with.best.size(); ++i) {
      EXPECT_EQ(with.best[i].flow_yaml, without.best[i].flow_yaml);
      EXPECT_EQ(with.best[i].cost, without.best[i].cost);
    }
    ASSERT_EQ(with.baselines.size(), without.baselines.size());
    for (size_t i = 0; i < with.baselines.size(); ++i) EXPECT_EQ(with.baselines[i].flow_yaml, without.baselines[i].flow_yaml);
    EXPECT_EQ(with.convergence, without.convergence);
  }
}

INSTANTIATE_TEST_SUITE_P(Candidates, CyclesFloor,
                         ::testing::Values(test::ArchWorkload{"edge", "attention_g1"}, test::ArchWorkload{"edge", "gemm_chain_g1"},
                                           test::ArchWorkload{"cloud", "conv_chain_c1"}, test::ArchWorkload{"cloud", "attention_g3"}),
                         test::arch_workload_name);

TEST(CyclesFloorScope, ZeroOnUnitsTimedByInstructions) {
  const arch::Arch a = arch::load_arch(test::config("arch/ascend_like.yaml"));
  const Workload w = load_workload(test::config("workloads/attention_g1.yaml"));
  mapper::Space space(a, w);
  dfx::mapper::Rng rng(3);
  EXPECT_EQ(cycles_floor(a, w, space.build(space.random(rng), "candidate")), 0);
}

}  // namespace
}  // namespace dfx::model
