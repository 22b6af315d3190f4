// Buffers held as boxes (model/held.h) against buffers held as sets, on the trees a search
// analyses: the template's points, deep enough that representative steps are replayed (the
// property tier's random trees seldom are), and with an op's own tiles counted in closed form
// (model/walk_nest.cpp; only with boxes). Every figure must be the same to the bit.
#include <gtest/gtest.h>

#include "mapper/space.h"
#include "model/held.h"
#include "model/placement.h"
#include "model/tree_shape.h"
#include "model/walk.h"
#include "tests/unit/random_candidates.h"
#include "tests/unit/test_util.h"
#include "tests/unit/walk_compare.h"

namespace dfx::mapper {
namespace {

class HeldAsBoxes : public test::OnArchWorkload {};

TEST_P(HeldAsBoxes, SameWalkAsWithSetsOnTemplatePoints) {
  ASSERT_TRUE(model::accesses_are_boxes(w));
  int valid = 0, replayed = 0, counted = 0;
  test::for_random_candidates(Space(a, w), 27, 300, [&](const model::Dataflow& f) {
    if (HasFailure()) return;
    const model::Placement p = model::place(a, w, f);
    const model::WalkResult boxes = model::walk_tree(a, w, f, model::TreeShape(w, f, p), nullptr, model::StepReplay::Worthwhile, model::HeldAs::Boxes, {},
                                                                 model::ClosedForm::Walk);
    const model::WalkResult sets = model::walk_tree(a, w, f, p, nullptr, model::StepReplay::Worthwhile, model::HeldAs::Sets);
    test::expect_same_walk(boxes, sets, model::to_yaml(f, a, w));
    valid += sets.problems.empty();
    replayed += sets.replayed_steps > 0;
    counted += boxes.nests_counted > 0;
  });
  EXPECT_GE(valid, 100);
  EXPECT_GE(2 * replayed, valid) << "too few points replayed a step to check the replay";
  if (!a.instruction_timed()) {
    EXPECT_GE(3 * counted, valid) << "too few points counted an op's own tiles in closed form";
  }
  std::cout << valid << " valid points compared, " << replayed << " replayed a step, " << counted
            << " counted an op's own tiles in closed form\n";
}

INSTANTIATE_TEST_SUITE_P(Points, HeldAsBoxes,
                         ::testing::Values(test::ArchWorkload{"edge", "attention_g1"}, test::ArchWorkload{"edge", "gemm_chain_g1"},
                                           test::ArchWorkload{"cloud", "mlp_block"}, test::ArchWorkload{"cloud", "attention_g3"},
                                           test::ArchWorkload{"edge", "bert_layer_tail"}, test::ArchWorkload{"ascend_like", "attention_g1"},
                                           test::ArchWorkload{"tpu_like", "vit_attention"},
                                           test::ArchWorkload{"edge", "vit_attention"}, test::ArchWorkload{"cloud", "gemm_chain_g10"},
                                           test::ArchWorkload{"edge", "attention_g8"}),
                         test::arch_workload_name);

}  // namespace
}  // namespace dfx::mapper
