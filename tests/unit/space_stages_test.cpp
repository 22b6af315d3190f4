// The climb's aimed steps. Space::widen_slowest: in a fused group, the ops whose compute takes as
// long as the slowest one's spread wider, all at once; nothing else changes.
// Space::reshape_slowest: a stage that its transfers slow (own cycles well above its compute)
// and that takes as long as the slowest, and only such a stage, spreads anew.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>

#include "mapper/space.h"
#include "model/analyze.h"
#include "tests/unit/test_util.h"

namespace dfx::mapper {
namespace {

// Per op, how many steps its tile takes to compute one tile of its group, read off the built tree
// (its own temporal loops, from the leaf up to the tile under the Pipe), times its work per point.
std::vector<double> stage_steps(const model::Workload& w, const model::Dataflow& f) {
  std::vector<double> out(w.ops.size(), 0);
  for (const model::TreeNode& leaf : f.nodes) {
    if (!leaf.is_leaf) continue;
    double steps = static_cast<double>(w.ops[static_cast<size_t>(leaf.op)].ops_per_point);
    for (int n = leaf.parent; n >= 0 && f.nodes[static_cast<size_t>(n)].prim != model::Prim::Pipe; n = f.nodes[static_cast<size_t>(n)].parent)
      for (const model::Loop& l : f.nodes[static_cast<size_t>(n)].loops)
        if (!l.spatial) steps *= static_cast<double>(l.factor);
    out[static_cast<size_t>(leaf.op)] = steps;
  }
  return out;
}

// The space of attention's seven ops in one Pipe group.
Space fused_pipe(const arch::Arch& a, const model::Workload& w) {
  Space space(a, w);
  space.fix_groups(std::vector<int>(w.ops.size(), 0));
  space.pin({"qk+max+sub+exp+sum+div+av:prim=Pipe"});
  return space;
}

TEST(SpaceStages, TheSlowestStagesSpreadWiderTogether) {
  const arch::Arch a = arch::load_arch(test::config("arch/edge.yaml"));
  const model::Workload w = model::load_workload(test::config("workloads/attention_g1.yaml"));
  const Space space = fused_pipe(a, w);
  dfx::mapper::Rng rng(8);
  int moved = 0, ties_moved = 0, respread = 0;
  for (int i = 0; i < 300; ++i) {
    const Choice c = space.random(rng);
    const Choice x = space.widen_slowest(c, rng);
    ASSERT_EQ(x.group_of, c.group_of);
    ASSERT_EQ(x.prim, c.prim);
    ASSERT_EQ(x.outer, c.outer);
    ASSERT_EQ(x.core_dim, c.core_dim);
    ASSERT_EQ(x.order, c.order);
    const std::vector<double> before = stage_steps(w, space.build(c, "c")), after = stage_steps(w, space.build(x, "x"));
    const double slowest = *std::max_element(before.begin(), before.end());
    int faster = 0;
    for (size_t o = 0; o < w.ops.size(); ++o) {
      if (before[o] < slowest * 0.99) {
        EXPECT_EQ(x.spatial[o], c.spatial[o]) << "op " << w.ops[o].name << " is not among the slowest\n" << space.flow_yaml(c, "c");
        continue;
      }
      EXPECT_LE(after[o], before[o]) << w.ops[o].name << "\n" << space.flow_yaml(x, "x");
      faster += after[o] < before[o];
      // Spread over other dims, or narrower on one: no factor had room to grow.
      for (size_t d = 0; d < c.spatial[o].size(); ++d) respread += x.spatial[o][d] < c.spatial[o][d];
    }
    moved += faster > 0;
    ties_moved += faster > 1;
    const model::Report r = model::analyze(a, w, space.build(x, "x"));
    EXPECT_EQ(r.reason.find("PEs but the arch has"), std::string::npos) << r.reason << "\n" << space.flow_yaml(x, "x");
  }
  EXPECT_GT(moved, 250);  // most random points have a slowest stage with room to spread
  EXPECT_GT(ties_moved, 30);  // and equally slow stages move in one step
  EXPECT_GT(respread, 0);     // some only by spreading over other dims
  std::cout << moved << " points moved, " << respread << " op factors narrowed to spread elsewhere\n";
}

TEST(SpaceStages, NothingToWidenWithoutAFusedGroup) {
  const arch::Arch a = arch::load_arch(test::config("arch/edge.yaml"));
  const model::Workload w = model::load_workload(test::config("workloads/attention_g1.yaml"));
  Space space(a, w);
  std::vector<int> lone(w.ops.size());
  for (size_t o = 0; o < lone.size(); ++o) lone[o] = static_cast<int>(o);
  space.fix_groups(lone);
  dfx::mapper::Rng rng(2);
  for (int i = 0; i < 20; ++i) {
    const Choice c = space.random(rng);
    EXPECT_EQ(space.widen_slowest(c, rng), c);
  }
}

TEST(SpaceStages, OnlyATransferPacedSlowestStageIsReshaped) {
  // L1 at a fiftieth of its bandwidth: the stages of random points then often wait for their data.
  arch::Arch a = arch::load_arch(test::config("arch/edge.yaml"));
  arch::MemoryLevel& l1 = a.levels[static_cast<size_t>(a.level_index("L1"))];
  l1.read_bw /= 50, l1.write_bw /= 50;
  const model::Workload w = model::load_workload(test::config("workloads/attention_g1.yaml"));
  const Space space = fused_pipe(a, w);
  dfx::mapper::Rng rng(5);
  int reshaped = 0, paced_points = 0, no_slower = 0;
  for (int i = 0; i < 150; ++i) {
    const Choice c = space.random(rng);
    const model::Report r = model::analyze(a, w, space.build(c, "c"));
    if (!r.valid) continue;
    double slowest = 0;
    for (const auto& op : r.ops) slowest = std::max(slowest, *op.own_cycles);
    std::vector<bool> may_move(w.ops.size());
    for (size_t o = 0; o < w.ops.size(); ++o)
      may_move[o] = *r.ops[o].own_cycles >= slowest * 0.99 && *r.ops[o].own_cycles > r.ops[o].compute_cycles * 1.05;
    const bool paced = std::count(may_move.begin(), may_move.end(), true) > 0;
    paced_points += paced;
    const Choice x = space.reshape_slowest(c, r, rng);
    ASSERT_EQ(x.group_of, c.group_of);
    ASSERT_EQ(x.prim, c.prim);
    ASSERT_EQ(x.outer, c.outer);
    ASSERT_EQ(x.core_dim, c.core_dim);
    int changed = 0;
    for (size_t o = 0; o < w.ops.size(); ++o) {
      const bool moved = x.spatial[o] != c.spatial[o] || x.order[o] != c.order[o];
      EXPECT_TRUE(!moved || may_move[o]) << "op " << w.ops[o].name << " moved\n" << space.flow_yaml(c, "c");
      changed += moved;
    }
    EXPECT_LE(changed, 1);  // one stage at a time
    if (changed) {
      const std::vector<double> before = stage_steps(w, space.build(c, "c")), after = stage_steps(w, space.build(x, "x"));
      for (size_t o = 0; o < w.ops.size(); ++o) no_slower += (x.spatial[o] != c.spatial[o] || x.order[o] != c.order[o]) && after[o] <= before[o];
    }
    if (!paced) {
      EXPECT_EQ(x, c);
    }
    reshaped += changed;
  }
  std::cout << paced_points << " transfer-paced points, " << reshaped << " reshaped, " << no_slower
            << " of them computing no slower\n";
  EXPECT_GT(paced_points, 20);  // random Pipe points often wait for a stage's transfers
  EXPECT_GT(reshaped, paced_points / 3);  // and most such steps move (a re-draw may land where it was)
  EXPECT_GT(2 * no_slower, reshaped);     // half of them by design keep their compute (the rest at random)
}

}  // namespace
}  // namespace dfx::mapper
