#include "mapper/pe_axes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "mapper/space.h"
#include "tests/unit/test_util.h"

namespace dfx::mapper {
namespace {

// The definition: some assignment puts each factor above 1 on an axis of its own, no larger
// than the axis. Tried over every permutation of the axes.
template <class Factors>
bool fits_by_brute_force(const Factors& factors, std::vector<int64_t> axes) {
  std::vector<int64_t> wanted;
  for (int64_t f : factors)
    if (f > 1) wanted.push_back(f);
  if (wanted.size() > axes.size()) return false;
  std::sort(axes.begin(), axes.end());
  do {
    bool ok = true;
    for (size_t k = 0; k < wanted.size(); ++k) ok &= wanted[k] <= axes[k];
    if (ok) return true;
  } while (std::next_permutation(axes.begin(), axes.end()));
  return false;
}

TEST(PeAxes, FitsAndRoomAgreeWithEveryAssignment) {
  dfx::mapper::Rng rng(11);
  std::uniform_int_distribution<int64_t> size(1, 12), factor(1, 14);
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<int64_t> unit(1 + trial % 2);
    for (auto& s : unit) s = size(rng);
    const int64_t sub_cores = trial % 3 == 0 ? size(rng) : 1;
    const PeAxes axes = PeAxes::geometric(unit, sub_cores);
    std::vector<int64_t> all = unit;
    if (sub_cores > 1) all.push_back(sub_cores);
    ASSERT_EQ(axes.ways(), static_cast<int>(all.size()));
    dfx::mapper::Factors sp(4);
    for (auto& f : sp) f = trial % 4 == 0 ? factor(rng) : (factor(rng) > 9 ? factor(rng) : 1);
    ASSERT_EQ(axes.fits(sp), fits_by_brute_force(sp, all)) << trial;
    for (size_t i = 0; i < sp.size(); ++i) {
      int64_t best = 1;
      dfx::mapper::Factors with = sp;
      for (int64_t v = 1; v <= 20; ++v) {
        with[i] = v;
        if (fits_by_brute_force(with, all)) best = v;
      }
      ASSERT_EQ(axes.room(sp, i), best) << "trial " << trial << " factor " << i;
    }
  }
}

TEST(PeAxes, ByCountOnlyTheProductAndTheNumberOfLoopsMatter) {
  const PeAxes axes = PeAxes::count(2, 4096);
  EXPECT_TRUE(axes.fits({64, 64, 1}));
  EXPECT_TRUE(axes.fits({4096, 1, 1}));
  EXPECT_FALSE(axes.fits({64, 65, 1}));
  EXPECT_FALSE(axes.fits({2, 2, 2}));
  EXPECT_EQ(axes.room({64, 1, 1}, 1), 64);
  EXPECT_EQ(axes.room({2, 2, 1}, 2), 1);
  EXPECT_EQ(axes.shared_by(2).room({1, 1, 1}, 0), 2048);
}

TEST(PeAxes, OpsSideBySideShareTheSubCoresFirst) {
  // cloud: 16 arrays of 64 × 64 per core. Two ops take 8 arrays each; 20 ops, 3 rows each.
  const PeAxes cloud = PeAxes::geometric({64, 64}, 16);
  EXPECT_FALSE(cloud.shared_by(2).fits({64, 64, 16}));
  EXPECT_TRUE(cloud.shared_by(2).fits({64, 64, 8}));
  EXPECT_EQ(cloud.shared_by(20).room({1, 64, 16}, 0), 3);
  // edge: one 32 × 32 array; two ops take 16 of its rows each.
  const PeAxes edge = PeAxes::geometric({32, 32}, 1);
  EXPECT_TRUE(edge.shared_by(2).fits({16, 32}));
  EXPECT_FALSE(edge.shared_by(2).fits({32, 32}));
  EXPECT_EQ(edge.describe(), "axes 32 × 32 (one spatial loop on each, up to its size)");
  EXPECT_EQ(cloud.describe(), "axes 64 × 64 × 16 sub-cores (one spatial loop on each, up to its size)");
}

// On an arch whose units the tree schedules, every op of every point the search draws spreads
// over its unit's axes one loop per axis: edge's 32 × 32 array takes m:16 × l:32, never m:8 ×
// n:64 (512 PEs too, but 64 columns).
TEST(PeAxes, TheSearchKeepsEachSpatialLoopOnOneAxis) {
  for (const auto& [arch_name, matrix, vector] :
       {std::tuple<std::string, std::vector<int64_t>, std::vector<int64_t>>{"edge", {32, 32}, {64}},
        {"cloud", {64, 64, 16}, {64, 16}}}) {
    const arch::Arch a = arch::load_arch(test::config("arch/" + arch_name + ".yaml"));
    const model::Workload w = model::load_workload(test::config("workloads/attention_g1.yaml"));
    Space space(a, w);
    dfx::mapper::Rng rng(4);
    Choice c = space.random(rng);
    int two_or_more = 0;
    for (int i = 0; i < 400; ++i) {
      for (size_t o = 0; o < c.spatial.size(); ++o) {
        const bool is_matrix = w.ops[o].unit == arch::UnitKind::Matrix;
        ASSERT_TRUE(fits_by_brute_force(c.spatial[o], is_matrix ? matrix : vector))
            << arch_name << " op " << w.ops[o].name << "\n" << space.flow_yaml(c, "x");
        two_or_more += std::count_if(c.spatial[o].begin(), c.spatial[o].end(), [](int64_t f) { return f > 1; }) >= 2;
      }
      c = i % 3 == 0 ? space.random(rng) : i % 3 == 1 ? space.mutate(c, rng) : space.mutate(c, rng, false);
    }
    EXPECT_GT(two_or_more, 100) << arch_name;  // the check above is not vacuous
  }
}

TEST(PeAxes, AFixedSpatialChoiceMustFitTheAxes) {
  const arch::Arch a = arch::load_arch(test::config("arch/edge.yaml"));
  const model::Workload w = model::load_workload(test::config("workloads/attention_g1.yaml"));
  Space space(a, w);
  try {
    space.pin({"av:sp=m:8,n:64"});
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("does not fit one core's axes 32 × 32"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(space.pin({"av:sp=m:16,n:32"}));
}

}  // namespace
}  // namespace dfx::mapper
