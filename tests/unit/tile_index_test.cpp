// TileIndex (model/tile_index.h) over arbitrary sets of ops — the mapper's group tiles, one per run
// of ops — against restrict_and_project and extent_below (model/walk.h), the plain definitions:
// random cuts of every run of ops of workloads with plain reads (attention, GEMM chains) and with
// windows (convolution chains), box for box, each cut after the first also made by
// restrict_projected (the boxes a cut left are its fixed point). And divide()
// (model/divide.h), which the analysis cuts loops with, against the built-in division.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "model/divide.h"
#include "model/tile_index.h"
#include "model/walk.h"
#include "model/walk_support.h"
#include "tests/unit/test_util.h"

namespace dfx::model {
namespace {

bool same_boxes(const OpBoxes& x, const OpBoxes& y, size_t ops, size_t dims) {
  for (size_t o = 0; o < ops; ++o)
    for (size_t d = 0; d < dims; ++d)
      if (x[o][d] != y[o][d]) return false;
  return true;
}

// Three windows in a row (a producer's box follows a cut through two consumers) and a result read
// transposed (its reader's dim is not its writer's): the paths a cut takes through fed axes that
// the shipped workloads do not.
Workload chain_of_windows() {
  return load_workload_from_string(
      "name: windows\ndims: {i: 4, p1: 12, r1: 3, p2: 10, r2: 3, p3: 10, j: 10}\nops:\n"
      "  - {name: a, expr: \"A[i,p1] += X[i,p1+r1] * Wa[r1]\"}\n"
      "  - {name: b, expr: \"B[i,p2] += A[i,p2+r2] * Wb[r2]\"}\n"
      "  - {name: c, expr: \"C[p3,i] = exp(B[i,p3])\"}\n"
      "  - {name: d, expr: \"D[j,i] = exp(C[j,i])\"}\n",
      "windows.yaml");
}

class TileIndexOverRuns : public ::testing::TestWithParam<const char*> {};

TEST_P(TileIndexOverRuns, RestrictsAsRestrictAndProject) {
  const Workload w = std::string(GetParam()) == "windows" ? chain_of_windows()
                                                         : load_workload(test::config(std::string("workloads/") + GetParam() + ".yaml"));
  const size_t ops = w.ops.size(), dims = w.dims.size();
  OpsBelow runs;
  for (size_t first = 0; first < ops; ++first)
    for (size_t end = first + 1; end <= ops; ++end) {
      OpSet run(ops);
      for (size_t o = first; o < end; ++o) run.insert(o);
      runs.push_back(run);
    }
  const TileIndex index(w, runs);
  std::mt19937_64 rng(7);
  int cuts = 0, fed = 0;
  for (size_t node = 0; node < runs.size(); ++node)
    for (int trial = 0; trial < 20; ++trial) {
      OpBoxes fast = OpBoxes::whole(w), plain = OpBoxes::whole(w), projected = OpBoxes::whole(w);
      bool cut = false;
      for (int step = 0; step < 4; ++step) {
        const int dim = static_cast<int>(std::uniform_int_distribution<size_t>(0, dims - 1)(rng));
        const int64_t extent = extent_below(w, runs[node], dim, plain);
        ASSERT_EQ(index.extent(static_cast<int>(node), dim, fast), extent);
        if (extent <= 0) continue;
        const int64_t chunk = std::uniform_int_distribution<int64_t>(1, extent)(rng);
        const int64_t lo = chunk * std::uniform_int_distribution<int64_t>(0, (extent - 1) / chunk)(rng);
        restrict_and_project(w, runs[node], dim, lo, lo + chunk, plain);
        index.restrict(static_cast<int>(node), dim, lo, lo + chunk, fast);
        if (cut) index.restrict_projected(static_cast<int>(node), dim, lo, lo + chunk, projected);
        else index.restrict(static_cast<int>(node), dim, lo, lo + chunk, projected), cut = true;
        ASSERT_TRUE(same_boxes(fast, plain, ops, dims)) << GetParam() << ": run " << node << ", cut " << step << " over dim " << dim;
        ASSERT_TRUE(same_boxes(projected, plain, ops, dims)) << GetParam() << ": run " << node << ", cut " << step << " over dim " << dim << " (projected)";
        ++cuts;
      }
      fed += !same_boxes(plain, OpBoxes::whole(w), ops, dims);
    }
  EXPECT_GT(cuts, 100);
  EXPECT_GT(fed, 10);
}

INSTANTIATE_TEST_SUITE_P(Workloads, TileIndexOverRuns,
                         ::testing::Values("attention_g1", "gemm_chain_g1", "conv_chain_c1", "vit_attention", "bert_layer_tail",
                                           "windows"));

TEST(Divide, SameQuotientAndRemainderAsTheBuiltInDivision) {
  const int64_t big = std::numeric_limits<int64_t>::max();
  const std::vector<int64_t> values = {0,           1,          2,           3,         7,          63,         64,
                                       65,          1000,       65535,       65536,     (1LL << 31) - 1, 1LL << 31,
                                       (1LL << 32) - 1, 1LL << 32, (1LL << 32) + 1, 1LL << 40, big, -1, -7, -(1LL << 32)};
  int checked = 0;
  for (int64_t n : values)
    for (int64_t d : values) {
      if (d == 0) continue;
      EXPECT_EQ(divide(n, d), n / d) << n << " / " << d;
      EXPECT_EQ(remainder(n, d), n % d) << n << " % " << d;
      ++checked;
    }
  EXPECT_EQ(checked, static_cast<int>(values.size() * (values.size() - 1)));
  // And cut() on it: the chunks, the steps (by a second division only where they are fewer than
  // the factor) and the last step's length, factors above the extent included.
  int fewer = 0;
  for (int64_t extent = 1; extent <= 300; ++extent)
    for (int64_t factor = 1; factor <= 80; ++factor) {
      const Cut c = cut(extent, factor);
      const int64_t chunk = (extent + factor - 1) / factor, trips = (extent + chunk - 1) / chunk;
      ASSERT_EQ(c.chunk, chunk) << extent << " by " << factor;
      ASSERT_EQ(c.trips, trips) << extent << " by " << factor;
      ASSERT_EQ(c.last, extent - (trips - 1) * chunk) << extent << " by " << factor;
      fewer += trips < factor;
    }
  EXPECT_GT(fewer, 1000);
}

}  // namespace
}  // namespace dfx::model
