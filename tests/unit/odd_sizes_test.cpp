// Workloads whose sizes nothing divides: a ViT's 12 heads and 197 tokens on ascend_like's 32
// cores, whose units take whole instructions.
#include <gtest/gtest.h>

#include <string>

#include "arch/config.h"
#include "mapper/chain_solver.h"
#include "mapper/search.h"
#include "model/analyze.h"
#include "tests/unit/test_util.h"

namespace dfx::mapper {
namespace {

// A ViT attention tree written by hand for ascend_like: `cores` loops at GM (the cores and the
// steps over one core's tokens), then every op's tile as the search's template builds them.
std::string vit_by_hand(const std::string& cores) {
  return "name: hand\nworkload: vit_attention\ntree:\n  tile: GM\n  loops: [" + cores + "]\n" + R"(  children:
  - tile: [L1,UB]
    loops: []
    children:
    - tile: L1
      loops: ["l:4"]
      children:
      - tile: [L0A,L0B,L0C]
        loops: ["k:64", "m:50:sp", "l:50:sp"]
        children:
        - op: qk
    - tile: UB
      loops: ["l:197", "m:50:sp"]
      children:
      - op: max
    - tile: UB
      loops: ["m:50", "l:2", "l:99:sp"]
      children:
      - op: sub
    - tile: UB
      loops: ["m:50", "l:2", "l:99:sp"]
      children:
      - op: exp
    - tile: UB
      loops: ["l:197", "m:50:sp"]
      children:
      - op: sum
    - tile: UB
      loops: ["m:50", "l:197"]
      children:
      - op: div
    - tile: L1
      loops: []
      children:
      - tile: [L0A,L0B,L0C]
        loops: ["l:197", "m:50:sp", "n:64:sp"]
        children:
        - op: av
)";
}

class OddSizes : public ::testing::Test {
 protected:
  arch::Arch a = arch::load_arch(test::config("arch/ascend_like.yaml"));
  model::Workload vit = model::load_workload(test::config("workloads/vit_attention.yaml"));
  static constexpr const char* kFused = "qk+max+sub+exp+sum+div+av";
  SearchOptions fused(const std::string& cores) const {
    SearchOptions o;
    o.evaluations = 400;
    o.groups = {{"qk", "max", "sub", "exp", "sum", "div", "av"}};
    o.fix = {std::string(kFused) + ":cores=" + cores};
    return o;
  }
};

// Where no split uses more than half the cores, the most any split uses is offered: 12 of 32
// for 12 heads and a prime token count (before, none was, and the search ran on one core).
TEST_F(OddSizes, SpreadsOverTheMostCoresAnySplitAllows) {
  const Outcome out = explore(a, vit, fused("b:12"));
  ASSERT_FALSE(out.best.empty());
  const model::Dataflow best = model::load_dataflow_from_string(out.best.front().flow_yaml, "best", a, vit);
  bool spread = false;
  for (const model::TreeNode& n : best.nodes)
    for (const model::Loop& l : n.loops) spread = spread || (l.spatial && l.factor == 12 && vit.dims[l.dim].name == "b");
  EXPECT_TRUE(spread) << out.best.front().flow_yaml;
}

// Where a split over more than half of them exists, the smaller ones stay out of the space:
// attention G1's 8 heads alone would leave 24 of the 32 cores idle.
TEST_F(OddSizes, SmallSplitsOnlyWhereNothingLarger) {
  const model::Workload g1 = model::load_workload(test::config("workloads/attention_g1.yaml"));
  const std::string error = test::input_error([&] { explore(a, g1, fused("b:8")); });
  EXPECT_NE(error.find("not a way this group can use the 32 cores"), std::string::npos) << error;
  EXPECT_NO_THROW(explore(a, g1, fused("b:8,m:4")));
}

// A unit that takes whole instructions may spread a dim whose group's last tile is shorter (197
// rows in tiles of 50: the last tile's 47 leave three instances idle). Before, such a dim stayed
// temporal, every matrix instruction one row high: 20.8 K cycles at best for this workload, where
// the tree below, written by hand, takes 5.6 K.
TEST_F(OddSizes, InstructionUnitsSpreadDimsWhoseLastTileIsShorter) {
  const model::Dataflow hand = model::load_dataflow_from_string(vit_by_hand(R"("b:12:sp", "m:4")"), "hand", a, vit);
  const model::Report by_hand = model::analyze(a, vit, hand);
  ASSERT_TRUE(by_hand.valid) << by_hand.reason;
  // Each op's compute is its instructions' time, from their shapes: within the tree's cycles
  // (work over instances put div, whose rows are instructions over 12 cores' lanes, at 38.8 K).
  for (const model::OpReport& op : by_hand.ops) {
    EXPECT_GT(op.compute_cycles, 0) << op.name;
    EXPECT_LE(op.compute_cycles, by_hand.cycles) << op.name;
  }
  SearchOptions o;
  o.evaluations = 4000;
  o.seed = 1;
  const Outcome out = explore(a, vit, o);
  ASSERT_FALSE(out.best.empty());
  EXPECT_LT(out.best.front().report.cycles, 1.25 * by_hand.cycles) << out.best.front().flow_yaml;
}

// The chain solver's tiles of 197 tokens spread over edge's 64 lanes padded: 4 steps of 50
// instances, the last running 47. With divisors only a prime tile ran on one lane and the
// closed form took 855 K cycles, 39 times the search's best.
TEST_F(OddSizes, ChainSolverPadsAPrimeTileOverTheLanes) {
  const arch::Arch edge = arch::load_arch(test::config("arch/edge.yaml"));
  const auto s = solve_gemm_chain(edge, vit);
  ASSERT_TRUE(s.has_value());
  const model::Report r = model::analyze(edge, vit, model::load_dataflow_from_string(s->flow_yaml, "chain", edge, vit));
  ASSERT_TRUE(r.valid) << r.reason << "\n" << s->flow_yaml;
  const int64_t lanes = edge.unit(arch::UnitKind::Vector)->pes_per_instance;
  for (const model::OpReport& op : r.ops)
    if (op.unit == "vector") {
      EXPECT_GE(op.instances, lanes / 2) << op.name << "\n" << s->flow_yaml;
    }
}

// The tokens may spread over cores unevenly with loops below them: 12 heads over 12 cores and
// 197 tokens over 2 (99 and 98), 24 cores. Fed each its own copy (ascend_like's GM: no
// multicast), each core reads its head's K; where GM multicasts, the core with 98 tokens takes
// K with the one with 99 at every step (K is read without m): GM sends it once.
TEST_F(OddSizes, UnevenCoreShares) {
  const std::string tree = vit_by_hand(R"("b:12:sp", "m:2:sp", "m:2")");
  const model::Report apart = model::analyze(a, vit, model::load_dataflow_from_string(tree, "uneven", a, vit));
  ASSERT_TRUE(apart.valid) << apart.reason;
  EXPECT_EQ(apart.ops.front().instances, 24 * 50 * 50);
  const arch::Arch broadcast = arch::load_arch(test::config("arch/ascend_like.yaml"),
                                               {parse_override("levels.GM.multicast=true", "--set")});
  const model::Report merged = model::analyze(broadcast, vit, model::load_dataflow_from_string(tree, "uneven", broadcast, vit));
  ASSERT_TRUE(merged.valid) << merged.reason;
  auto gm_reads = [](const model::Report& r, const std::string& tensor) {
    for (const model::TensorLevelReport& t : r.levels.front().tensors)
      if (t.tensor == tensor) return t.traffic.read;
    return int64_t{-1};
  };
  const int64_t k_size = 12 * 64 * 197;
  EXPECT_EQ(gm_reads(apart, "K"), 2 * k_size);
  EXPECT_EQ(gm_reads(merged, "K"), k_size);
  EXPECT_EQ(gm_reads(merged, "Q"), gm_reads(apart, "Q"));  // each core's own rows either way
  // The search finds such shares on its own, within 10% of this tree (3.78 K cycles against
  // 3.59 K; with 12 cores at most, 5.98 K).
  SearchOptions o;
  o.evaluations = 4000;
  o.seed = 1;
  const Outcome out = explore(a, vit, o);
  ASSERT_FALSE(out.best.empty());
  const model::Dataflow best = model::load_dataflow_from_string(out.best.front().flow_yaml, "best", a, vit);
  int64_t cores = 1;
  bool uneven = false;
  for (const model::Loop& l : best.nodes[1].loops)
    if (l.spatial) cores *= l.factor, uneven = uneven || vit.dims[static_cast<size_t>(l.dim)].size % l.factor != 0;
  EXPECT_TRUE(uneven) << out.best.front().flow_yaml;
  EXPECT_GT(cores, 16) << out.best.front().flow_yaml;
  EXPECT_LT(out.best.front().report.cycles, 1.1 * apart.cycles) << out.best.front().flow_yaml;
}

}  // namespace
}  // namespace dfx::mapper
