#include <gtest/gtest.h>

#include "arch/config.h"
#include "arch/units.h"
#include "tests/unit/test_util.h"

namespace dfx {
namespace {

TEST(Config, SyntaxErrorCarriesLineAndColumn) {
  std::string text = test::input_error([] { ConfigNode::load_string("a: 1\nb: [1, 2\n", "bad.yaml"); });
  EXPECT_NE(text.find("bad.yaml:3:"), std::string::npos) << text;
  EXPECT_NE(text.find("YAML syntax error"), std::string::npos) << text;
}

TEST(Config, MissingFileIsAnInputError) {
  std::string text = test::input_error([] { ConfigNode::load_file("/nonexistent/x.yaml"); });
  EXPECT_NE(text.find("cannot open"), std::string::npos);
}

TEST(Config, UnknownKeysAreReportedWithASuggestionAndPath) {
  ConfigNode root = ConfigNode::load_string("outer:\n  capacty: 4\n  name: x\n", "f.yaml");
  Diagnostics diag;
  MapReader r(root["outer"], diag);
  r.str("name", true);
  r.integer("capacity", false, 0);
  r.finish();
  ASSERT_EQ(diag.size(), 1u);
  const Problem& p = diag.problems()[0];
  EXPECT_EQ(p.where.file, "f.yaml");
  EXPECT_EQ(p.where.line, 2);
  EXPECT_EQ(p.where.path, "outer.capacty");
  EXPECT_NE(p.message.find("did you mean 'capacity'"), std::string::npos) << p.message;
}

TEST(Config, WrongTypesAreReportedNotThrown) {
  ConfigNode root = ConfigNode::load_string("n: abc\nm: [1]\nk: -3\n", "f.yaml");
  Diagnostics diag;
  MapReader r(root, diag);
  EXPECT_FALSE(r.integer("n", true, 0).has_value());
  EXPECT_FALSE(r.integer("m", true, 0).has_value());
  EXPECT_FALSE(r.integer("k", true, 0).has_value());
  EXPECT_FALSE(r.integer("missing", true, 0).has_value());
  EXPECT_EQ(diag.size(), 4u);
  EXPECT_THROW(diag.throw_if_any(), InputError);
}

TEST(Units, BytesBandwidthAndFrequency) {
  Diagnostics diag;
  ConfigNode root = ConfigNode::load_string(
      "a: 4 MiB\nb: 4 MB\nc: unlimited\nd: 60 GB/s\ne: 12\nf: 400 MHz\ng: 3 parsecs\n", "u.yaml");
  EXPECT_DOUBLE_EQ(*parse_bytes(root["a"], diag), 4.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(*parse_bytes(root["b"], diag), 4e6);
  EXPECT_LT(*parse_bytes(root["c"], diag), 0);
  EXPECT_DOUBLE_EQ(*parse_bandwidth(root["d"], 1.0, diag), 60.0);
  EXPECT_DOUBLE_EQ(*parse_bandwidth(root["d"], 0.5, diag), 120.0);  // slower clock: more bytes per cycle
  EXPECT_DOUBLE_EQ(*parse_bandwidth(root["e"], 1.0, diag), 12.0);
  EXPECT_DOUBLE_EQ(*parse_frequency_ghz(root["f"], diag), 0.4);
  EXPECT_TRUE(diag.empty());
  EXPECT_FALSE(parse_bytes(root["g"], diag).has_value());
  ASSERT_EQ(diag.size(), 1u);
  EXPECT_NE(diag.problems()[0].message.find("unknown unit 'parsecs'"), std::string::npos);
}

TEST(Errors, ClosestMatch) {
  EXPECT_EQ(closest_match("Cahce", {"DRAM", "Cache", "Reg"}), "Cache");
  EXPECT_EQ(closest_match("zzzzzz", {"DRAM", "Cache"}), "");
}

}  // namespace
}  // namespace dfx
