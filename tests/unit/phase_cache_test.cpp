// Phases kept across trees (model/phase_cache.h): analysing the mapper's candidates with one
// cache gives, report for report, what analysing each alone gives, and the cache is used.
#include <gtest/gtest.h>

#include <iostream>

#include "mapper/space.h"
#include "model/analyze.h"
#include "model/phase_cache.h"
#include "model/report_io.h"
#include "tests/unit/random_candidates.h"
#include "tests/unit/test_util.h"

namespace dfx::model {
namespace {

class PhaseCacheOn : public test::OnArchWorkload {};

TEST_P(PhaseCacheOn, SameReportsAsWithoutItOnRandomCandidates) {
  PhaseCache cache;
  int phased = 0, valid = 0;
  test::for_random_candidates(mapper::Space(a, w), 5, 400, [&](const Dataflow& f) {
    const Report alone = analyze(a, w, f);
    const Report kept = analyze(a, w, f, &cache);
    ASSERT_EQ(to_json(kept, a.name, w.name, f.name), to_json(alone, a.name, w.name, f.name)) << to_yaml(f, a, w);
    // Outputs kept on chip between the groups (cloud's L2) tie them together: no phases then.
    phased += f.root().children.size() > 1 && f.root().keep.empty();
    valid += alone.valid;
  });
  // Mutations change one group at a time, so most phases of a many-group tree were seen before.
  EXPECT_GE(phased, 60);
  EXPECT_GE(valid, 100);
  EXPECT_GE(cache.hits(), phased / 3) << "misses " << cache.misses();
  std::cout << GetParam().workload << " on " << GetParam().arch << ": " << phased << " trees of several groups handing over through DRAM, "
            << cache.hits() << " phases looked up, " << cache.misses() << " walked\n";
}

INSTANTIATE_TEST_SUITE_P(Candidates, PhaseCacheOn,
                         ::testing::Values(test::ArchWorkload{"edge", "attention_g1"}, test::ArchWorkload{"edge", "mlp_block"},
                                           test::ArchWorkload{"cloud", "conv_chain_c1"}, test::ArchWorkload{"cloud", "attention_g3"},
                                           test::ArchWorkload{"tpu_like", "gemm_chain_g1"},
                                           test::ArchWorkload{"ascend_like", "attention_g1"}),
                         test::arch_workload_name);

TEST(PhaseKey, NamesASubtreeWhereverItSits) {
  const arch::Arch a = arch::load_arch(test::config("arch/edge.yaml"));
  const Workload w = load_workload(test::config("workloads/mlp_block.yaml"));  // fc1, relu, fc2
  const mapper::Space space(a, w);
  dfx::mapper::Rng rng(3);
  auto grouped = [&](std::vector<int> group_of) {
    mapper::Choice c;
    c.group_of = std::move(group_of);
    c.prim.assign(static_cast<size_t>(c.group_of.back() + 1), Prim::Seq);
    return space.retile(c, rng);
  };
  mapper::Choice apart = grouped({0, 1, 2}), fused = grouped({0, 0, 1});
  // fc2 alone, tiled alike in both: after one group of two ops, or after two groups of one.
  fused.outer[1] = apart.outer[2], fused.core_dim[1] = apart.core_dim[2];
  fused.spatial[2] = apart.spatial[2], fused.order[2] = apart.order[2];
  const Dataflow f = space.build(apart, "apart"), g = space.build(fused, "fused");
  const int in_f = f.root().children.back(), in_g = g.root().children.back();
  ASSERT_NE(in_f, in_g) << "the test needs the group at different node ids";
  EXPECT_EQ(phase_key(f, in_f), phase_key(g, in_g));
  EXPECT_NE(phase_key(f, f.root().children[1]), phase_key(f, in_f));
  EXPECT_LT(phase_key(f, in_f).size(), phase_key(f, 0).size());
}

// Keys are 32-bit words; a value beyond them (no template tree has one) is escaped, so trees
// whose factors differ only above 32 bits still get different keys.
TEST(PhaseKey, ValuesBeyond32BitsKeepKeysApart) {
  const arch::Arch a = arch::load_arch(test::config("arch/edge.yaml"));
  const Workload w = load_workload(test::config("workloads/mlp_block.yaml"));
  const mapper::Space space(a, w);
  dfx::mapper::Rng rng(2);
  Dataflow f = space.build(space.random(rng), "f");
  Loop* loop = nullptr;
  for (TreeNode& n : f.nodes)
    if (!n.loops.empty()) loop = &n.loops.front();
  ASSERT_NE(loop, nullptr);
  loop->factor = 5;
  const PhaseKey small = phase_key(f, 0);
  loop->factor = (int64_t{1} << 32) + 5;
  const PhaseKey large = phase_key(f, 0);
  loop->factor = (int64_t{2} << 32) + 5;
  const PhaseKey larger = phase_key(f, 0);
  EXPECT_NE(small, large);
  EXPECT_NE(large, larger);
  EXPECT_EQ(large.size(), small.size() + 2);  // the escape and the two halves in place of one word
}

}  // namespace
}  // namespace dfx::model
