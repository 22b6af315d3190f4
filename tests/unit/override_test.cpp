// Changes to a document from the command line (`--set`, `--dim`): ConfigNode::load_string with changes.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "arch/arch.h"
#include "arch/config.h"
#include "model/workload.h"
#include "tests/unit/test_util.h"

namespace dfx {
namespace {

const char* kDoc =
    "name: toy\n"
    "compute:\n"
    "  matrix: {rows: 32, cols: 32}\n"
    "levels:\n"
    "  - name: DRAM\n"
    "    capacity: unlimited\n"
    "  - name: L1\n"
    "    capacity: 4 MB\n";

Override change(const std::string& text) { return parse_override(text, "--set"); }

ConfigNode changed_doc(const std::vector<Override>& changes) { return ConfigNode::load_string(kDoc, "toy.yaml", changes); }

TEST(Override, SetsAMappingKeyAndKeepsTheOtherPositions) {
  const ConfigNode root = ConfigNode::load_string(kDoc, "toy.yaml");
  const ConfigNode changed = changed_doc({change("compute.matrix.rows=64")});
  EXPECT_EQ(changed["compute"]["matrix"]["rows"].scalar(), "64");
  EXPECT_EQ(changed["compute"]["matrix"]["cols"].scalar(), "32");
  EXPECT_EQ(root["compute"]["matrix"]["rows"].scalar(), "32");
  EXPECT_EQ(changed.loc().file, "toy.yaml");
  // The nodes not changed keep their positions in the file.
  EXPECT_EQ(changed["levels"].items()[1]["capacity"].loc().line, 8);
}

TEST(Override, FindsASequenceElementByNameOrIndex) {
  const ConfigNode by_name = changed_doc({change("levels.L1.capacity=2 MB")});
  EXPECT_EQ(by_name["levels"].items()[1]["capacity"].scalar(), "2 MB");
  EXPECT_EQ(by_name["levels"].items()[0]["capacity"].scalar(), "unlimited");
  const ConfigNode by_index = changed_doc({change("levels.0.capacity=1 GB")});
  EXPECT_EQ(by_index["levels"].items()[0]["capacity"].scalar(), "1 GB");
}

TEST(Override, AddsALastKeyOnlyWhereAllowed) {
  EXPECT_EQ(changed_doc({change("levels.L1.multicast=true")})["levels"].items()[1]["multicast"].scalar(), "true");
  Override dim = change("compute.matrix.depth=4");
  dim.may_add = false;
  const std::string text = test::input_error([&] { changed_doc({dim}); });
  EXPECT_NE(text.find("--set: compute.matrix.depth: no key 'depth' in 'compute.matrix'"), std::string::npos) << text;
}

TEST(Override, AFlowMappingReplacesAWholeNodeWithoutTheFilesPositions) {
  const ConfigNode changed = changed_doc({change("compute.matrix={rows: 8, cols: 16}")});
  EXPECT_EQ(changed["compute"]["matrix"]["cols"].scalar(), "16");
  // Not a line of toy.yaml: the location says where the value came from, for its children too.
  EXPECT_EQ(changed["compute"]["matrix"]["rows"].loc().line, 0);
  EXPECT_EQ(changed["compute"]["matrix"]["rows"].loc().str(), "toy.yaml (--set): compute.matrix.rows");
  EXPECT_EQ(changed["compute"]["matrix"]["depth"].loc().str(), "toy.yaml (--set): compute.matrix.depth");
  EXPECT_EQ(changed["compute"]["matrix"].loc().line, 0);
}

// A value of the wrong kind from the command line gets one message, located at --set, and no
// follow-on ones about the keys it lacks.
TEST(Override, AWrongKindOfValueIsOneMessageAtTheSet) {
  const std::string configs = DFX_CONFIG_DIR;
  const std::string text =
      test::input_error([&] { arch::load_arch(configs + "/arch/edge.yaml", {change("levels.Reg=[DRAM]")}); });
  EXPECT_NE(text.find("edge.yaml (--set): levels[2]: expected a mapping (key: value), found a sequence"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("missing required key"), std::string::npos) << text;
}

TEST(Override, PathsThatLeadNowhereAreLocatedErrors) {
  auto error = [&](const std::string& text) { return test::input_error([&] { changed_doc({change(text)}); }); };
  EXPECT_NE(error("levels.L2.capacity=1MB").find("--set: levels.L2: 'levels' has no element 'L2' (2 elements: DRAM, L1)"),
            std::string::npos);
  EXPECT_NE(error("compute.matrx.rows=4").find("--set: compute.matrx: no key 'matrx' in 'compute' (did you mean 'matrix'?)"),
            std::string::npos);
  EXPECT_NE(error("name.first=x").find("'name' is a scalar"), std::string::npos);
  EXPECT_NE(error("compute.matrix={rows: 8").find("is not a YAML flow mapping"), std::string::npos);
  EXPECT_NE(test::input_error([] { parse_override("levels", "--set"); }).find("--set: expected KEY.PATH=VALUE"),
            std::string::npos);
  EXPECT_NE(test::input_error([] { parse_override("=4", "--set"); }).find("expected KEY.PATH=VALUE"), std::string::npos);
}

TEST(Override, LoadersTakeChanges) {
  const std::string configs = DFX_CONFIG_DIR;
  const arch::Arch plain = arch::load_arch(configs + "/arch/edge.yaml");
  const arch::Arch half = arch::load_arch(configs + "/arch/edge.yaml", {change("levels.L1.capacity=2MB"), change("cores=2")});
  ASSERT_EQ(plain.levels.size(), half.levels.size());
  EXPECT_DOUBLE_EQ(half.levels[1].capacity_bytes, 2e6);
  EXPECT_GT(plain.levels[1].capacity_bytes, half.levels[1].capacity_bytes);
  EXPECT_EQ(half.cores, 2);
  Override l = parse_override("l=1024", "--dim");
  l.path = "dims." + l.path, l.may_add = false;
  const model::Workload w = model::load_workload(configs + "/workloads/attention_g1.yaml", {l});
  const auto dim = std::find_if(w.dims.begin(), w.dims.end(), [](const auto& d) { return d.name == "l"; });
  ASSERT_NE(dim, w.dims.end());
  EXPECT_EQ(dim->size, 1024);
}

}  // namespace
}  // namespace dfx
