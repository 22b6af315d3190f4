// The box walk (model/box_walk.h) against the walk on the trees a search analyses: the template's
// points, deep enough that representative steps are replayed (the property tier's random trees
// seldom are). Every figure must be the same to the bit, and every valid point taken.
#include <gtest/gtest.h>

#include <random>

#include "mapper/space.h"
#include "model/box_walk.h"
#include "model/placement.h"
#include "model/walk.h"
#include "tests/unit/test_util.h"

namespace dfx::mapper {
namespace {

void expect_same(const model::WalkResult& boxes, const model::WalkResult& walked, const std::string& where) {
  ASSERT_TRUE(walked.problems.empty()) << where;
  EXPECT_EQ(boxes.cycles, walked.cycles) << where;
  EXPECT_EQ(boxes.macs, walked.macs) << where;
  EXPECT_EQ(boxes.vector_ops, walked.vector_ops) << where;
  EXPECT_EQ(boxes.op_work, walked.op_work) << where;
  EXPECT_EQ(boxes.op_cycles, walked.op_cycles) << where;
  EXPECT_EQ(boxes.peak_elems, walked.peak_elems) << where;
  EXPECT_EQ(boxes.level_peak_elems, walked.level_peak_elems) << where;
  EXPECT_EQ(boxes.feed_reads, walked.feed_reads) << where;
  EXPECT_EQ(boxes.feed_updates, walked.feed_updates) << where;
  for (size_t l = 0; l < boxes.traffic.size(); ++l)
    for (size_t t = 0; t < boxes.traffic[l].size(); ++t)
      EXPECT_TRUE(boxes.traffic[l][t] == walked.traffic[l][t]) << "level " << l << " tensor " << t << "\n" << where;
}

class BoxWalk : public test::OnArchWorkload {};

TEST_P(BoxWalk, EqualsTheWalkOnTemplatePoints) {
  ASSERT_TRUE(model::box_walk_applies(a, w));
  const Space space(a, w);
  std::mt19937_64 rng(27);
  int valid = 0, covered = 0, replayed = 0;
  for (int i = 0; i < 300; ++i) {
    Choice c = space.random(rng);
    for (int step = 0; step < i % 5; ++step) c = space.mutate(c, rng, step % 2 == 0);
    const model::Dataflow f = space.build(c, "candidate");
    const model::Placement p = model::place(a, w, f);
    const model::WalkResult walked = model::walk_tree(a, w, f, p, nullptr, model::StepReplay::Off, model::WalkEngine::WalkOnly);
    if (!walked.problems.empty()) continue;
    ++valid;
    const std::optional<model::WalkResult> boxes = model::box_walk(a, w, f, p, nullptr);
    if (!boxes) continue;
    ++covered;
    replayed += boxes->replayed_steps > 0;
    expect_same(*boxes, walked, space.flow_yaml(c, "candidate"));
    if (HasFailure()) break;
  }
  EXPECT_GE(covered, 20);
  EXPECT_EQ(covered, valid) << "valid points left to the walk";
  EXPECT_GE(2 * replayed, covered) << "too few points replayed a step to check the replay";
  std::cout << covered << " of " << valid << " valid points covered, " << replayed << " replayed a step\n";
}

INSTANTIATE_TEST_SUITE_P(Points, BoxWalk,
                         ::testing::Values(test::ArchWorkload{"edge", "attention_g1"}, test::ArchWorkload{"edge", "gemm_chain_g1"},
                                           test::ArchWorkload{"cloud", "mlp_block"}, test::ArchWorkload{"cloud", "attention_g3"},
                                           test::ArchWorkload{"edge", "bert_layer_tail"}),
                         test::arch_workload_name);

}  // namespace
}  // namespace dfx::mapper
