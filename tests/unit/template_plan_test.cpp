// template_plan() (model/template_plan.h): which of the template's trees a closed form would
// take, and why it refuses the others. Coverage on the trees a search draws is what the closed
// form's speed rests on (docs/closed-form-plan.md): most valid points of the plain, tree-timed
// pairs must be taken.
#include <gtest/gtest.h>

#include <map>

#include "mapper/space.h"
#include "model/template_plan.h"
#include "model/walk.h"
#include "tests/unit/random_candidates.h"
#include "tests/unit/test_util.h"

namespace dfx::mapper {
namespace {

struct Coverage {
  int valid = 0, taken = 0;
  std::map<std::string, int> refused;
};

Coverage coverage(const arch::Arch& a, const model::Workload& w, int points) {
  Coverage c;
  test::for_random_candidates(Space(a, w), 27, points, [&](const model::Dataflow& f) {
    const model::TreeShape shape(a, w, f);
    const model::WalkResult r = model::walk_tree(a, w, f, shape, nullptr, model::StepReplay::Worthwhile, model::HeldAs::Boxes, {}, model::ClosedForm::Walk);
    if (!r.problems.empty()) return;
    ++c.valid;
    const model::TemplateVerdict v = model::template_plan(a, w, f, shape);
    if (v.plan) {
      ++c.taken;
      EXPECT_EQ(v.plan->groups.size(), f.nodes[0].children.size());
    } else {
      ++c.refused[v.why];
    }
  });
  std::cout << c.taken << " of " << c.valid << " valid points taken";
  for (const auto& [why, n] : c.refused) std::cout << "; " << n << " " << why;
  std::cout << "\n";
  return c;
}

TEST(TemplatePlan, TakesMostPointsOfPlainTreeTimedPairs) {
  for (const auto& [arch, workload] : {std::pair{"edge", "attention_g1"}, std::pair{"edge", "gemm_chain_g1"}}) {
    const arch::Arch a = arch::load_arch(test::config(std::string("arch/") + arch + ".yaml"));
    const model::Workload w = model::load_workload(test::config(std::string("workloads/") + workload + ".yaml"));
    const Coverage c = coverage(a, w, 600);
    EXPECT_GE(c.valid, 100) << arch << " " << workload;
    EXPECT_GE(100 * c.taken, 95 * c.valid) << arch << " " << workload;
  }
}

TEST(TemplatePlan, TakesTheSearchsTreeWithPaddedSpreads) {
  // Near the best of the reference search: a Pipe of seven ops under core and temporal loops,
  // spreads padded in a partial last step (l:43 then l:12:sp over l = 512).
  const arch::Arch a = arch::load_arch(test::config("arch/edge.yaml"));
  const model::Workload w = model::load_workload(test::config("workloads/attention_g1.yaml"));
  const model::Dataflow f = model::load_dataflow(test::config("../bench/trees/attention_g1_edge_t2017.yaml"), a, w);
  const model::TemplateVerdict v = model::template_plan(a, w, f, model::TreeShape(a, w, f));
  ASSERT_TRUE(v.plan) << v.why;
  ASSERT_EQ(v.plan->groups.size(), 1u);
  const model::TemplateGroup& g = v.plan->groups[0];
  EXPECT_EQ(g.prim, model::Prim::Pipe);
  EXPECT_EQ(g.ops.size(), 7u);
  EXPECT_EQ(g.classes_used, 1u);  // m:4:sp, b:8, m:2 divide their extents
  ASSERT_EQ(g.loops.size(), 3u);
  EXPECT_TRUE(g.loops[0].spatial);
  EXPECT_EQ(g.loops[0].chunk, 128);
  EXPECT_GE(g.ops[0].registers, 0);  // qk on the PE array
  EXPECT_LT(g.ops[1].registers, 0);  // max on the vector unit
}

TEST(TemplatePlan, RefusesWhatItCannotModel) {
  // Instruction-timed archs and windowed accesses are walked.
  {
    const arch::Arch a = arch::load_arch(test::config("arch/tpu_like.yaml"));
    const model::Workload w = model::load_workload(test::config("workloads/attention_g1.yaml"));
    Rng rng(3);
    const model::Dataflow f = Space(a, w).build(Space(a, w).random(rng), "t");
    EXPECT_EQ(model::template_plan(a, w, f, model::TreeShape(a, w, f)).why, "timed by instructions");
  }
  {
    const arch::Arch a = arch::load_arch(test::config("arch/cloud.yaml"));
    const model::Workload w = model::load_workload(test::config("workloads/conv_chain_c1.yaml"));
    Rng rng(3);
    const model::Dataflow f = Space(a, w).build(Space(a, w).random(rng), "t");
    EXPECT_EQ(model::template_plan(a, w, f, model::TreeShape(a, w, f)).why, "accesses not plain");
  }
  // A core split that leaves one core less to do, and a padded GEMM nest whose spread is not
  // over the padded dim.
  const arch::Arch a = arch::load_arch(test::config("arch/edge.yaml"));
  const model::Workload w = model::load_workload(test::config("workloads/attention_g1.yaml"));
  auto verdict = [&](const std::string& outer, const std::string& qk) {
    const std::string text = "name: t\nworkload: attention_g1\ntree:\n  tile: DRAM\n  loops: []\n  children:\n"
                             "  - tile: DRAM\n    loops: [" + outer + "]\n    children:\n"
                             "    - tile: L1\n      loops: []\n      prim: Seq\n      children:\n"
                             "      - tile: L1\n        loops: [" + qk + "]\n        children:\n"
                             "        - tile: Reg\n          loops: []\n          children: [{op: qk}]\n"
                             "      - tile: L1\n        loops: [\"m:64\", \"l:43\", \"l:12:sp\"]\n        children: [{op: max}]\n"
                             "      - tile: L1\n        loops: [\"m:64\", \"l:64\", \"l:8:sp\"]\n        children: [{op: sub}]\n"
                             "      - tile: L1\n        loops: [\"m:64\", \"l:64\", \"l:8:sp\"]\n        children: [{op: exp}]\n"
                             "      - tile: L1\n        loops: [\"m:64\", \"l:64\", \"l:8:sp\"]\n        children: [{op: sum}]\n"
                             "      - tile: L1\n        loops: [\"m:64\", \"l:64\", \"l:8:sp\"]\n        children: [{op: div}]\n"
                             "      - tile: L1\n        loops: [\"m:4\", \"n:2\", \"l:512\", \"m:16:sp\", \"n:32:sp\"]\n        children:\n"
                             "        - tile: Reg\n          loops: []\n          children: [{op: av}]\n";
    const model::Dataflow f = model::load_dataflow_from_string(text, "t.yaml", a, w);
    return model::template_plan(a, w, f, model::TreeShape(a, w, f)).why;
  };
  const std::string qk = "\"m:2\", \"l:32\", \"k:64\", \"m:32:sp\", \"l:16:sp\"";
  EXPECT_EQ(verdict("\"m:4:sp\", \"b:8\", \"m:2\"", qk), "");
  EXPECT_EQ(verdict("\"m:3:sp\", \"b:8\"", qk), "an uneven core split");
  EXPECT_EQ(verdict("\"m:4:sp\", \"b:8\", \"m:2\"", "\"m:2\", \"l:43\", \"k:64\", \"m:32:sp\", \"k:1:sp\""),
            "a partial step whose spread is not classed");
}

}  // namespace
}  // namespace dfx::mapper
