// Shapes kept across trees (model/tree_shape.h): on the mapper's candidates, the kept placement
// of a tree is, field for field, what place() works out for it alone, and its report (which
// the kept tables feed) is the one analysed alone; shapes recur (the cache is used); and trees
// that differ in loops only share one, trees that differ in where data lives do not.
#include <gtest/gtest.h>

#include <iostream>

#include "mapper/space.h"
#include "model/analyze.h"
#include "model/tree_shape.h"
#include "model/report_io.h"
#include "tests/unit/random_candidates.h"
#include "tests/unit/test_util.h"

namespace dfx::model {
namespace {

void expect_same_placement(const Placement& kept, const Placement& alone, size_t ops, const std::string& tree) {
  ASSERT_EQ(kept.tensors.size(), alone.tensors.size()) << tree;
  for (size_t t = 0; t < kept.tensors.size(); ++t) {
    const TensorPlacement &k = kept.tensors[t], &a = alone.tensors[t];
    EXPECT_EQ(k.region, a.region) << "tensor " << t << "\n" << tree;
    EXPECT_EQ(k.home, a.home) << "tensor " << t << "\n" << tree;
    EXPECT_EQ(k.level, a.level) << "tensor " << t << "\n" << tree;
    EXPECT_EQ(k.owner, a.owner) << "tensor " << t << "\n" << tree;
    EXPECT_EQ(k.source, a.source) << "tensor " << t << "\n" << tree;
    EXPECT_EQ(k.writes, a.writes) << "tensor " << t << "\n" << tree;
  }
  ASSERT_EQ(kept.ops_below.size(), alone.ops_below.size()) << tree;
  for (size_t n = 0; n < kept.ops_below.size(); ++n)
    for (size_t o = 0; o < ops; ++o) EXPECT_EQ(kept.ops_below[n][o], alone.ops_below[n][o]) << "node " << n << " op " << o << "\n" << tree;
}

class ShapeCacheOn : public test::OnArchWorkload {};

TEST_P(ShapeCacheOn, SamePlacementsAndReportsAsWithoutItOnRandomCandidates) {
  ShapeCache cache;
  int trees = 0;
  test::for_random_candidates(mapper::Space(a, w), 7, 300, [&](const Dataflow& f) {
    const Placement alone = place(a, w, f);
    const std::shared_ptr<const TreeShape> kept = cache.shape(a, w, f);
    ASSERT_TRUE(kept);
    expect_same_placement(kept->placement, alone, w.ops.size(), to_yaml(f, a, w));
    const Report with = analyze(a, w, f, nullptr, StepReplay::Worthwhile, HeldAs::Boxes, &cache);
    ASSERT_EQ(to_json(with, a.name, w.name, f.name), to_json(analyze(a, w, f), a.name, w.name, f.name)) << to_yaml(f, a, w);
    ++trees;
  });
  // Mutations change loops far more often than where data lives: shapes recur.
  EXPECT_LT(cache.size(), static_cast<size_t>(trees) / 2);
  std::cout << GetParam().workload << " on " << GetParam().arch << ": " << trees << " trees, " << cache.size() << " shapes\n";
}

INSTANTIATE_TEST_SUITE_P(Candidates, ShapeCacheOn,
                         ::testing::Values(test::ArchWorkload{"edge", "attention_g1"}, test::ArchWorkload{"cloud", "attention_g3"},
                                           test::ArchWorkload{"cloud", "conv_chain_c1"}, test::ArchWorkload{"tpu_like", "gemm_chain_g1"},
                                           test::ArchWorkload{"ascend_like", "attention_g1"}),
                         test::arch_workload_name);

TEST(ShapeKey, LoopsDoNotCountWhereDataLivesDoes) {
  const arch::Arch a = arch::load_arch(test::config("arch/cloud.yaml"));
  const Workload w = load_workload(test::config("workloads/mlp_block.yaml"));  // fc1, relu, fc2
  const mapper::Space space(a, w);
  dfx::mapper::Rng rng(5);
  mapper::Choice c;
  c.group_of = {0, 0, 1};
  c.prim.assign(2, Prim::Seq);
  const mapper::Choice one = space.retile(c, rng);
  mapper::Choice other = space.retile(c, rng);
  for (int tries = 0; tries < 50 && other.outer == one.outer; ++tries) other = space.retile(c, rng);
  ASSERT_NE(other.outer, one.outer) << "the test needs two tilings of one structure";
  other.spatial = one.spatial, other.own_trips = one.own_trips, other.home = one.home;
  const ShapeKey k1 = shape_key(space.build(one, "one"));
  EXPECT_EQ(k1, shape_key(space.build(other, "other")));
  // fc1's output waiting in the shared L2 instead of DRAM: a node keeps it there.
  mapper::Choice kept = one;
  kept.home.assign(w.ops.size(), 0);
  kept.home[1] = 1;
  EXPECT_NE(k1, shape_key(space.build(kept, "kept")));
}

}  // namespace
}  // namespace dfx::model
