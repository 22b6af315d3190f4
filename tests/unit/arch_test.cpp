#include <gtest/gtest.h>

#include "arch/arch.h"
#include "tests/unit/test_util.h"

namespace dfx::arch {
namespace {

TEST(Arch, EdgePresetMatchesThePaper) {
  Arch a = load_arch(test::config("arch/edge.yaml"));
  ASSERT_EQ(a.levels.size(), 3u);
  EXPECT_EQ(a.levels[0].name, "DRAM");
  EXPECT_TRUE(a.levels[0].unlimited());
  EXPECT_DOUBLE_EQ(a.levels[0].read_bw, 60.0);  // 60 GB/s at 1 GHz
  EXPECT_EQ(a.levels[1].instances, 4);          // one L1 per core
  EXPECT_DOUBLE_EQ(a.levels[1].capacity_bytes, 4e6);
  EXPECT_DOUBLE_EQ(a.levels[1].read_bw, 1200.0);
  EXPECT_EQ(a.levels[2].instances, 4 * 32 * 32);  // a register file per PE
  ASSERT_NE(a.unit(UnitKind::Matrix), nullptr);
  EXPECT_EQ(a.unit(UnitKind::Matrix)->total_pes(), 4096);
}

// Per-PE registers are one per PE of the array as it is replicated: sub-cores beside edge's one
// array per core do not multiply them, cloud's array per sub-core does.
TEST(Arch, PerPeLevelsCountTheArraysPes) {
  const arch::Arch edge = arch::load_arch(test::config("arch/edge.yaml"), {parse_override("sub_cores=4", "--set")});
  EXPECT_EQ(edge.levels[static_cast<size_t>(edge.level_index("Reg"))].instances, 4 * 32 * 32);
  const arch::Arch cloud = arch::load_arch(test::config("arch/cloud.yaml"));
  EXPECT_EQ(cloud.levels.back().instances, cloud.cores * 16 * 64 * 64);
}

TEST(Arch, EveryPresetLoads) {
  for (const char* name : {"edge", "cloud", "tpu_like", "ascend_like", "tileflow_validation"}) {
    SCOPED_TRACE(name);
    Arch a = load_arch(test::config(std::string("arch/") + name + ".yaml"));
    EXPECT_FALSE(a.source.empty()) << "a preset must say where its numbers come from";
    EXPECT_GE(a.levels.size(), 2u);
  }
}

TEST(Arch, AscendLevelsHoldOnlyTheirRoles) {
  Arch a = load_arch(test::config("arch/ascend_like.yaml"));
  const MemoryLevel& l0a = a.levels[static_cast<size_t>(a.level_index("L0A"))];
  EXPECT_TRUE(l0a.holds[static_cast<int>(Role::Left)]);
  EXPECT_FALSE(l0a.holds[static_cast<int>(Role::Right)]);
  EXPECT_FALSE(l0a.holds[static_cast<int>(Role::Vector)]);
  const int l1 = a.level_index("L1"), ub = a.level_index("UB"), gm = a.level_index("GM");
  EXPECT_TRUE(a.encloses(l1, a.level_index("L0A")));
  EXPECT_EQ(a.lowest_common_ancestor(ub, a.level_index("L0A")), gm);
  EXPECT_TRUE(a.has_direct_path(a.level_index("L0C"), ub));
}

// Transfers between levels with no path of their own are staged along the declared paths (the
// route the lowering's copies take), not through the level tree's common ancestor.
TEST(Arch, TransfersAreStagedAlongTheDeclaredPaths) {
  Arch a = load_arch(test::config("arch/ascend_like.yaml"));
  const int gm = a.level_index("GM"), l1 = a.level_index("L1"), l0a = a.level_index("L0A"),
            l0c = a.level_index("L0C"), ub = a.level_index("UB");
  EXPECT_EQ(a.route(l0c, l1), (std::vector<int>{l0c, ub, l1}));  // fixpipe, then MTE3
  EXPECT_EQ(a.staging_levels(l0c, l1), std::vector<int>{ub});    // the tree's ancestor is GM
  EXPECT_EQ(a.staging_levels(l0c, gm), std::vector<int>{ub});    // results leave L0C through UB
  EXPECT_TRUE(a.staging_levels(l1, l0a).empty());                 // a path of its own
  EXPECT_EQ(a.route(l0a, l0a), std::vector<int>{l0a});
  Arch tpu = load_arch(test::config("arch/tpu_like.yaml"));
  EXPECT_EQ(tpu.staging_levels(tpu.level_index("DRAM"), tpu.level_index("Reg")), std::vector<int>{tpu.level_index("SPM")});
  // No paths listed (edge: each level talks to its parent): DRAM feeds Reg directly, skipping L1.
  Arch edge = load_arch(test::config("arch/edge.yaml"));
  EXPECT_FALSE(edge.paths_declared);
  EXPECT_EQ(edge.route(0, 2), (std::vector<int>{0, 1, 2}));
  EXPECT_TRUE(edge.staging_levels(0, 2).empty());
}

TEST(Arch, ProblemsAreAllReportedWithPaths) {
  const std::string text = R"(name: bad
compute: {matrix: {rows: 4, colz: 4}}
levels:
  - {name: DRAM, capacity: unlimited, read_bw: 4, write_bw: 4}
  - {name: L1, capacity: 4 furlongs, read_bw: 8, write_bw: -1}
  - {name: L0, parent: L9, capacity: 1 KiB, read_bw: 8, write_bw: 8}
paths:
  - {from: DRAM, to: LI}
)";
  std::string err = test::input_error([&] { load_arch_from_string(text, "bad.yaml"); });
  EXPECT_NE(err.find("bad.yaml:2:"), std::string::npos) << err;
  EXPECT_NE(err.find("unknown key 'colz' (did you mean 'cols'?)"), std::string::npos) << err;
  EXPECT_NE(err.find("levels[1].capacity"), std::string::npos) << err;
  EXPECT_NE(err.find("levels[1].write_bw"), std::string::npos) << err;
  EXPECT_NE(err.find("parent 'L9'"), std::string::npos) << err;
  EXPECT_NE(err.find("unknown level 'LI' (did you mean 'L1'?)"), std::string::npos) << err;
}

}  // namespace
}  // namespace dfx::arch
