// The closed form of template trees (model/template_eval.h) against the walk, which defines the
// semantics: on every tree it answers, every figure the same to the bit.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "mapper/space.h"
#include "model/phase_cache.h"
#include "model/template_eval.h"
#include "model/walk.h"
#include "tests/unit/random_candidates.h"
#include "tests/unit/test_util.h"
#include "tests/unit/walk_compare.h"

namespace dfx::mapper {
namespace {

class TemplateEval : public test::OnArchWorkload {};

// With phase caches (each its own, filled alike) and bars under the tree's `cycles`: the same
// give-ups (at the fill or after a phase) with the same figure, and the same results where neither
// gives up. A bar at the cycles over a floor at 0.99 of them gives up at fills; one at 0.95 of
// them over a floor at 0.9 gives up after phases too, and at fills in phases before the last.
// Whether the first gave up.
bool same_under_a_bar(const arch::Arch& a, const model::Workload& w, const model::Dataflow& f, const model::TreeShape& shape,
                      const model::TemplatePlan& plan, double cycles, model::PhaseCache& walk_phases, model::PhaseCache& closed_phases) {
  bool first_gave_up = false;
  for (const model::CyclesBar bar : {model::CyclesBar{0.99 * cycles, cycles}, model::CyclesBar{0.9 * cycles, 0.95 * cycles}}) {
    const model::WalkResult barred =
        model::walk_tree(a, w, f, shape, &walk_phases, model::StepReplay::Worthwhile, model::HeldAs::Boxes, bar, model::ClosedForm::Walk);
    const std::optional<model::WalkResult> closed = model::template_walk(a, w, f, shape, plan, &closed_phases, bar);
    EXPECT_TRUE(closed);
    if (!closed) return false;
    EXPECT_EQ(closed->gave_up, barred.gave_up) << model::to_yaml(f, a, w);
    if (barred.gave_up && closed->gave_up) EXPECT_EQ(closed->at_least, barred.at_least) << model::to_yaml(f, a, w);
    else if (!barred.gave_up && !closed->gave_up) test::expect_same_walk(*closed, barred, model::to_yaml(f, a, w));
    first_gave_up = first_gave_up || (bar.bar == cycles && barred.gave_up);
  }
  return first_gave_up;
}

TEST_P(TemplateEval, SameAsWalkOnTemplatePoints) {
  int taken = 0, answered = 0, valid = 0, gave_up = 0;
  std::map<std::string, int> refused;
  // Each its own phase cache, filled alike: the closed form looks phases up and keeps them as
  // the walk does.
  model::PhaseCache walk_phases, closed_phases;
  test::for_random_candidates(Space(a, w), 27, 300, [&](const model::Dataflow& f) {
    if (HasFailure()) return;
    const model::TreeShape shape(a, w, f);
    const model::WalkResult walked = model::walk_tree(a, w, f, shape, nullptr, model::StepReplay::Worthwhile, model::HeldAs::Boxes, {}, model::ClosedForm::Walk);
    valid += walked.problems.empty();
    const model::TemplateVerdict v = model::template_plan(a, w, f, shape);
    if (!v.plan) return;
    ++taken;
    std::string why;
    const std::optional<model::WalkResult> closed = model::template_walk(a, w, f, shape, *v.plan, nullptr, {}, &why);
    if (!closed) return void(++refused[why]);
    ++answered;
    test::expect_same_walk(*closed, walked, model::to_yaml(f, a, w));
    gave_up += same_under_a_bar(a, w, f, shape, *v.plan, walked.cycles, walk_phases, closed_phases);
  });
  std::cout << valid << " valid points, " << taken << " taken by the plan, " << answered << " answered in closed form (" << gave_up
            << " giving up under a bar)";
  for (const auto& [why, n] : refused) std::cout << "; " << n << " " << why;
  std::cout << "\n";
}

// Runs within runs: a register nest with two spreads whose instances run in classes (padding m
// and l of Q·K over rows and columns of the array). Random points rarely have one; the searches
// climb to them (116 of attention G1 / edge's 4,104 analyses at 10,000 candidates). Here random
// points and their mutations until 40 are found, each against the walk, also under a bar.
class TemplateEvalRunsWithinRuns : public test::OnArchWorkload {};

TEST_P(TemplateEvalRunsWithinRuns, SameAsWalk) {
  const Space space(a, w);
  Rng rng(41);
  Choice c = space.random(rng);
  int found = 0, gave_up = 0;
  model::PhaseCache walk_phases, closed_phases;
  for (int i = 0; i < 200000 && found < 40 && !HasFailure(); ++i) {
    c = i % 100 == 0 ? space.random(rng) : space.mutate(c, rng);
    const model::Dataflow f = space.build(c, "candidate");
    std::shared_ptr<const model::TreeShape> shape;
    try {
      shape = std::make_shared<const model::TreeShape>(a, w, f);
    } catch (const InputError&) {
      continue;
    }
    const model::TemplateVerdict v = model::template_plan(a, w, f, *shape);
    if (!v.plan) continue;
    bool within = false;
    for (const model::TemplateGroup& g : v.plan->groups)
      for (const model::TemplateOp& t : g.ops) within = within || t.classings == 2;
    if (!within) continue;
    ++found;
    const model::WalkResult walked = model::walk_tree(a, w, f, *shape, nullptr, model::StepReplay::Worthwhile, model::HeldAs::Boxes, {}, model::ClosedForm::Walk);
    std::string why;
    const std::optional<model::WalkResult> closed = model::template_walk(a, w, f, *shape, *v.plan, nullptr, {}, &why);
    ASSERT_TRUE(closed) << why << "\n" << model::to_yaml(f, a, w);
    test::expect_same_walk(*closed, walked, model::to_yaml(f, a, w));
    gave_up += same_under_a_bar(a, w, f, *shape, *v.plan, walked.cycles, walk_phases, closed_phases);
  }
  EXPECT_EQ(found, 40) << "too few trees with runs within runs: the test checks little";
  std::cout << found << " trees with runs within runs, the same as the walk (" << gave_up << " giving up under a bar)\n";
}

INSTANTIATE_TEST_SUITE_P(Points, TemplateEvalRunsWithinRuns,
                         ::testing::Values(test::ArchWorkload{"edge", "attention_g1"}, test::ArchWorkload{"edge", "gemm_chain_g1"},
                                           test::ArchWorkload{"cloud", "mlp_block"}, test::ArchWorkload{"edge", "bert_layer_tail"}),
                         test::arch_workload_name);

INSTANTIATE_TEST_SUITE_P(Points, TemplateEval,
                         ::testing::Values(test::ArchWorkload{"edge", "attention_g1"}, test::ArchWorkload{"edge", "gemm_chain_g1"},
                                           test::ArchWorkload{"cloud", "mlp_block"}, test::ArchWorkload{"cloud", "attention_g3"},
                                           test::ArchWorkload{"edge", "bert_layer_tail"}, test::ArchWorkload{"edge", "vit_attention"},
                                           test::ArchWorkload{"cloud", "gemm_chain_g10"}, test::ArchWorkload{"edge", "attention_g8"}),
                         test::arch_workload_name);

}  // namespace
}  // namespace dfx::mapper
