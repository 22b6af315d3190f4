// The cycles floors against the full analysis on the mapper's candidates (never above the cycles
// the analysis reports), and the search that uses them: the same results as analysing everything.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "mapper/search.h"
#include "mapper/space.h"
#include "model/analyze.h"
#include "model/cycles_floor.h"
#include "model/tree_shape.h"
#include "tests/unit/random_candidates.h"
#include "tests/unit/test_util.h"

namespace dfx::model {
namespace {

class CyclesFloor : public test::OnArchWorkload {};

// Both floors of a tree-scheduled machine: cycles_floor from the tree alone, and
// visited_compute_floor from the walk's visits, never below it.
TEST_P(CyclesFloor, NeverAboveTheAnalysedCyclesOnRandomCandidates) {
  int compared = 0, positive = 0;
  std::vector<double> ratios, visited_ratios;  // floor / cycles
  test::for_random_candidates(mapper::Space(a, w), 12, 150, [&](const Dataflow& f) {
    const Report r = analyze(a, w, f);
    if (!r.valid) return;
    ++compared;
    const double floor = cycles_floor(a, w, f);
    ASSERT_LE(floor, r.cycles) << to_yaml(f, a, w);
    const double visited = visited_compute_floor(a, w, f, TreeShape(a, w, f));
    ASSERT_LE(visited, r.cycles) << to_yaml(f, a, w);
    ASSERT_GE(visited, floor * (1 - 1e-9)) << to_yaml(f, a, w);
    positive += floor > 0;
    ratios.push_back(floor / r.cycles);
    visited_ratios.push_back(visited / r.cycles);
  });
  EXPECT_GE(compared, 100);
  EXPECT_EQ(positive, compared) << "a floor of zero passes the check above and rules nothing out";
  std::sort(ratios.begin(), ratios.end());
  std::sort(visited_ratios.begin(), visited_ratios.end());
  std::cout << GetParam().workload << " on " << GetParam().arch << ": floor / cycles over " << compared
            << " valid random candidates: median " << ratios[ratios.size() / 2] << ", best " << ratios.back()
            << "; from the walk's visits: median " << visited_ratios[visited_ratios.size() / 2] << ", best " << visited_ratios.back() << "\n";
}

// The analysis's fill check (model::analyze_below): with a bar the tree's cycles do not exceed it
// never gives up and reports what analyze() does; with the compute floor itself as the bar it
// gives up on most trees (those with a fill), and the cycles it then vouches for lie between the
// bar and the cycles. Each both without a phase cache and with one the candidates share, as in a
// search (where a root phase found there is not walked: the fill checked is a later phase's).
TEST_P(CyclesFloor, GivingUpAtTheFillIsSound) {
  int compared = 0, gave_up = 0, gave_up_with_cache = 0;
  PhaseCache phases;
  test::for_random_candidates(mapper::Space(a, w), 12, 150, [&](const Dataflow& f) {
    const Report full = analyze(a, w, f);
    if (!full.valid) return;
    ++compared;
    const double floor = cycles_floor(a, w, f);
    for (PhaseCache* cache : {static_cast<PhaseCache*>(nullptr), &phases}) {
      const BarredReport at_floor = analyze_below(a, w, f, CyclesBar{floor, floor}, cache);
      if (at_floor.report) {
        EXPECT_EQ(at_floor.report->cycles, full.cycles);
      } else {
        ++(cache ? gave_up_with_cache : gave_up);
        ASSERT_GT(at_floor.at_least, floor);
        ASSERT_LE(at_floor.at_least, full.cycles) << to_yaml(f, a, w);
      }
      const BarredReport at_cycles = analyze_below(a, w, f, CyclesBar{floor, full.cycles}, cache);
      ASSERT_TRUE(at_cycles.report) << "gave up at " << at_cycles.at_least << " above " << full.cycles << "\n" << to_yaml(f, a, w);
      EXPECT_EQ(at_cycles.report->cycles, full.cycles);
      EXPECT_EQ(at_cycles.report->energy_pj, full.energy_pj);
    }
  });
  EXPECT_GE(compared, 100);
  EXPECT_GT(gave_up, compared / 2) << "the check gives up on few trees: it checks little";
  std::cout << GetParam().workload << " on " << GetParam().arch << ": with the compute floor as the bar, " << gave_up << " of "
            << compared << " valid random candidates give up at their fill, " << gave_up_with_cache << " with a phase cache\n";
}

// The analysis's check after each of the root's phases: the phases done and the later ones'
// floors against the bar. With no floor given (so that the fill check rarely fires) and the
// tree's compute floor as the bar, trees of several phases give up after one whose cycles exceed
// its floor; what they vouch for lies between the bar and the cycles.
TEST_P(CyclesFloor, GivingUpAfterAPhaseIsSound) {
  int several = 0, gave_up = 0;
  PhaseCache phases;
  test::for_random_candidates(mapper::Space(a, w), 13, 150, [&](const Dataflow& f) {
    if (f.root().children.size() < 2) return;
    const Report full = analyze(a, w, f);
    if (!full.valid) return;
    ++several;
    const double floor = cycles_floor(a, w, f);
    for (PhaseCache* cache : {static_cast<PhaseCache*>(nullptr), &phases}) {
      const BarredReport barred = analyze_below(a, w, f, CyclesBar{0, floor}, cache);
      if (barred.report) {
        EXPECT_EQ(barred.report->cycles, full.cycles);
        continue;
      }
      gave_up += cache == nullptr;
      ASSERT_GT(barred.at_least, floor);
      ASSERT_LE(barred.at_least, full.cycles) << to_yaml(f, a, w);
    }
  });
  EXPECT_GE(several, 30);
  EXPECT_GT(gave_up, several / 2) << "the check gives up on few trees of several phases: it checks little";
  std::cout << GetParam().workload << " on " << GetParam().arch << ": with the compute floor as the bar and none given, "
            << gave_up << " of " << several << " valid random candidates of several phases give up\n";
}

// Same outcome, fewer analyses: the floor only skips candidates whose result the search would
// not have used. Everything but the counts of analyses and valid candidates must match.
// The second seed on two threads with --polish: its sweeps rule out most of what they try.
void expect_same_search_with_and_without_floors(const arch::Arch& a, const Workload& w) {
  for (uint64_t seed : {1, 2}) {
    mapper::SearchOptions o;
    o.evaluations = 1500;
    o.seed = seed;
    o.top = 3;
    o.jobs = static_cast<int>(seed);
    o.polish = o.polish_baselines = seed == 2;
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

TEST_P(CyclesFloor, SearchFindsTheSameWithAndWithoutIt) { expect_same_search_with_and_without_floors(a, w); }

INSTANTIATE_TEST_SUITE_P(Candidates, CyclesFloor,
                         ::testing::Values(test::ArchWorkload{"edge", "attention_g1"}, test::ArchWorkload{"edge", "gemm_chain_g1"},
                                           test::ArchWorkload{"cloud", "conv_chain_c1"}, test::ArchWorkload{"cloud", "attention_g3"}),
                         test::arch_workload_name);

// On machines whose units take whole instructions: the walk's chain of instructions, never below
// the busiest unit's share of them (a unit's instructions are all in the chain), and never above
// the cycles. Random candidates there are mostly invalid (spatial loops a unit cannot take):
// twice as many are drawn.
class InstructionFloor : public test::OnArchWorkload {};

TEST_P(InstructionFloor, NeverAboveTheAnalysedCyclesOnRandomCandidates) {
  int compared = 0, above = 0;
  std::vector<double> ratios;  // floor / cycles
  test::for_random_candidates(mapper::Space(a, w), 12, 300, [&](const Dataflow& f) {
    const Report r = analyze(a, w, f);
    if (!r.valid) return;
    ++compared;
    const double floor = instruction_floor(a, w, f, TreeShape(a, w, f));
    ASSERT_LE(floor, r.cycles) << to_yaml(f, a, w);
    double busy[2] = {0, 0};
    for (size_t o = 0; o < r.ops.size(); ++o) busy[static_cast<int>(w.ops[o].unit)] += r.ops[o].compute_cycles;
    const double walked = std::max(busy[0], busy[1]);
    ASSERT_GE(floor, walked * (1 - 1e-6)) << to_yaml(f, a, w);  // a unit's instructions are part of the chain
    above += floor > walked * 1.01;
    ratios.push_back(floor / r.cycles);
  });
  EXPECT_GE(compared, 40);  // bert_layer_tail / tpu_like: 46 of its 300 (over 2,000 in all)
  std::sort(ratios.begin(), ratios.end());
  std::cout << GetParam().workload << " on " << GetParam().arch << ": instruction floor / cycles over " << compared
            << " valid random candidates: median " << ratios[ratios.size() / 2] << ", best " << ratios.back() << "; over 1% above "
            << "the busiest unit's instructions on " << above << "\n";
}

// The random trees of tests/property/ are all on archs scheduled by the tree: the floor is
// checked here on every arch timed by instructions and workloads of every kind.
INSTANTIATE_TEST_SUITE_P(Candidates, InstructionFloor,
                         ::testing::Values(test::ArchWorkload{"ascend_like", "vit_attention"}, test::ArchWorkload{"tpu_like", "attention_g2"},
                                           test::ArchWorkload{"ascend_like", "conv_chain_c4"}, test::ArchWorkload{"tpu_like_small", "gemm_chain_g1"},
                                           test::ArchWorkload{"ascend_like", "attention_g1"}, test::ArchWorkload{"ascend_like", "bert_layer_tail"},
                                           test::ArchWorkload{"ascend_like", "mlp_block"}, test::ArchWorkload{"tpu_like", "conv_chain_c3"},
                                           test::ArchWorkload{"tpu_like", "vit_attention"}, test::ArchWorkload{"tpu_like", "gemm_chain_g10"},
                                           test::ArchWorkload{"tpu_like", "bert_layer_tail"}, test::ArchWorkload{"ascend_like", "gemm_chain_g4"}),
                         test::arch_workload_name);

class InstructionFloorSearch : public test::OnArchWorkload {};

TEST_P(InstructionFloorSearch, SearchFindsTheSameWithAndWithoutIt) { expect_same_search_with_and_without_floors(a, w); }

INSTANTIATE_TEST_SUITE_P(Searches, InstructionFloorSearch,
                         ::testing::Values(test::ArchWorkload{"ascend_like", "vit_attention"}, test::ArchWorkload{"tpu_like", "attention_g2"},
                                           test::ArchWorkload{"ascend_like", "conv_chain_c4"},
                                           test::ArchWorkload{"tpu_like_small", "gemm_chain_g1"}),
                         test::arch_workload_name);

// A phase under a loop (the template makes none): the walk times the children of a Seq that
// hand data over through DRAM whole (Walker::phase), their units' order lost, and so does the
// floor. Here proj and fc1 hand Y1 over through DRAM in each step of t, beside relu and fc2; the
// floor stays below the cycles and near them. (This tree does not show the floor going above the
// cycles without that rule: that takes a step whose other children alone would overlap on the
// units; session 21's review worked one out by hand.)
TEST(InstructionFloorScope, PhasesUnderALoopAreTimedWhole) {
  const arch::Arch a = arch::load_arch(test::config("arch/tpu_like.yaml"));
  const Workload w = load_workload(test::config("workloads/bert_layer_tail.yaml"));
  const Dataflow f = load_dataflow_from_string(R"(name: phases_under_a_loop
workload: bert_layer_tail
tree:
  tile: DRAM
  loops: []
  prim: Seq
  children:
  -   tile: DRAM
      loops: ["t:64"]
      prim: Seq
      keep: {H: SPM}
      children:
      -   tile: DRAM
          loops: []
          prim: Seq
          children:
          -   tile: DRAM
              loops: ["h:16"]
              prim: Seq
              children:
              -   tile: SPM
                  loops: ["h:3", "d:768", "t:8:sp", "h:16:sp"]
                  prim: Seq
                  children:
                  -   tile: Reg
                      loops: []
                      prim: Seq
                      children:
                      -   op: proj
          -   tile: DRAM
              loops: ["f:64"]
              prim: Seq
              children:
              -   tile: SPM
                  loops: ["f:3", "h:768", "t:8:sp", "f:16:sp"]
                  prim: Seq
                  children:
                  -   tile: Reg
                      loops: []
                      prim: Seq
                      children:
                      -   op: fc1
      -   tile: DRAM
          loops: []
          prim: Seq
          keep: {A: SPM}
          children:
          -   tile: SPM
              loops: ["f:64", "t:8:sp"]
              prim: Seq
              children:
              -   op: relu
          -   tile: DRAM
              loops: ["e:16", "f:4"]
              prim: Seq
              children:
              -   tile: SPM
                  loops: ["e:3", "f:768", "t:8:sp", "e:16:sp"]
                  prim: Seq
                  children:
                  -   tile: Reg
                      loops: []
                      prim: Seq
                      children:
                      -   op: fc2
)", "phases_under_a_loop", a, w);
  const Report r = analyze(a, w, f);
  ASSERT_TRUE(r.valid) << r.reason;
  const double floor = instruction_floor(a, w, f, TreeShape(a, w, f));
  EXPECT_LE(floor, r.cycles);
  EXPECT_GT(floor, 0.9 * r.cycles);  // the instructions pace this tree
}

TEST(InstructionFloorScope, ZeroOnUnitsTimedByTheTree) {
  const arch::Arch a = arch::load_arch(test::config("arch/edge.yaml"));
  const Workload w = load_workload(test::config("workloads/attention_g1.yaml"));
  mapper::Space space(a, w);
  dfx::mapper::Rng rng(3);
  const Dataflow f = space.build(space.random(rng), "candidate");
  EXPECT_EQ(instruction_floor(a, w, f, TreeShape(a, w, f)), 0);
}

TEST(CyclesFloorScope, ZeroOnUnitsTimedByInstructions) {
  const arch::Arch a = arch::load_arch(test::config("arch/ascend_like.yaml"));
  const Workload w = load_workload(test::config("workloads/attention_g1.yaml"));
  mapper::Space space(a, w);
  dfx::mapper::Rng rng(3);
  EXPECT_EQ(cycles_floor(a, w, space.build(space.random(rng), "candidate")), 0);
}

}  // namespace
}  // namespace dfx::model
