// The search's polish (SearchOptions::polish): the best point it reports is a coordinate optimum
// of the template's tiling decisions, every loop order included.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "mapper/search.h"
#include "mapper/space.h"
#include "model/analyze.h"
#include "tests/unit/test_util.h"

namespace dfx::mapper {
namespace {

class Polish : public test::OnArchWorkload {};

// Every tree one tiling decision away from the reported best (its split over the cores, an outer
// factor, an op's spatial choice or loop order) is invalid or no faster.
TEST_P(Polish, NoSingleTilingChangeImprovesTheBest) {
  SearchOptions o;
  o.evaluations = 2000;  // short of convergence: the polish has work to do
  o.top = 3;
  o.polish = true;
  // The polish may need more than its budget (1,000 here, or two sweeps of its start's
  // neighbourhood) when the search stopped far from a coordinate optimum; then the first of
  // three seeds whose polish ended in time is checked.
  Outcome out;
  for (o.seed = 1; o.seed <= 3; ++o.seed)
    if ((out = explore(a, w, o)).polished) break;
  ASSERT_TRUE(out.polished) << "the polish's budget ended before it did, on three seeds";
  EXPECT_GT(out.evaluations, o.evaluations) << "the polish runs after the search's own budget";
  const auto best = std::find_if(out.best.begin(), out.best.end(), [](const Candidate& c) { return !c.choice.group_of.empty(); });
  ASSERT_NE(best, out.best.end()) << "no point of the template among the best";
  Space space(a, w);
  int compared = 0;
  for (size_t step = 0; step < space.tiling_steps(best->choice); ++step) {
    const std::vector<Choice> options = space.tiling_options(best->choice, step);
    EXPECT_NE(std::find(options.begin(), options.end(), best->choice), options.end()) << "step " << step;
    for (const Choice& c : options) {
      const model::Report r = model::analyze(a, w, space.build(c, "neighbour"));
      if (!r.valid) continue;
      ++compared;
      EXPECT_GE(cost_of(r, o.objective), best->cost) << "step " << step << ":\n" << space.flow_yaml(c, "better");
    }
  }
  EXPECT_GT(compared, 30);
}

INSTANTIATE_TEST_SUITE_P(Candidates, Polish,
                         ::testing::Values(test::ArchWorkload{"edge", "gemm_chain_g1"}, test::ArchWorkload{"edge", "attention_g1"},
                                           test::ArchWorkload{"cloud", "conv_chain_c1"}),
                         test::arch_workload_name);

// With the baselines polished, no named baseline's tiling has a single change that makes it
// faster: the comparison table's baselines are coordinate optima of their own structures.
TEST(PolishBaselines, NoSingleTilingChangeImprovesANamedBaseline) {
  const arch::Arch a = arch::load_arch(test::config("arch/edge.yaml"));
  const model::Workload w = model::load_workload(test::config("workloads/gemm_chain_g1.yaml"));
  SearchOptions o;
  o.evaluations = 1500;  // short of convergence: the sweeps have work to do
  o.seed = 2;
  o.polish_baselines = true;
  const Outcome out = explore(a, w, o);
  ASSERT_TRUE(out.baselines_polished) << "a baseline's sweep ran out of budget";
  Space space(a, w);
  int baselines = 0, compared = 0;
  for (const Candidate& b : out.baselines) {
    if (b.choice.group_of.empty()) continue;  // from outside the template (the chain solver)
    ++baselines;
    for (size_t step = 0; step < space.tiling_steps(b.choice); ++step)
      for (const Choice& c : space.tiling_options(b.choice, step)) {
        const model::Report r = model::analyze(a, w, space.build(c, "neighbour"));
        if (!r.valid) continue;
        ++compared;
        EXPECT_GE(cost_of(r, o.objective), b.cost) << b.name << ", step " << step << ":\n" << space.flow_yaml(c, "better");
      }
  }
  EXPECT_GE(baselines, 3);
  EXPECT_GT(compared, 100);
}

// An op's loop-order decision lists every order of its output loops (3! for qk's b, m, l), and
// each builds a different tree.
TEST(PolishOrders, EveryOrderOfAnOpsOutputLoopsIsAnOption) {
  const arch::Arch a = arch::load_arch(test::config("arch/edge.yaml"));
  const model::Workload w = model::load_workload(test::config("workloads/attention_g1.yaml"));
  Space space(a, w);
  space.fix_groups(std::vector<int>(w.ops.size(), 0));
  Choice c = space.baselines().front().structure;
  c = space.tiling_start(c);
  // Steps: per group its split over the cores and its outer factors, then per op spatial, order.
  size_t order_step = 0;
  while (order_step < space.tiling_steps(c)) {
    const std::vector<Choice> options = space.tiling_options(c, order_step);
    if (options.size() == 6 && options[0].order != options[1].order) break;
    ++order_step;
  }
  ASSERT_LT(order_step, space.tiling_steps(c)) << "no decision with qk's six loop orders";
  std::set<std::string> trees;
  for (const Choice& option : space.tiling_options(c, order_step)) trees.insert(space.flow_yaml(option, "x"));
  EXPECT_EQ(trees.size(), 6u);
}

}  // namespace
}  // namespace dfx::mapper
