#include <gtest/gtest.h>

#include "model/workload.h"
#include "tests/unit/test_util.h"

namespace dfx::model {
namespace {

TEST(Workload, AttentionG1) {
  Workload w = load_workload(test::config("workloads/attention_g1.yaml"));
  ASSERT_EQ(w.ops.size(), 7u);
  EXPECT_EQ(w.ops.front().name, "qk");
  EXPECT_EQ(w.ops.back().name, "av");
  const Tensor& s = w.tensors[static_cast<size_t>(w.tensor_index("S"))];
  EXPECT_EQ(s.shape, (std::vector<int64_t>{8, 512, 512}));
  EXPECT_TRUE(s.is_intermediate());
  EXPECT_EQ(s.consumers.size(), 2u);  // max and sub
  const Op& qk = w.ops[0];
  EXPECT_EQ(qk.unit, arch::UnitKind::Matrix);
  EXPECT_EQ(qk.reduction_dims, (std::vector<int>{w.dim_index("k")}));
  const Op& mx = w.ops[static_cast<size_t>(w.op_index("max"))];
  EXPECT_EQ(mx.unit, arch::UnitKind::Vector);
  EXPECT_EQ(mx.reduction_dims, (std::vector<int>{w.dim_index("l")}));
  EXPECT_EQ(mx.vector_ops, (std::vector<std::string>{"max"}));
  const Op& ex = w.ops[static_cast<size_t>(w.op_index("exp"))];
  EXPECT_EQ(ex.vector_ops, (std::vector<std::string>{"exp"}));
  // 2 GEMMs of 8×512×512×64 MACs; the vector ops are counted separately.
  EXPECT_EQ(w.ops[0].ops_per_point, 1);
}

TEST(Workload, OpsAreSortedTopologically) {
  Workload w = load_workload_from_string(
      "name: t\ndims: {i: 4}\nops:\n  - \"C[i] = exp(B[i])\"\n  - \"B[i] = exp(A[i])\"\n", "t.yaml");
  EXPECT_EQ(w.ops[0].name, "B");
  EXPECT_EQ(w.ops[1].name, "C");
}

TEST(Workload, ConvShapesFollowTheWindow) {
  Workload w = load_workload(test::config("workloads/conv_chain_c1.yaml"));
  const Tensor& in = w.tensors[static_cast<size_t>(w.tensor_index("I"))];
  EXPECT_EQ(in.shape[2], 2 * (56 - 1) + 3);  // stride 2, 3-wide window over 56 output rows
  const Tensor& o1 = w.tensors[static_cast<size_t>(w.tensor_index("O1"))];
  EXPECT_EQ(o1.shape[2], 56);
}

TEST(Workload, EveryShippedWorkloadLoads) {
  for (int g = 1; g <= 12; ++g) {
    load_workload(test::config("workloads/attention_g" + std::to_string(g) + ".yaml"));
    load_workload(test::config("workloads/gemm_chain_g" + std::to_string(g) + ".yaml"));
  }
  for (int c = 1; c <= 8; ++c) load_workload(test::config("workloads/conv_chain_c" + std::to_string(c) + ".yaml"));
  Workload mlp = load_workload(test::config("workloads/mlp_block.yaml"));
  EXPECT_EQ(mlp.ops.size(), 3u);
}

struct BadCase {
  const char* ops;
  const char* expected;
};

class BadWorkload : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadWorkload, IsRejectedWithALocatedReason) {
  const std::string text = std::string("name: bad\ndims: {i: 4, j: 3, k: 2}\nops:\n") + GetParam().ops;
  std::string err = test::input_error([&] { load_workload_from_string(text, "w.yaml"); });
  EXPECT_NE(err.find("w.yaml:"), std::string::npos) << err;
  EXPECT_NE(err.find(GetParam().expected), std::string::npos) << err;
}

INSTANTIATE_TEST_SUITE_P(
    Classes, BadWorkload,
    ::testing::Values(
        BadCase{"  - \"A[i] = exp(A[i])\"\n", "cycle"},
        BadCase{"  - {name: x, expr: \"B[i] = exp(A[i])\"}\n  - {name: y, expr: \"B[i] = exp(C[i])\"}\n", "produced by both"},
        BadCase{"  - \"B[i,j] = exp(A[i,j])\"\n  - \"C[i] += B[j,i]\"\n", "shape mismatch for tensor 'B'"},
        BadCase{"  - \"B[i] += A[i,jj]\"\n", "unknown dimension 'jj' (did you mean 'j'?)"},
        BadCase{"  - \"B[i] = A[i,j]\"\n", "write '+=' or 'max='"},
        BadCase{"  - \"B[i+j] += A[i,j]\"\n", "must be a plain dimension name"},
        BadCase{"  - \"B[i] = expp(A[i])\"\n", "unknown function 'expp' (did you mean 'exp'?)"},
        BadCase{"  - \"B[i] = A[i,i]\"\n", "indexes two dimensions"},
        BadCase{"  - \"B[i] += A[i] *\"\n", "expected a tensor"},
        BadCase{"  - {name: x}\n", "missing required key 'expr'"},
        BadCase{"  - {name: x, expr: \"B[i] = A[i]\", flavour: 2}\n", "unknown key 'flavour'"}));

TEST(Workload, DimsMustBePositiveIntegers) {
  std::string err = test::input_error(
      [] { load_workload_from_string("name: t\ndims: {i: 0, j: x}\nops: [\"B[i] = A[i]\"]\n", "t.yaml"); });
  EXPECT_NE(err.find("dims.i"), std::string::npos) << err;
  EXPECT_NE(err.find("dims.j"), std::string::npos) << err;
}

TEST(Workload, AtMost64Dims) {
  std::string dims;
  for (int d = 0; d < 65; ++d) dims += (d ? ", d" : "d") + std::to_string(d) + ": 2";
  std::string err = test::input_error(
      [&] { load_workload_from_string("name: t\ndims: {" + dims + "}\nops: [\"B[d0] = A[d0]\"]\n", "t.yaml"); });
  EXPECT_NE(err.find("t.yaml:2:"), std::string::npos) << err;
  EXPECT_NE(err.find("dimension 'd64' is one too many: a workload has at most 64 (65 given)"), std::string::npos) << err;
}

}  // namespace
}  // namespace dfx::model

namespace dfx::model {
namespace {

TEST(Workload, SizesThatWouldOverflowTheCountsAreRefused) {
  std::string err = test::input_error([] {
    load_workload_from_string("name: t\ndims: {i: 100000000000, j: 4}\nops: [\"B[i] += A[i,j]\"]\n", "t.yaml");
  });
  EXPECT_NE(err.find("t.yaml:2:"), std::string::npos) << err;
  EXPECT_NE(err.find("dimension 'i' is larger than 2^31"), std::string::npos) << err;
  EXPECT_EQ(err.find("unknown key 'ops'"), std::string::npos) << err;
  err = test::input_error([] {
    load_workload_from_string("name: t\ndims: {i: 2000000000, j: 2000000000, k: 2000000000}\nops: [\"C[i,j] += A[i,k] * B[k,j]\"]\n", "t.yaml");
  });
  EXPECT_NE(err.find("more points than dfx counts exactly"), std::string::npos) << err;
}

}  // namespace
}  // namespace dfx::model
