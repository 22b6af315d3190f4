#include <gtest/gtest.h>

#include "model/analyze.h"
#include "model/dataflow.h"
#include "tests/unit/test_util.h"

namespace dfx::model {
namespace {

class Dataflows : public ::testing::Test {
 protected:
  arch::Arch a = arch::load_arch(test::config("arch/edge.yaml"));
  Workload chain = load_workload(test::config("workloads/gemm_chain_g1.yaml"));

  std::string error_of(const std::string& tree) {
    return test::input_error([&] { load_dataflow_from_string("tree:\n" + tree, "f.yaml", a, chain); });
  }
};

TEST_F(Dataflows, ShippedDataflowsLoadAndAreValid) {
  struct Shipped {
    const char* arch;
    const char* workload;
    const char* flow;
  };
  for (const Shipped& s : {Shipped{"edge", "attention_g1", "attention_g1_edge_layerwise"},
                           Shipped{"edge", "attention_g1", "attention_g1_edge_fused_pipe"},
                           Shipped{"edge", "gemm_chain_g1", "gemm_chain_g1_edge_fused"},
                           Shipped{"tileflow_validation", "fused_gemm_validation", "validation_fused_gemm"}}) {
    SCOPED_TRACE(s.flow);
    arch::Arch arch = arch::load_arch(test::config(std::string("arch/") + s.arch + ".yaml"));
    Workload w = load_workload(test::config(std::string("workloads/") + s.workload + ".yaml"));
    Dataflow f = load_dataflow(test::config(std::string("dataflows/") + s.flow + ".yaml"), arch, w);
    Report r = analyze(arch, w, f);
    EXPECT_TRUE(r.valid) << r.reason;
  }
}

TEST_F(Dataflows, MissingAndDuplicateOps) {
  EXPECT_NE(error_of("  tile: DRAM\n  children: [{op: gemm1}]\n").find("op 'gemm2' does not appear"), std::string::npos);
  EXPECT_NE(error_of("  tile: DRAM\n  children: [{op: gemm1}, {op: gemm2}, {op: gemm2}]\n").find("appears 2 times"),
            std::string::npos);
}

TEST_F(Dataflows, NamesAreResolvedWithHints) {
  std::string err = error_of("  tile: DRAN\n  loops: [\"mm:4\", \"m:0\"]\n  prim: Pipes\n  children: [{op: gemm1}, {op: gemm3}]\n");
  EXPECT_NE(err.find("unknown level 'DRAN' (did you mean 'DRAM'?)"), std::string::npos) << err;
  EXPECT_NE(err.find("unknown dimension 'mm' (did you mean 'm'?)"), std::string::npos) << err;
  EXPECT_NE(err.find("factor must be a positive integer"), std::string::npos) << err;
  EXPECT_NE(err.find("unknown primitive 'Pipes'"), std::string::npos) << err;
  EXPECT_NE(err.find("unknown op 'gemm3' (did you mean 'gemm1'?)"), std::string::npos) << err;
  EXPECT_NE(err.find("f.yaml:2:"), std::string::npos) << err;
}

TEST_F(Dataflows, ParaSiblingsMustBeIndependent) {
  std::string err = error_of("  tile: DRAM\n  prim: Para\n  children: [{op: gemm1}, {op: gemm2}]\n");
  EXPECT_NE(err.find("Para children depend on each other"), std::string::npos) << err;
}

TEST_F(Dataflows, ProducerReductionAboveTheFusionPointIsRejected) {
  std::string err = error_of("  tile: DRAM\n  loops: [\"k:4\"]\n  children: [{op: gemm1}, {op: gemm2}]\n");
  EXPECT_NE(err.find("a reduction of 'gemm1'"), std::string::npos) << err;
}

TEST_F(Dataflows, TileLevelsOnlyMoveInward) {
  std::string err = error_of("  tile: L1\n  children:\n    - tile: DRAM\n      children: [{op: gemm1}, {op: gemm2}]\n");
  EXPECT_NE(err.find("root tile must be at the outermost level"), std::string::npos) << err;
  EXPECT_NE(err.find("inside a tile at the inner level"), std::string::npos) << err;
}

TEST_F(Dataflows, KeepNamesAFusedIntermediate) {
  std::string err = error_of("  tile: DRAM\n  keep: {A: L1}\n  children: [{op: gemm1}, {op: gemm2}]\n");
  EXPECT_NE(err.find("'A' is not an intermediate"), std::string::npos) << err;
  err = error_of("  tile: DRAM\n  children:\n    - tile: DRAM\n      keep: {C: L1}\n"
                 "      children: [{op: gemm1}]\n    - {op: gemm2}\n");
  EXPECT_NE(err.find("keep: 'C' is not fused at this tile"), std::string::npos) << err;
}

TEST_F(Dataflows, ProjectedProducerDimensionsCannotBeTiledAboveTheFusionPoint) {
  Workload conv = load_workload(test::config("workloads/conv_chain_c6.yaml"));
  std::string err = test::input_error([&] {
    load_dataflow_from_string("tree:\n  tile: DRAM\n  loops: [\"p1:2\"]\n  children: [{op: conv1}, {op: conv2}]\n",
                              "f.yaml", a, conv);
  });
  EXPECT_NE(err.find("an output dimension of 'conv1'"), std::string::npos) << err;
}

TEST_F(Dataflows, YamlRoundTripGivesTheSameAnalysis) {
  Workload att = load_workload(test::config("workloads/attention_g1.yaml"));
  Dataflow f = load_dataflow(test::config("dataflows/attention_g1_edge_fused_pipe.yaml"), a, att);
  Dataflow g = load_dataflow_from_string(to_yaml(f, a, att), "round.yaml", a, att);
  Report r1 = analyze(a, att, f), r2 = analyze(a, att, g);
  ASSERT_TRUE(r1.valid && r2.valid);
  EXPECT_EQ(r1.cycles, r2.cycles);
  ASSERT_EQ(r1.levels.size(), r2.levels.size());
  for (size_t i = 0; i < r1.levels.size(); ++i) EXPECT_TRUE(r1.levels[i].traffic == r2.levels[i].traffic);
}

TEST_F(Dataflows, ExplainMakesImplicitFactorsExplicit) {
  Dataflow f = load_dataflow(test::config("dataflows/gemm_chain_g1_edge_fused.yaml"), a, chain);
  std::string text = explain(f, a, chain);
  EXPECT_NE(text.find("T@DRAM {Sp b:4, b:2, m:16} Seq("), std::string::npos) << text;
  EXPECT_NE(text.find("gemm1  {b:1*, m:1*, l:1*, k:1*}"), std::string::npos) << text;
}

}  // namespace
}  // namespace dfx::model
