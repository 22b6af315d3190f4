// The mapper's template on archs that split operand roles across levels (ascend_like): where its
// tiles go, and that explore finds valid dataflows there which eval reproduces.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "mapper/search.h"
#include "mapper/space.h"
#include "mapper/template_levels.h"
#include "model/analyze.h"
#include "tests/unit/test_util.h"

namespace dfx::mapper {
namespace {

std::vector<std::string> names(const arch::Arch& a, const std::vector<int>& levels) {
  std::vector<std::string> out;
  for (int l : levels) out.push_back(a.levels[static_cast<size_t>(l)].name);
  return out;
}

using Names = std::vector<std::string>;

TEST(TemplateLevels, OneBufferArchsTileIntoIt) {
  arch::Arch edge = arch::load_arch(test::config("arch/edge.yaml"));
  TemplateLevels t = template_levels(edge, true, true);
  EXPECT_EQ(names(edge, t.group), Names{"L1"});
  EXPECT_EQ(t.matrix_op, t.group);
  EXPECT_EQ(t.vector_op, t.group);
  EXPECT_EQ(t.matrix_staging, -1);
  ASSERT_GE(t.registers, 0);
  EXPECT_EQ(edge.levels[static_cast<size_t>(t.registers)].name, "Reg");
}

TEST(TemplateLevels, AscendStagesThroughL1AndUb) {
  arch::Arch asc = arch::load_arch(test::config("arch/ascend_like.yaml"));
  TemplateLevels t = template_levels(asc, true, true);
  EXPECT_EQ(names(asc, t.group), (Names{"L1", "UB"}));
  EXPECT_EQ(names(asc, t.matrix_op), (Names{"L0A", "L0B", "L0C"}));  // L0C, not UB, takes the cube's results
  EXPECT_EQ(names(asc, t.vector_op), Names{"UB"});
  ASSERT_GE(t.matrix_staging, 0);
  EXPECT_EQ(asc.levels[static_cast<size_t>(t.matrix_staging)].name, "L1");
  EXPECT_EQ(t.registers, -1);
}

TEST(TemplateLevels, AnOperandWithNoLevelIsRefusedAtTheArch) {
  arch::Arch bad = arch::load_arch(std::string(DFX_TEST_DATA) + "/bad/arch_no_vector_level.yaml");
  const std::string err = test::input_error([&] { template_levels(bad, true, true); });
  EXPECT_NE(err.find("arch_no_vector_level.yaml:"), std::string::npos) << err;
  EXPECT_NE(err.find("no on-chip level that holds vector operands"), std::string::npos) << err;
  // A workload without vector ops does not need one.
  EXPECT_NO_THROW(template_levels(bad, true, false));
}

// Explore on ascend_like: the best trees put every cube op in an L0A/L0B/L0C tile under an L1
// tile and every vector op in UB, and eval reproduces their figures.
TEST(TemplateLevels, ExploreOnAscendGivesTreesEvalReproduces) {
  arch::Arch asc = arch::load_arch(test::config("arch/ascend_like.yaml"));
  model::Workload w = model::load_workload(test::config("workloads/attention_g1.yaml"));
  SearchOptions o;
  o.seed = 2;
  o.evaluations = 600;
  o.top = 3;
  Outcome out = explore(asc, w, o);
  ASSERT_FALSE(out.best.empty());
  for (const Candidate& c : out.best) {
    model::Dataflow f = model::load_dataflow_from_string(c.flow_yaml, "best.yaml", asc, w);
    model::Report r = model::analyze(asc, w, f);
    ASSERT_TRUE(r.valid) << r.reason;
    EXPECT_EQ(r.cycles, c.report.cycles);
    EXPECT_EQ(r.dram_bytes, c.report.dram_bytes);
    for (const model::TreeNode& n : f.nodes) {
      if (!n.is_leaf) continue;
      const model::TreeNode& tile = f.nodes[static_cast<size_t>(n.parent)];
      if (w.ops[static_cast<size_t>(n.op)].unit == arch::UnitKind::Matrix) {
        EXPECT_EQ(names(asc, tile.levels), (Names{"L0A", "L0B", "L0C"})) << c.flow_yaml;
        EXPECT_EQ(names(asc, f.nodes[static_cast<size_t>(tile.parent)].levels), Names{"L1"}) << c.flow_yaml;
      } else {
        EXPECT_EQ(names(asc, tile.levels), Names{"UB"}) << c.flow_yaml;
      }
    }
  }
  // Fusing beats running op by op here, as on the other archs.
  double layerwise = 0;
  for (const Candidate& b : out.baselines)
    if (b.name == "Layerwise") layerwise = b.cost;
  ASSERT_GT(layerwise, 0);
  EXPECT_LT(out.best.front().cost, layerwise);
}

}  // namespace
}  // namespace dfx::mapper
