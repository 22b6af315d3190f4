#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "mapper/search.h"
#include "mapper/tree_scorer.h"
#include "model/footprint_floor.h"
#include "tools/html_report.h"
#include "mapper/space.h"
#include "model/analyze.h"
#include "model/report_io.h"
#include "tests/unit/test_util.h"

namespace dfx::mapper {
namespace {

class Explore : public ::testing::Test {
 protected:
  arch::Arch a = arch::load_arch(test::config("arch/edge.yaml"));
  model::Workload w = model::load_workload(test::config("workloads/gemm_chain_g4.yaml"));
  SearchOptions options(uint64_t seed) {
    SearchOptions o;
    o.seed = seed;
    o.evaluations = 400;
    o.top = 3;
    return o;
  }
};

TEST_F(Explore, SameSeedSameResult) {
  Outcome x = explore(a, w, options(7)), y = explore(a, w, options(7));
  ASSERT_EQ(x.best.size(), y.best.size());
  for (size_t i = 0; i < x.best.size(); ++i) {
    EXPECT_EQ(x.best[i].flow_yaml, y.best[i].flow_yaml);
    EXPECT_EQ(x.best[i].cost, y.best[i].cost);
  }
  EXPECT_EQ(x.evaluations, 400);
  EXPECT_EQ(x.convergence, y.convergence);
}

TEST_F(Explore, ThreadsDoNotChangeTheResult) {
  SearchOptions one = options(9), two = options(9);
  two.jobs = 2;
  Outcome x = explore(a, w, one), y = explore(a, w, two);
  ASSERT_EQ(x.best.size(), y.best.size());
  for (size_t i = 0; i < x.best.size(); ++i) EXPECT_EQ(x.best[i].flow_yaml, y.best[i].flow_yaml);
  EXPECT_EQ(x.convergence, y.convergence);
  EXPECT_EQ(x.valid, y.valid);
}

TEST_F(Explore, BestFlowRoundTripsThroughEval) {
  Outcome out = explore(a, w, options(3));
  for (const Candidate& c : out.best) {
    model::Dataflow f = model::load_dataflow_from_string(c.flow_yaml, "best.yaml", a, w);
    model::Report r = model::analyze(a, w, f);
    ASSERT_TRUE(r.valid) << r.reason;
    EXPECT_EQ(r.cycles, c.report.cycles);
    EXPECT_EQ(r.energy_pj, c.report.energy_pj);
    EXPECT_EQ(r.dram_bytes, c.report.dram_bytes);
  }
}

TEST_F(Explore, BestIsNoWorseThanAnyBaselineAndSortedByCost) {
  Outcome out = explore(a, w, options(11));
  ASSERT_FALSE(out.baselines.empty());
  for (const Candidate& b : out.baselines) EXPECT_LE(out.best.front().cost, b.cost) << b.name;
  for (size_t i = 1; i < out.best.size(); ++i) EXPECT_LE(out.best[i - 1].cost, out.best[i].cost);
  // Fused baselines keep the chain's intermediate C out of DRAM; Layerwise writes and reads it.
  for (const Candidate& b : out.baselines) {
    int64_t c_at_dram = 0;
    for (const auto& t : b.report.levels[0].tensors)
      if (t.tensor == "C") c_at_dram += t.traffic.read + t.traffic.update;
    if (b.name == "Layerwise") {
      EXPECT_GT(c_at_dram, 0);
    } else {
      EXPECT_EQ(c_at_dram, 0) << b.name;
    }
  }
}

// Without baselines the open search takes the whole budget: no baseline is reported, and the
// search spends its evaluations on points of its own (with them, a third goes to their tilings).
TEST_F(Explore, WithoutBaselinesTheSearchGetsTheWholeBudget) {
  SearchOptions with = options(5), without = options(5);
  without.baselines = false;
  Outcome x = explore(a, w, with), y = explore(a, w, without);
  EXPECT_FALSE(x.baselines.empty());
  EXPECT_TRUE(y.baselines.empty());
  EXPECT_EQ(y.evaluations, without.evaluations);
  ASSERT_FALSE(y.best.empty());
  // The first improvements come from the open search's own draws, not a baseline's share: the
  // convergence curves part at once.
  ASSERT_FALSE(x.convergence.empty());
  ASSERT_FALSE(y.convergence.empty());
  EXPECT_NE(x.convergence, y.convergence);
  model::Report r = model::analyze(a, w, model::load_dataflow_from_string(y.best.front().flow_yaml, "best.yaml", a, w));
  EXPECT_EQ(r.cycles, y.best.front().report.cycles);
}

TEST_F(Explore, HtmlReportIsSelfContainedAndComplete) {
  Outcome out = explore(a, w, options(2));
  std::string html = cli::html_report(a, w, out);
  for (const char* part : {"Baselines and best", "The best tree", "Traffic per level", "Roofline", "Search convergence",
                           "<svg", "Layerwise", "gemm1"})
    EXPECT_NE(html.find(part), std::string::npos) << part;
  EXPECT_EQ(html.find("http"), std::string::npos) << "the report must open offline";
  EXPECT_EQ(html.find("<script"), std::string::npos);
  // Each op's box carries its spread and its compute alone, the longest marked.
  const model::OpReport& gemm1 = out.best.front().report.ops.front();
  EXPECT_NE(html.find(std::to_string(gemm1.instances) + " PEs · " + model::human(gemm1.compute_cycles) + " cycles"), std::string::npos);
  EXPECT_NE(html.find("work longest"), std::string::npos);
}

// No dataflow runs above the roofline's roof: the chart draws it from the bandwidths its points
// use (DRAM reads and writes together; with the read bandwidth alone, edge's Layerwise attention
// sat 50% above it).
TEST(ExploreReport, EveryPointIsUnderTheRoof) {
  for (const char* pair : {"edge/attention_g1", "cloud/conv_chain_c1", "tpu_like/gemm_chain_g1"}) {
    const std::string name(pair);
    arch::Arch a = arch::load_arch(test::config("arch/" + name.substr(0, name.find('/')) + ".yaml"));
    model::Workload w = model::load_workload(test::config("workloads/" + name.substr(name.find('/') + 1) + ".yaml"));
    SearchOptions o;
    o.evaluations = 600;
    o.top = 3;
    const Outcome out = explore(a, w, o);
    for (const auto* list : {&out.best, &out.baselines})
      for (const Candidate& c : *list) {
        const double ops = static_cast<double>(c.report.macs + c.report.vector_ops);
        EXPECT_LE(ops / c.report.cycles, cli::roof(a, w, ops / static_cast<double>(c.report.dram_bytes)) * (1 + 1e-9))
            << pair << " " << c.name;
      }
  }
  // The roof's peak counts the units the workload runs on: edge's array alone for a GEMM chain,
  // its 256 lanes too for attention.
  const arch::Arch edge = arch::load_arch(test::config("arch/edge.yaml"));
  EXPECT_EQ(cli::roof(edge, model::load_workload(test::config("workloads/gemm_chain_g1.yaml")), 1e9), 4096);
  EXPECT_EQ(cli::roof(edge, model::load_workload(test::config("workloads/attention_g1.yaml")), 1e9), 4096 + 256);
}

// --top lists distinct trees (two choices can make one tree), each named as it is listed, and
// equal costs in order of the other measure (here energy): on a 4×4×4 GEMM most of the space
// ties on cycles.
TEST(ExploreTop, DistinctTreesTiesInOrderOfEnergy) {
  arch::Arch a = arch::load_arch(test::config("arch/edge.yaml"));
  model::Workload w = test::one_gemm("tiny", "m: 4, k: 4, n: 4");
  SearchOptions o;
  o.evaluations = 200;
  o.top = 100;
  const Outcome out = explore(a, w, o);
  ASSERT_GT(out.best.size(), 5u);
  std::vector<std::string> trees;
  for (size_t i = 0; i < out.best.size(); ++i) {
    const std::string& y = out.best[i].flow_yaml;
    EXPECT_EQ(y.substr(0, y.find('\n')), "name: best" + std::to_string(i + 1));
    trees.push_back(y.substr(y.find('\n')));
    if (i > 0 && out.best[i - 1].cost == out.best[i].cost) {
      EXPECT_LE(out.best[i - 1].report.energy_pj, out.best[i].report.energy_pj) << i;
    }
  }
  std::sort(trees.begin(), trees.end());
  EXPECT_EQ(std::adjacent_find(trees.begin(), trees.end()), trees.end()) << "a tree listed twice";
}

// --top K lists the best K of everything analysed, not of what the search climbs from, and the
// floor that rules candidates out is the K-th's cost, not the best's (at 4,000 evaluations conv
// C1 / cloud listed 6 of 30). The best is not dominated by a point of the Pareto front (with
// --objective energy, best1 had 2.1x the cycles of a front point of the same energy).
TEST(ExploreTop, TheKBestOfEverythingAnalysed) {
  arch::Arch cloud = arch::load_arch(test::config("arch/cloud.yaml"));
  model::Workload conv = model::load_workload(test::config("workloads/conv_chain_c1.yaml"));
  SearchOptions o;
  o.evaluations = 4000;
  o.top = 30;
  EXPECT_EQ(explore(cloud, conv, o).best.size(), 30u);

  arch::Arch edge = arch::load_arch(test::config("arch/edge.yaml"));
  model::Workload g1 = model::load_workload(test::config("workloads/attention_g1.yaml"));
  SearchOptions e;
  e.evaluations = 3000;
  e.objective = Objective::Energy;
  e.pareto = true;
  const Outcome out = explore(edge, g1, e);
  ASSERT_FALSE(out.best.empty());
  for (const Candidate& p : out.pareto)
    EXPECT_FALSE(p.report.energy_pj <= out.best.front().report.energy_pj && p.report.cycles < out.best.front().report.cycles)
        << p.name << " dominates best1";
}

// Names YAML would read as something else (a map, a comment, a boolean) are quoted in flow.yaml,
// so that the best dataflow of such a workload loads back.
TEST(ExploreTop, FlowYamlOfAnOddlyNamedWorkloadLoadsBack) {
  arch::Arch a = arch::load_arch(test::config("arch/edge.yaml"));
  for (const char* name : {"\"my wl: v2 # test\"", "\"yes\"", "'a \"quoted\" one'"}) {
    model::Workload w = test::one_gemm(name, "m: 4, k: 4, n: 4");
    SearchOptions o;
    o.evaluations = 100;
    const Outcome out = explore(a, w, o);
    ASSERT_FALSE(out.best.empty());
    const model::Dataflow f = model::load_dataflow_from_string(out.best.front().flow_yaml, "best.yaml", a, w);
    EXPECT_EQ(model::analyze(a, w, f).cycles, out.best.front().report.cycles) << name;
  }
}

TEST_F(Explore, ParetoFrontHasNoDominatedPoint) {
  SearchOptions o = options(4);
  o.pareto = true;
  Outcome out = explore(a, w, o);
  ASSERT_FALSE(out.pareto.empty());
  for (size_t i = 0; i < out.pareto.size(); ++i) {
    if (i > 0) {
      EXPECT_LT(out.pareto[i - 1].report.cycles, out.pareto[i].report.cycles);
      EXPECT_GT(out.pareto[i - 1].report.energy_pj, out.pareto[i].report.energy_pj);
    }
    for (const Candidate& c : out.best)  // nothing found is better on both counts
      EXPECT_FALSE(c.report.cycles < out.pareto[i].report.cycles && c.report.energy_pj < out.pareto[i].report.energy_pj);
  }
  EXPECT_LE(out.pareto.front().report.cycles, out.best.front().report.cycles);
}

TEST_F(Explore, ConstraintsAreRespected) {
  SearchOptions o = options(6);
  o.prims = {model::Prim::Seq};
  o.max_footprint = {{"L1", 256.0 * 1024}};
  Outcome out = explore(a, w, o);
  for (const auto* list : {&out.best, &out.baselines})
    for (const Candidate& c : *list) {
      EXPECT_LE(c.report.levels[1].peak_bytes, 256 * 1024) << c.name;
      EXPECT_EQ(c.flow_yaml.find("Pipe"), std::string::npos) << c.name;
      EXPECT_EQ(c.flow_yaml.find("Shar"), std::string::npos) << c.name;
    }
}

// Nothing fits: the error names, per level whose limit every candidate checked exceeded, the
// least any of them was known to need there: a bound below every tree's true peak (its floor
// where the floor rejected it, else its peak). Checked on random trees against a scorer without
// limits, at a limit every floor exceeds, one every analysed tree exceeds, and one that binds
// nothing (then the level is not named).
TEST_F(Explore, TheLeastNeededUnderALimitIsTheLeastOfTheTreesChecked) {
  Space space(a, w);
  Rng rng(11);
  std::vector<model::Dataflow> trees;
  for (int i = 0; i < 40; ++i) trees.push_back(space.build(space.random(rng), "t"));
  const TreeScorer free(a, w, Objective::Cycles, {});
  int64_t least_peak = std::numeric_limits<int64_t>::max();
  for (const auto& f : trees)
    if (const Scored s = free.score(f); s.valid) least_peak = std::min(least_peak, s.report->levels[1].peak_bytes);
  ASSERT_LT(least_peak, std::numeric_limits<int64_t>::max());
  for (double limit : {1.0, static_cast<double>(least_peak - 1), 1e15}) {
    const TreeScorer limited(a, w, Objective::Cycles, {{"L1", limit}});
    int64_t least = std::numeric_limits<int64_t>::max();
    for (const auto& f : trees) {
      limited.score(f);
      const Scored s = free.score(f);
      const int64_t floor = model::footprint_floor(a, w, f)[1];
      if (s.valid) {
        EXPECT_LE(floor, s.report->levels[1].peak_bytes);
      }
      if (limit < static_cast<double>(floor)) least = std::min(least, floor);
      else if (s.valid) least = std::min(least, s.report->levels[1].peak_bytes);
    }
    EXPECT_LE(least, least_peak);
    EXPECT_EQ(limited.least_needed(), static_cast<double>(least) > limit ? "L1: " + std::to_string(least) + " B" : "") << limit;
  }
  SearchOptions o = options(3);
  o.max_footprint = {{"L1", 1}};
  try {
    explore(a, w, o);
    ADD_FAILURE() << "a search under L1=1B found a tree";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no candidate checked could hold less than L1: "), std::string::npos) << e.what();
  }
}

// The chain solver's closed-form tree is a row of the comparison; where it does not fit, the
// outcome says why instead of leaving the row out without a word.
TEST_F(Explore, AClosedFormTreeThatDoesNotFitIsSaidSo) {
  auto closed_form_rows = [](const Outcome& out) {
    return std::count_if(out.baselines.begin(), out.baselines.end(), [](const Candidate& c) { return c.name == "Chimera (closed form)"; });
  };
  const Outcome fits = explore(a, w, options(2));
  EXPECT_EQ(closed_form_rows(fits), 1);
  EXPECT_EQ(fits.closed_form_invalid, "");
  // Attention's closed form takes whole rows (T_L = L): with a 64 KiB L1 fewer of them, sized
  // with T_K = T_N = α and shrunk until they fit (until a review's fix T_M was sized with 1 and
  // the tree overflowed the L1 it was solved for).
  const arch::Arch tight = arch::load_arch(test::config("arch/edge.yaml"), {parse_override("levels.L1.capacity=64KiB", "--set")});
  const Outcome fewer = explore(tight, model::load_workload(test::config("workloads/attention_g1.yaml")), options(2));
  ASSERT_EQ(closed_form_rows(fewer), 1);
  const auto row = std::find_if(fewer.baselines.begin(), fewer.baselines.end(), [](const Candidate& c) { return c.name == "Chimera (closed form)"; });
  EXPECT_LE(row->report.levels[1].peak_bytes, 64 * 1024);
  // A --max-footprint below its tree's need: the row is left out, and the reason said.
  SearchOptions limited = options(2);
  limited.max_footprint = {{"L1", static_cast<double>(row->report.levels[1].peak_bytes - 1)}};
  const Outcome over = explore(tight, model::load_workload(test::config("workloads/attention_g1.yaml")), limited);
  EXPECT_EQ(closed_form_rows(over), 0);
  EXPECT_NE(over.closed_form_invalid.find("L1"), std::string::npos) << over.closed_form_invalid;
  // With 8 KB not even one row of scores fits: the solver has no tiles, and says so.
  const arch::Arch tiny = arch::load_arch(test::config("arch/edge.yaml"), {parse_override("levels.L1.capacity=8KB", "--set")});
  SearchOptions longer = options(2);
  longer.evaluations = 1500;  // few trees fit at all
  const Outcome none = explore(tiny, model::load_workload(test::config("workloads/attention_g1.yaml")), longer);
  EXPECT_EQ(closed_form_rows(none), 0);
  EXPECT_EQ(none.closed_form_invalid.rfind("no tiles fit: the smallest (T_M = 1, T_L = 512) need ", 0), 0u) << none.closed_form_invalid;
}

// A baseline whose structure cannot fit says why, not only that none was found: FLAT-HGran
// tiles batch and heads only, so a 64 KiB L1 never holds one batch's 512 x 512 scores.
TEST_F(Explore, ABaselineThatCannotFitSaysWhy) {
  const arch::Arch tight = arch::load_arch(test::config("arch/edge.yaml"), {parse_override("levels.L1.capacity=64KiB", "--set")});
  const SearchOptions o = options(2);
  const Outcome out = explore(tight, model::load_workload(test::config("workloads/attention_g1.yaml")), o);
  const auto flat = std::find_if(out.baselines_not_found.begin(), out.baselines_not_found.end(),
                                 [](const BaselineNotFound& b) { return b.name == "FLAT-HGran"; });
  ASSERT_NE(flat, out.baselines_not_found.end());
  EXPECT_GT(flat->invalid, 0);
  EXPECT_EQ(flat->nearest.rfind("level 'L1' needs ", 0), 0u) << flat->nearest;
  EXPECT_NE(cli::not_found_text(*flat).find("tilings of its structure scored is valid; the nearest to fitting: level 'L1'"), std::string::npos);
  const nlohmann::json j = nlohmann::json::parse(to_json(out, "edge.yaml", "attention_g1.yaml", o));
  EXPECT_EQ(j["baselines_not_found_why"]["FLAT-HGran"]["invalid"], flat->invalid);
  EXPECT_EQ(j["baselines_not_found_why"]["FLAT-HGran"]["nearest"], flat->nearest);
  // Under --max-footprint the limit is what the nearest broke.
  SearchOptions limited = options(2);
  limited.max_footprint = {{"L1", 64.0 * 1024}};
  const Outcome under = explore(a, model::load_workload(test::config("workloads/attention_g1.yaml")), limited);
  const auto fused = std::find_if(under.baselines_not_found.begin(), under.baselines_not_found.end(),
                                  [](const BaselineNotFound& b) { return b.name == "Fused (Pipe)"; });
  ASSERT_NE(fused, under.baselines_not_found.end());
  EXPECT_NE(fused->nearest.find("level 'L1'"), std::string::npos) << fused->nearest;
  // Said against the limit, the tighter bound, even for a tree whose floor also passes L1's
  // capacity (it was said against the capacity: QA pass 8).
  for (const BaselineNotFound& b : under.baselines_not_found) {
    if (b.nearest.find("needs at least") != std::string::npos) {
      EXPECT_NE(b.nearest.find("more than --max-footprint L1=64.0 KiB"), std::string::npos) << b.name << ": " << b.nearest;
    }
  }
  // One that fits has no such entry.
  const Outcome fits = explore(a, w, options(2));
  EXPECT_TRUE(fits.baselines_not_found.empty());
}

// The ops under each child of the root: the fused groups of a template tree, in order.
std::vector<std::vector<int>> root_groups(const model::Dataflow& f) {
  std::vector<std::vector<int>> out;
  for (int child : f.root().children) {
    std::vector<int> ops;
    std::vector<int> todo{child};
    while (!todo.empty()) {
      const model::TreeNode& n = f.nodes[static_cast<size_t>(todo.back())];
      todo.pop_back();
      if (n.is_leaf) ops.push_back(n.op);
      todo.insert(todo.end(), n.children.begin(), n.children.end());
    }
    std::sort(ops.begin(), ops.end());
    out.push_back(ops);
  }
  return out;
}

TEST(ExploreGroups, FixedFusionIsKeptByBestAndBaselines) {
  arch::Arch a = arch::load_arch(test::config("arch/edge.yaml"));
  model::Workload w = model::load_workload(test::config("workloads/attention_g1.yaml"));
  SearchOptions o;
  o.evaluations = 600;
  o.top = 3;
  o.groups = {{"qk", "max", "sub", "exp", "sum", "div"}, {"av"}};
  const Outcome out = explore(a, w, o);
  const std::vector<std::vector<int>> want = {{0, 1, 2, 3, 4, 5}, {6}};
  ASSERT_FALSE(out.best.empty());
  for (const auto* list : {&out.best, &out.baselines})
    for (const Candidate& c : *list)
      EXPECT_EQ(root_groups(model::load_dataflow_from_string(c.flow_yaml, "x", a, w)), want) << c.name;
  // FLAT-HGran and FLAT-RGran fuse exactly these; Layerwise and Chimera do not.
  std::vector<std::string> names;
  for (const Candidate& c : out.baselines) names.push_back(c.name);
  EXPECT_NE(std::find(names.begin(), names.end(), "FLAT-RGran"), names.end());
  EXPECT_EQ(std::find(names.begin(), names.end(), "Layerwise"), names.end());
}

TEST(ExploreGroups, EveryMoveOfTheSpaceKeepsFixedGroups) {
  arch::Arch a = arch::load_arch(test::config("arch/edge.yaml"));
  model::Workload w = model::load_workload(test::config("workloads/attention_g1.yaml"));
  Space space(a, w);
  const std::vector<int> fixed = {0, 0, 1, 1, 1, 1, 2};
  space.fix_groups(fixed);
  dfx::mapper::Rng rng(3);
  Choice c = space.random(rng);
  for (int i = 0; i < 300; ++i) {
    ASSERT_EQ(c.group_of, fixed);
    const Choice other = space.random(rng);
    ASSERT_EQ(other.group_of, fixed);
    c = i % 3 == 0 ? space.restructure(c, rng) : i % 3 == 1 ? space.mutate(c, rng, true) : space.crossover(c, other, rng);
  }
  for (const Baseline& b : space.baselines()) EXPECT_EQ(b.structure.group_of, fixed) << b.name;
  int64_t points = 0;
  space.enumerate([&](const Choice& x) {
    EXPECT_EQ(x.group_of, fixed);
    return ++points < 2000;
  });
  EXPECT_GT(points, 0);
}

// A lone op's group has no primitive (Seq, Shar and Pipe of one child are the same tree): every
// point the space proposes says Seq there, so such trees are one point and one structure.
TEST(Space, LoneOpsAreAlwaysSeq) {
  arch::Arch a = arch::load_arch(test::config("arch/edge.yaml"));
  model::Workload w = model::load_workload(test::config("workloads/attention_g1.yaml"));
  Space space(a, w);
  auto lone_seq = [&](const Choice& c) {
    for (size_t g = 0; g < c.prim.size(); ++g)
      if (std::count(c.group_of.begin(), c.group_of.end(), static_cast<int>(g)) == 1 && c.prim[g] != model::Prim::Seq)
        return false;
    return true;
  };
  dfx::mapper::Rng rng(11);
  Choice c = space.random(rng);
  int fused_prims = 0;  // fused groups still draw every primitive
  for (int i = 0; i < 400; ++i) {
    ASSERT_TRUE(lone_seq(c)) << space.flow_yaml(c, "x");
    for (size_t g = 0; g < c.prim.size(); ++g) fused_prims += c.prim[g] != model::Prim::Seq;
    const Choice other = space.random(rng);
    c = i % 4 == 0 ? space.restructure(c, rng) : i % 4 == 1 ? space.mutate(c, rng, true)
        : i % 4 == 2 ? space.crossover(c, other, rng) : other;
  }
  EXPECT_GT(fused_prims, 0);
  for (const Baseline& b : space.baselines()) EXPECT_TRUE(lone_seq(b.structure)) << b.name;
}

// A new primitive keeps the group's tiling half the time, its ops' spatial loops shrunk to the
// PEs the primitive gives each (a Pipe splits the array): every such point fits the array.
TEST(Space, APrimitiveChangeCanKeepTheTiling) {
  arch::Arch a = arch::load_arch(test::config("arch/cloud.yaml"));
  model::Workload w = model::load_workload(test::config("workloads/attention_g3.yaml"));
  Space space(a, w);
  space.fix_groups(std::vector<int>(w.ops.size(), 0));  // restructure() then changes the primitive
  dfx::mapper::Rng rng(6);
  int kept = 0, shrunk = 0;
  for (int i = 0; i < 60; ++i) {
    const Choice c = space.random(rng);
    const Choice x = space.restructure(c, rng);
    if (x.outer != c.outer || x.core_dim != c.core_dim || x.order != c.order) continue;
    ++kept;
    shrunk += x.spatial != c.spatial;
    const model::Report r = model::analyze(a, w, space.build(x, "x"));
    EXPECT_EQ(r.reason.find("PEs but the arch has"), std::string::npos) << r.reason << "\n" << space.flow_yaml(x, "x");
  }
  EXPECT_GT(kept, 15);
  EXPECT_GT(shrunk, 0) << "no Seq point whose spatial loops a Pipe had to shrink";
}

// An op's spatial loops take the rows and cols of a PE array (a vector unit's lanes) and, where
// a core has sub-cores, one more dim over them: draws and local steps reach that many dims on
// cloud (16 sub-cores) and never more; on edge (one array per core) at most the array's two.
TEST(Space, SubCoresGiveOneMoreSpatialDim) {
  const model::Workload w = model::load_workload(test::config("workloads/conv_chain_c1.yaml"));
  for (const auto& [arch_name, most] : {std::pair<std::string, int>{"cloud", 3}, {"edge", 2}}) {
    const arch::Arch a = arch::load_arch(test::config("arch/" + arch_name + ".yaml"));
    Space space(a, w);
    dfx::mapper::Rng rng(3);
    int widest = 0;
    Choice c = space.random(rng);
    for (int i = 0; i < 300; ++i) {
      for (const auto& sp : c.spatial) {
        const int dims = static_cast<int>(std::count_if(sp.begin(), sp.end(), [](int64_t f) { return f > 1; }));
        ASSERT_LE(dims, most) << arch_name << "\n" << space.flow_yaml(c, "x");
        widest = std::max(widest, dims);
      }
      c = i % 2 == 0 ? space.mutate(c, rng, false) : space.random(rng);
    }
    EXPECT_EQ(widest, most) << arch_name;
  }
}

// A fused convolution chain loops over the second convolution's rows and columns outside its
// ops: each step restricts conv1 to the rows and columns of O1 that conv2 reads. Fused-Layer
// tiles both, ISOS the rows; with a 1×1 conv2 (C1) no row of conv1 is computed twice.
TEST(Space, FusedConvolutionsTileTheSecondOnesRows) {
  const arch::Arch a = arch::load_arch(test::config("arch/cloud.yaml"));
  const model::Workload w = model::load_workload(test::config("workloads/conv_chain_c1.yaml"));
  Space space(a, w);
  dfx::mapper::Rng rng(5);
  for (const Baseline& b : space.baselines()) {
    if (b.name != "Fused-Layer" && b.name != "ISOS") continue;
    ASSERT_EQ(b.structure.may_tile.size(), 1u);
    EXPECT_EQ(std::count(b.structure.may_tile[0].begin(), b.structure.may_tile[0].end(), 1), b.name == "ISOS" ? 1 : 2) << b.name;
    int tiled = 0;
    for (int i = 0; i < 40; ++i) {
      const Choice c = space.retile(b.structure, rng);
      int64_t steps = 1;
      for (int64_t f : c.outer[0]) steps *= f;
      if (steps == 1) continue;
      const model::Report r = model::analyze(a, w, space.build(c, "x"));
      ASSERT_TRUE(r.valid) << r.reason << "\n" << space.flow_yaml(c, "x");
      EXPECT_EQ(r.macs, w.total_macs()) << space.flow_yaml(c, "x");
      ++tiled;
    }
    EXPECT_GT(tiled, 10) << b.name;
  }
}

// retile_group draws one group's tiling anew and leaves the structure and every other group alone.
TEST(Space, RetileGroupChangesOneGroup) {
  arch::Arch a = arch::load_arch(test::config("arch/edge.yaml"));
  model::Workload w = model::load_workload(test::config("workloads/attention_g1.yaml"));
  Space space(a, w);
  space.fix_groups({0, 1, 1, 1, 1, 1, 2});
  dfx::mapper::Rng rng(4);
  std::vector<int> changed(3, 0);
  for (int i = 0; i < 200; ++i) {
    const Choice c = space.random(rng);
    const Choice t = space.retile_group(c, rng);
    ASSERT_EQ(t.group_of, c.group_of);
    ASSERT_EQ(t.prim, c.prim);
    int differs = 0;
    for (int g = 0; g < 3; ++g) {
      bool same = t.outer[static_cast<size_t>(g)] == c.outer[static_cast<size_t>(g)] &&
                  t.core_dim[static_cast<size_t>(g)] == c.core_dim[static_cast<size_t>(g)];
      for (size_t o = 0; o < w.ops.size(); ++o)
        if (c.group_of[o] == g) same = same && t.spatial[o] == c.spatial[o] && t.order[o] == c.order[o];
      if (!same) ++differs, ++changed[static_cast<size_t>(g)];
    }
    EXPECT_LE(differs, 1);
  }
  for (int g = 0; g < 3; ++g) EXPECT_GT(changed[static_cast<size_t>(g)], 20) << "group " << g;
}

TEST(ExploreGroups, BadGroupsAreRefusedWithTheReason) {
  arch::Arch a = arch::load_arch(test::config("arch/edge.yaml"));
  model::Workload w = model::load_workload(test::config("workloads/gemm_chain_g1.yaml"));
  auto refusal = [&](std::vector<std::vector<std::string>> groups) {
    SearchOptions o;
    o.evaluations = 50;
    o.groups = std::move(groups);
    try {
      explore(a, w, o);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(refusal({{"gemm1", "gemm3"}}).find("unknown op 'gemm3'"), std::string::npos);
  EXPECT_NE(refusal({{"gemm1"}}).find("op 'gemm2' is in no group"), std::string::npos);
  EXPECT_NE(refusal({{"gemm1", "gemm1", "gemm2"}}).find("listed twice"), std::string::npos);
  EXPECT_NE(refusal({{"gemm2"}, {"gemm1"}}).find("runs of ops"), std::string::npos);
  EXPECT_EQ(refusal({{"gemm2", "gemm1"}}), "accepted");  // order inside a group does not matter
}

// Parts fixed by hand (--fix) hold in every point the space proposes, and in what explore reports.
TEST(ExplorePins, EveryMoveKeepsTheFixedParts) {
  arch::Arch a = arch::load_arch(test::config("arch/ascend_like.yaml"));
  model::Workload w = model::load_workload(test::config("workloads/attention_g1.yaml"));
  Space space(a, w);
  space.fix_groups({0, 0, 0, 0, 0, 0, 1});
  space.pin({"qk+max+sub+exp+sum+div:prim=Shar", "qk+max+sub+exp+sum+div:cores=b:8,m:4", "av:loops=m:4", "qk:sp=m:16,l:16",
             "av:order=n,m,b"});
  ASSERT_TRUE(space.pinned());
  dfx::mapper::Rng rng(5);
  Choice c = space.random(rng);
  for (int i = 0; i < 300; ++i) {
    ASSERT_TRUE(space.honours_pins(c)) << space.flow_yaml(c, "x");
    EXPECT_EQ(c.prim[0], model::Prim::Shar);
    EXPECT_EQ(c.spatial[0], (dfx::mapper::Factors{1, 16, 16, 1}));  // qk's dims b, m, l, k
    EXPECT_EQ(c.order[6], 5);  // av's output dims b, m, n reversed: the last of their 6 orders
    const Choice other = space.random(rng);
    c = i % 3 == 0 ? space.restructure(c, rng) : i % 3 == 1 ? space.mutate(c, rng, true) : space.crossover(c, other, rng);
  }
  for (const Baseline& b : space.baselines()) {
    SCOPED_TRACE(b.name);
    EXPECT_TRUE(space.honours_pins(space.retile(b.structure, rng)));
    EXPECT_TRUE(space.honours_pins(space.tiling_start(b.structure)));
  }
  // A yaml check of one point: the fixed loops are in the tree.
  const std::string yaml = space.flow_yaml(c, "x");
  EXPECT_NE(yaml.find("\"b:8:sp\", \"m:4:sp\""), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("\"m:16:sp\", \"l:16:sp\""), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("prim: Shar"), std::string::npos) << yaml;
  // av's own temporal loops (below its group's buffer tile), outermost first, follow n, m, b, l,
  // in every point that keeps three or more of them.
  int ordered = 0;
  for (int i = 0; i < 100; ++i, c = space.mutate(c, rng, true)) {
    const model::Dataflow f = space.build(c, "x");
    const auto leaf = std::find_if(f.nodes.begin(), f.nodes.end(), [](const model::TreeNode& n) { return n.is_leaf && n.op == 6; });
    std::vector<int> chain;  // av's ancestors, leaf first
    for (int n = leaf->parent; n >= 0; n = f.nodes[static_cast<size_t>(n)].parent) chain.push_back(n);
    std::vector<int> rank;  // per temporal loop below the buffer tile (root, group, buffer: the last three)
    for (size_t k = chain.size() - 3; k-- > 0;)
      for (const model::Loop& l : f.nodes[static_cast<size_t>(chain[k])].loops)
        if (!l.spatial) rank.push_back(static_cast<int>(std::string("nmbl").find(w.dims[static_cast<size_t>(l.dim)].name)));
    if (rank.size() < 3) continue;
    ++ordered;
    EXPECT_TRUE(std::is_sorted(rank.begin(), rank.end())) << space.flow_yaml(c, "x");
  }
  EXPECT_GT(ordered, 10) << "too few points keep enough of av's loops to see their order";
}

TEST(ExplorePins, ExploreReportsOnlyDataflowsWithTheFixedParts) {
  arch::Arch a = arch::load_arch(test::config("arch/edge.yaml"));
  model::Workload w = model::load_workload(test::config("workloads/gemm_chain_g1.yaml"));
  SearchOptions o;
  o.evaluations = 600;
  o.top = 3;
  o.groups = {{"gemm1", "gemm2"}};
  o.fix = {"gemm1+gemm2:prim=Pipe", "gemm2:sp=m:32"};
  const Outcome out = explore(a, w, o);
  ASSERT_FALSE(out.best.empty());
  for (const auto* list : {&out.best, &out.baselines})
    for (const Candidate& c : *list) {
      EXPECT_NE(c.flow_yaml.find("prim: Pipe"), std::string::npos) << c.name << "\n" << c.flow_yaml;
      EXPECT_NE(c.flow_yaml.find("\"m:32:sp\""), std::string::npos) << c.name << "\n" << c.flow_yaml;
    }
  for (const Candidate& c : out.baselines) EXPECT_EQ(c.name.find("closed form"), std::string::npos);
}

TEST(ExplorePins, BadFixesAreRefusedWithTheReason) {
  arch::Arch a = arch::load_arch(test::config("arch/ascend_like.yaml"));
  model::Workload w = model::load_workload(test::config("workloads/attention_g1.yaml"));
  auto refusal = [&](std::vector<std::string> fix, bool grouped = true) {
    Space space(a, w);
    if (grouped) space.fix_groups({0, 0, 0, 0, 0, 0, 1});
    try {
      space.pin(fix);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  const std::string group = "qk+max+sub+exp+sum+div";
  EXPECT_NE(refusal({"qk"}).find("expected TARGET:KEY=VALUE"), std::string::npos);
  EXPECT_NE(refusal({"qk:speed=1"}).find("unknown key 'speed'"), std::string::npos);
  EXPECT_NE(refusal({"qx:sp=m:16"}).find("unknown op 'qx'"), std::string::npos);
  EXPECT_NE(refusal({"qk:sp=z:16"}).find("unknown dimension 'z'"), std::string::npos);
  EXPECT_NE(refusal({"qk:sp=m:0"}).find("1 <= F <= 512"), std::string::npos);
  // ascend_like's cube takes whole instructions: only the count of its PEs bounds the tile.
  EXPECT_NE(refusal({"qk:sp=m:16,l:16,b:2"}).find("does not fit one core's 4096 PEs (at most 2 spatial loops)"), std::string::npos);
  EXPECT_NE(refusal({"qk:sp=m:128,l:128"}).find("does not fit one core's 4096 PEs"), std::string::npos);
  EXPECT_NE(refusal({"max:sp=n:4"}).find("no dimension 'n'"), std::string::npos);
  EXPECT_NE(refusal({"qk+max:prim=Pipe"}).find("not one of the groups"), std::string::npos);
  EXPECT_NE(refusal({group + ":prim=Pipe"}, false).find("--groups too"), std::string::npos);
  EXPECT_NE(refusal({group + ":prim=Para"}).find("a fused group may use"), std::string::npos);
  EXPECT_NE(refusal({"av:prim=Pipe"}).find("a group of one op has no primitive to fix"), std::string::npos);
  EXPECT_NE(refusal({group + ":loops=k:2"}).find("outside its ops, not 'k'"), std::string::npos);
  EXPECT_NE(refusal({group + ":cores=m:3"}).find("not a way this group can use the 32 cores"), std::string::npos);
  EXPECT_NE(refusal({"av:order=m,n"}).find("loops over its output dims b,m,n: name each once, outermost first, in any order (its reduction loops l stay innermost)"),
            std::string::npos)
      << refusal({"av:order=m,n"});
  EXPECT_NE(refusal({"av:order=m,b,b"}).find("name each once"), std::string::npos);
  EXPECT_NE(refusal({"av:order=m,b,l"}).find("name each once"), std::string::npos);
  for (const char* order : {"b,m,n", "b,n,m", "m,b,n", "m,n,b", "n,b,m", "n,m,b"})  // all 3! of them
    EXPECT_EQ(refusal({std::string("av:order=") + order}), "accepted") << order;
  EXPECT_EQ(refusal({group + ":cores=b:8,m:4", "av:cores=none", "av:loops=n:2,m:8", "qk:sp=none", "qk:order=l,b,m"}), "accepted");
}

TEST_F(Explore, ObjectivesChangeWhatIsMinimised) {
  SearchOptions o = options(5);
  o.objective = Objective::Energy;
  Outcome out = explore(a, w, o);
  EXPECT_EQ(out.best.front().cost, out.best.front().report.energy_pj);
}

TEST(Space, Divisors) {
  EXPECT_EQ(divisors(12), (std::vector<int64_t>{1, 2, 3, 4, 6, 12}));
  EXPECT_EQ(divisors(1), (std::vector<int64_t>{1}));
}

// trip_counts(n) lists each distinct loop over n elements once: what trips_of makes of every
// factor from 1 to n, by brute force.
TEST(Space, TripCountsAreEveryDistinctLoop) {
  for (int64_t n = 1; n <= 300; ++n) {
    std::vector<int64_t> all;
    for (int64_t f = 1; f <= n; ++f) all.push_back(trips_of(n, f));
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    ASSERT_EQ(trip_counts(n), all) << n;
    for (int64_t d : divisors(n)) EXPECT_TRUE(std::binary_search(all.begin(), all.end(), d)) << n;
  }
  EXPECT_EQ(trip_counts(73).size(), 17u);  // 73 rows: 17 loops, where divisors give 2
}

// Outer factors that leave a partial last tile keep the trees valid: spatial loops stay off the
// dims whose extent changes there, and inner loops step element by element in it.
// A drawn tree the loader takes and whose analysis finds no problem with an extent or a spatial
// loop (the space's tiling holds); whether it is valid (a buffer may still overflow).
bool valid_without_tiling_problems(const arch::Arch& a, const model::Workload& w, const Space& space, const Choice& c) {
  const model::Dataflow f = space.build(c, "x");
  model::check_dataflow(f, a, w);
  const model::Report r = model::analyze(a, w, f);
  for (const auto& p : r.problems) {
    EXPECT_EQ(p.message.find("extent"), std::string::npos) << p.message << "\n" << space.flow_yaml(c, "x");
    EXPECT_EQ(p.message.find("spatial"), std::string::npos) << p.message << "\n" << space.flow_yaml(c, "x");
  }
  return r.valid;
}

// An op's own loops at DRAM (Choice::own_trips): only in fused groups that run their ops in
// turn (Seq, Shar), on archs with one buffer for a group; trips that divide the op's extent in
// its group's tile; trees the loader and the analysis take as they are. Random points and
// their mutations (whose gene 6 moves one such loop alone).
TEST(Space, OwnLoopsAtDramOnlyWhereTheyHold) {
  model::Workload w = model::load_workload(test::config("workloads/bert_layer_tail.yaml"));
  for (const char* name : {"edge", "cloud", "ascend_like"}) {
    SCOPED_TRACE(name);
    arch::Arch a = arch::load_arch(test::config(std::string("arch/") + name + ".yaml"));
    Space space(a, w);
    dfx::mapper::Rng rng(11);
    int with_own = 0, valid = 0, only_own_moved = 0;
    for (int i = 0; i < 300; ++i) {
      const Choice c = space.random(rng);
      for (const Choice& x : {c, space.mutate(c, rng, false)}) {
        bool own = false;
        for (size_t o = 0; o < w.ops.size(); ++o) {
          if (x.own_trips[o].empty()) continue;
          own = true;
          const int g = x.group_of[o];
          EXPECT_GE(std::count(x.group_of.begin(), x.group_of.end(), g), 2);
          const model::Prim p = x.prim[static_cast<size_t>(g)];
          EXPECT_TRUE(p == model::Prim::Seq || p == model::Prim::Shar);
          EXPECT_TRUE(std::any_of(x.own_trips[o].begin(), x.own_trips[o].end(), [](int64_t t) { return t > 1; }));
        }
        if (!own) continue;
        ++with_own;
        valid += valid_without_tiling_problems(a, w, space, x);
      }
      const Choice m = space.mutate(c, rng, false);
      Choice same = m;
      same.own_trips = c.own_trips;
      only_own_moved += m.own_trips != c.own_trips && same.outer == c.outer && same.spatial == c.spatial;
    }
    if (std::string(name) == "ascend_like") {  // L1 and UB for a group: no one buffer holds it
      EXPECT_EQ(with_own, 0);
      continue;
    }
    EXPECT_GT(with_own, 50);
    EXPECT_GT(valid, with_own / 2) << valid << " of " << with_own;
    EXPECT_GT(only_own_moved, 1);  // few points have a fused Seq or Shar group for gene 6 to move in
  }
}

TEST(Space, NonDivisorFactorsGiveValidTrees) {
  arch::Arch a = arch::load_arch(test::config("arch/edge.yaml"));
  model::Workload w = model::load_workload_from_string(
      "name: prime\ndims: {m: 73, k: 64, l: 96, n: 64}\nops:\n  - {name: g1, expr: \"C[m,l] += A[m,k] * B[k,l]\"}\n"
      "  - {name: g2, expr: \"E[m,n] += C[m,l] * D[l,n]\"}\n", "w");
  Space space(a, w);
  dfx::mapper::Rng rng(3);
  int partial = 0, valid = 0;
  for (int i = 0; i < 400; ++i) {
    const Choice c = space.random(rng);
    bool uneven = false;
    model::Dataflow f = space.build(c, "x");
    for (const auto& n : f.nodes)
      for (const auto& l : n.loops) uneven |= !l.spatial && w.dims[static_cast<size_t>(l.dim)].size % l.factor != 0;
    if (!uneven) continue;
    ++partial;
    valid += valid_without_tiling_problems(a, w, space, c);
  }
  EXPECT_GE(partial, 50);
  EXPECT_GE(valid, partial / 4) << valid << " of " << partial;
}

// An op with many output dims: its loop orders permute the innermost seven (Space::kOrderedDims),
// the outer ones keep the workload's order. Before 2026-12-05 the orders' count, 14!, overflowed
// an int and explore crashed (a QA pass: 13 dims and more, SIGSEGV or SIGFPE in Space::build).
TEST(ExploreManyDims, OrdersTheInnermostSevenOutputDims) {
  arch::Arch a = arch::load_arch(test::config("arch/edge.yaml"));
  std::string dims, index;
  for (int d = 0; d < 14; ++d) dims += (d ? ", d" : "d") + std::to_string(d) + ": 2", index += (d ? ",d" : "d") + std::to_string(d);
  model::Workload w = model::load_workload_from_string(
      "name: wide\ndims: {" + dims + "}\nops:\n  - {name: o, expr: \"O[" + index + "] = exp(I[" + index + "])\"}\n", "wide.yaml");
  for (uint64_t seed : {1, 2, 3}) {
    SearchOptions o;
    o.evaluations = 300;
    o.seed = seed;
    const Outcome out = explore(a, w, o);
    ASSERT_FALSE(out.best.empty());
    EXPECT_TRUE(out.best.front().report.valid) << out.best.front().report.reason;
  }
  SearchOptions fixed;
  fixed.evaluations = 50;
  fixed.fix = {"o:order=d0,d1,d2,d3,d4,d5,d6,d13,d12,d11,d10,d9,d8,d7"};
  EXPECT_FALSE(explore(a, w, fixed).best.empty());
  fixed.fix = {"o:order=d13,d1,d2,d3,d4,d5,d6,d0,d12,d11,d10,d9,d8,d7"};
  const std::string err = test::input_error([&] { explore(a, w, fixed); });
  EXPECT_NE(err.find("d0,d1,d2,d3,d4,d5,d6 first in this order, then the innermost 7 in any order"), std::string::npos) << err;
}

// A GEMM whose dims are all prime pads two of them on one core's array: with one padded dim per
// op (before 2026-11-27) its best was 25.4 K cycles at 0.7% utilisation; its DRAM bound is 0.89 K.
TEST(ExplorePadding, PadsSeveralDimsOfOneOp) {
  arch::Arch a = arch::load_arch(test::config("arch/edge.yaml"));
  model::Workload w = test::one_gemm("primes", "m: 97, k: 61, n: 131");
  SearchOptions o;
  o.evaluations = 3000;
  o.seed = 1;
  const Outcome out = explore(a, w, o);
  ASSERT_FALSE(out.best.empty());
  const Candidate& best = out.best.front();
  ASSERT_TRUE(best.report.valid) << best.report.reason;
  int most_padded = 0;  // spatial loops in one tile whose factor does not divide the dim
  for (const auto& n : model::load_dataflow_from_string(best.flow_yaml, "best", a, w).nodes) {
    int padded = 0;
    for (const auto& l : n.loops) padded += l.spatial && w.dims[static_cast<size_t>(l.dim)].size % l.factor != 0;
    most_padded = std::max(most_padded, padded);
  }
  EXPECT_GE(most_padded, 2) << best.flow_yaml;
  EXPECT_LT(best.report.cycles, 2500) << best.flow_yaml;
}

}  // namespace
}  // namespace dfx::mapper

namespace dfx::mapper {
namespace {

std::vector<std::string> baseline_names(const char* arch, const char* workload) {
  arch::Arch a = arch::load_arch(test::config(std::string("arch/") + arch + ".yaml"));
  model::Workload w = model::load_workload(test::config(std::string("workloads/") + workload + ".yaml"));
  std::vector<std::string> names;
  for (const auto& b : Space(a, w).baselines()) names.push_back(b.name);
  return names;
}

TEST(Baselines, EachWorkloadFamilyGetsItsNamedDataflows) {
  EXPECT_EQ(baseline_names("edge", "attention_g1"),
            (std::vector<std::string>{"Layerwise", "Uni-pipe", "FLAT-HGran", "FLAT-RGran", "Chimera", "Fused (Pipe)"}));
  EXPECT_EQ(baseline_names("edge", "gemm_chain_g1"), (std::vector<std::string>{"Layerwise", "Chimera", "Fused (Pipe)"}));
  EXPECT_EQ(baseline_names("cloud", "conv_chain_c3"),
            (std::vector<std::string>{"Layerwise", "Fused-Layer", "ISOS", "Fused (Pipe)"}));
  // A ReLU between the convolutions keeps them a convolution chain (it got attention's
  // baselines, and none of its own: QA pass 8).
  const arch::Arch a = arch::load_arch(test::config("arch/edge.yaml"));
  const model::Workload relu = model::load_workload_from_string(
      "name: c\ndims: {c: 8, k1: 8, k2: 8, p1: 10, r1: 3, p2: 8, r2: 3}\nops:\n"
      "  - {name: conv1, expr: \"O1[k1,p1] += I[c,p1+r1] * W1[k1,c,r1]\"}\n"
      "  - {name: act, expr: \"A1[k1,p1] = relu(O1[k1,p1])\"}\n"
      "  - {name: conv2, expr: \"O2[k2,p2] += A1[k1,p2+r2] * W2[k2,k1,r2]\"}\n", "relu.yaml");
  std::vector<std::string> names;
  for (const auto& b : Space(a, relu).baselines()) names.push_back(b.name);
  EXPECT_EQ(names, (std::vector<std::string>{"Layerwise", "Fused-Layer", "ISOS", "Fused (Pipe)"}));
}

TEST(Baselines, FlatHGranTilesOnlyBatchAndHeads) {
  arch::Arch a = arch::load_arch(test::config("arch/edge.yaml"));
  model::Workload w = model::load_workload(test::config("workloads/attention_g1.yaml"));
  Space space(a, w);
  dfx::mapper::Rng rng(1);
  for (const auto& b : space.baselines()) {
    if (b.name != "FLAT-HGran") continue;
    for (int i = 0; i < 20; ++i) {
      Choice c = space.retile(b.structure, rng);
      std::string yaml = space.flow_yaml(c, "x");
      // The first group's DRAM tile loops over b only (m, the rows, stays whole).
      std::string first = yaml.substr(yaml.find("loops:"), yaml.find('\n', yaml.find("loops:")) - yaml.find("loops:"));
      EXPECT_EQ(first.find("\"m:"), std::string::npos) << first;
    }
  }
}

}  // namespace
}  // namespace dfx::mapper

namespace dfx::mapper {
namespace {

const char* kTinyArch = R"(name: tiny
compute: {matrix: {rows: 2, cols: 2}, vector: {lanes: 2}}
levels:
  - {name: DRAM, capacity: unlimited, read_bw: 2, write_bw: 2}
  - {name: Buf, capacity: 256 B, read_bw: 8, write_bw: 8}
  - {name: Reg, capacity: 6 B, read_bw: 2, write_bw: 2, per: pe}
)";

struct Tiny {
  const char* name;
  const char* workload;
};

class ReachesTheOptimum : public ::testing::TestWithParam<Tiny> {};

// The evolutionary search, with a budget of a fraction of the space, finds the exhaustive optimum.
TEST_P(ReachesTheOptimum, EvolutionMatchesExhaustiveSearch) {
  arch::Arch a = arch::load_arch_from_string(kTinyArch, "tiny");
  model::Workload w = model::load_workload_from_string(GetParam().workload, "w");
  int64_t space = 0;
  Space(a, w).enumerate([&](const Choice&) { return ++space > 0; });
  SearchOptions all;
  all.exhaustive = true;
  all.evaluations = space + 1000;
  Outcome optimum = explore(a, w, all);
  EXPECT_GE(optimum.evaluations, space);  // every point analysed (plus the baselines)
  for (uint64_t seed : {1, 2, 3}) {
    SearchOptions some;
    some.seed = seed;
    some.evaluations = std::max<int64_t>(300, space / 3);
    Outcome found = explore(a, w, some);
    EXPECT_EQ(found.best.front().cost, optimum.best.front().cost)
        << GetParam().name << ", seed " << seed << ", space " << space << ", budget " << some.evaluations;
  }
}

// Every named baseline reports the best tiling of its own structure that the search analysed:
// with every point analysed (exhaustive), that is the minimum over the points that follow it.
TEST(Baselines, EachIsTheBestTilingOfItsStructureSeen) {
  arch::Arch a = arch::load_arch_from_string(kTinyArch, "tiny");
  model::Workload w = model::load_workload_from_string(
      "name: g\ndims: {m: 4, k: 2, l: 4, n: 4}\nops:\n"
      "  - {name: g1, expr: \"C[m,l] += A[m,k] * B[k,l]\"}\n"
      "  - {name: g2, expr: \"E[m,n] += C[m,l] * D[l,n]\"}\n", "w");
  Space space(a, w);
  const std::vector<Baseline> named = space.baselines();
  std::vector<double> best(named.size(), INFINITY);
  int64_t points = 0;
  space.enumerate([&](const Choice& c) {
    ++points;
    model::Dataflow f = space.build(c, "x");
    model::check_dataflow(f, a, w);
    const model::Report r = model::analyze(a, w, f);
    for (size_t b = 0; b < named.size(); ++b)
      if (r.valid && space.follows(named[b].structure, c)) best[b] = std::min(best[b], r.cycles);
    return true;
  });
  SearchOptions all;
  all.exhaustive = true;
  all.evaluations = points + 1000;
  const Outcome out = explore(a, w, all);
  for (size_t b = 0; b < named.size(); ++b) {
    auto at = std::find_if(out.baselines.begin(), out.baselines.end(),
                           [&](const Candidate& c) { return c.name == named[b].name; });
    ASSERT_NE(at, out.baselines.end()) << named[b].name;
    EXPECT_EQ(at->report.cycles, best[b]) << named[b].name;
  }
  // follows(): a retiling keeps the structure, another primitive or grouping does not.
  dfx::mapper::Rng rng(5);
  const Choice& layerwise = named.front().structure;
  EXPECT_TRUE(space.follows(layerwise, space.retile(layerwise, rng)));
  Choice fused = layerwise;
  fused.group_of.assign(fused.group_of.size(), 0);
  EXPECT_FALSE(space.follows(layerwise, space.retile(fused, rng)));
}

INSTANTIATE_TEST_SUITE_P(
    Tiny, ReachesTheOptimum,
    ::testing::Values(Tiny{"row_softmax", "name: r\ndims: {i: 4, j: 4}\nops:\n  - {name: ex, expr: \"B[i,j] = exp(A[i,j])\"}\n"
                                          "  - {name: rs, expr: \"C[i] += B[i,j]\"}\n"},
                      Tiny{"gemm_chain", "name: g\ndims: {m: 2, k: 2, l: 2, n: 2}\nops:\n"
                                         "  - {name: g1, expr: \"C[m,l] += A[m,k] * B[k,l]\"}\n"
                                         "  - {name: g2, expr: \"E[m,n] += C[m,l] * D[l,n]\"}\n"},
                      Tiny{"gemm_chain_wide", "name: g\ndims: {m: 2, k: 2, l: 4, n: 2}\nops:\n"
                                              "  - {name: g1, expr: \"C[m,l] += A[m,k] * B[k,l]\"}\n"
                                              "  - {name: g2, expr: \"E[m,n] += C[m,l] * D[l,n]\"}\n"}),
    [](const ::testing::TestParamInfo<Tiny>& param) { return std::string(param.param.name); });

}  // namespace
}  // namespace dfx::mapper

#include "mapper/chain_solver.h"

namespace dfx::mapper {
namespace {

int64_t dram(const model::Report& r, const std::string& tensor, bool read) {
  for (const auto& t : r.levels[0].tensors)
    if (t.tensor == tensor) return read ? t.traffic.read : t.traffic.update;
  return 0;
}

// An arch and a workload of configs/, by name.
struct ChainCase {
  const char* arch;
  const char* workload;
};

// What §3 counts of a chain's DRAM traffic: A and every GEMM's right operand read, the last
// result written.
int64_t chain_dram(const model::Workload& w, const model::Report& r) {
  auto name = [&](int tensor) { return w.tensors[static_cast<size_t>(tensor)].name; };
  int64_t measured = dram(r, name(w.ops[0].inputs[0].tensor), true) + dram(r, name(w.ops.back().out.tensor), false);
  for (const model::Op& op : w.ops)
    if (op.unit == arch::UnitKind::Matrix) measured += dram(r, name(op.inputs[1].tensor), true);
  return measured;
}

// An arch with a chip-wide level between DRAM and the buffer (cloud's L2, here fast against a
// slow DRAM): outputs handed from one group to the next may wait there (Choice::home).
const char* kTinySharedArch = R"(name: tiny_l2
compute: {matrix: {rows: 2, cols: 2}, vector: {lanes: 2}}
levels:
  - {name: DRAM, capacity: unlimited, read_bw: 1, write_bw: 1}
  - {name: L2, capacity: 1 KB, read_bw: 8, write_bw: 8}
  - {name: Buf, capacity: 64 B, read_bw: 8, write_bw: 8}
  - {name: Reg, capacity: 6 B, read_bw: 2, write_bw: 2, per: pe}
)";

TEST(SharedLevel, OutputsWaitThereBetweenGroups) {
  arch::Arch a = arch::load_arch_from_string(kTinySharedArch, "tiny_l2");
  model::Workload w = model::load_workload_from_string(
      "name: r\ndims: {i: 4, j: 4}\nops:\n  - {name: ex, expr: \"B[i,j] = exp(A[i,j])\"}\n"
      "  - {name: rs, expr: \"C[i] += B[i,j]\"}\n", "w");
  Space space(a, w);
  // The space holds both homes of B when ex and rs are apart, and none when they are fused.
  int64_t points = 0, in_l2 = 0;
  space.enumerate([&](const Choice& c) {
    ++points;
    if (c.home.empty()) return true;
    ++in_l2;
    EXPECT_NE(c.group_of[0], c.group_of[1]);
    const model::Dataflow f = space.build(c, "x");
    model::check_dataflow(f, a, w);
    EXPECT_EQ(f.root().keep.size(), 1u);
    const model::Report r = model::analyze(a, w, f);
    if (r.valid) {
      EXPECT_EQ(dram(r, "B", true) + dram(r, "B", false), 0) << space.flow_yaml(c, "x");
    }
    return true;
  });
  EXPECT_GT(in_l2, 0);
  EXPECT_LT(in_l2, points);
  // Apart, B waits in L2 in the optimum, faster than Layerwise (B through DRAM), which keeps
  // its definition; the genetic search reaches that optimum.
  SearchOptions all;
  all.exhaustive = true;
  all.evaluations = points + 1000;
  all.groups = {{"ex"}, {"rs"}};
  const Outcome optimum = explore(a, w, all);
  ASSERT_FALSE(optimum.best.empty());
  EXPECT_FALSE(optimum.best.front().choice.home.empty()) << optimum.best.front().flow_yaml;
  const auto layerwise = std::find_if(optimum.baselines.begin(), optimum.baselines.end(), [](const Candidate& b) { return b.name == "Layerwise"; });
  ASSERT_NE(layerwise, optimum.baselines.end());
  EXPECT_TRUE(layerwise->choice.home.empty());
  EXPECT_LT(optimum.best.front().cost, layerwise->cost);
  for (uint64_t seed : {1, 2, 3}) {
    SearchOptions some = all;
    some.exhaustive = false;
    some.seed = seed;
    some.evaluations = std::max<int64_t>(300, points / 3);
    EXPECT_EQ(explore(a, w, some).best.front().cost, optimum.best.front().cost) << "seed " << seed;
  }
  // --fix ex:home=…: every point drawn, mutated or crossed keeps it.
  for (const char* level : {"DRAM", "L2"}) {
    Space fixed(a, w);
    fixed.fix_groups(std::vector<std::vector<std::string>>{{"ex"}, {"rs"}});
    fixed.pin({std::string("ex:home=") + level});
    const std::vector<int> want = std::string(level) == "L2" ? std::vector<int>{1, 0} : std::vector<int>{};
    dfx::mapper::Rng rng(3);
    Choice c = fixed.random(rng), d = fixed.random(rng);
    for (int i = 0; i < 200; ++i) {
      c = i % 3 == 0 ? fixed.crossover(c, d, rng) : fixed.mutate(c, rng);
      ASSERT_EQ(c.home, want) << level << " step " << i;
    }
    // The baselines kept keep it too (they were tiled without it: QA pass 8).
    for (const Baseline& b : fixed.baselines()) EXPECT_EQ(b.structure.home, want) << level << " " << b.name;
  }
  SearchOptions pinned = all;
  pinned.exhaustive = false;
  pinned.evaluations = 600;
  pinned.fix = {"ex:home=L2"};
  const Outcome kept = explore(a, w, pinned);
  ASSERT_FALSE(kept.baselines.empty());
  for (const Candidate& b : kept.baselines) EXPECT_EQ(b.choice.home, (std::vector<int>{1, 0})) << b.name;
}

TEST(ChainSolver, PredictionEqualsTheAnalysis) {
  for (const ChainCase& c : {ChainCase{"edge", "gemm_chain_g1"}, ChainCase{"tileflow_validation", "fused_gemm_validation"},
                        ChainCase{"tpu_like", "gemm_chain_g10"}, ChainCase{"edge", "gemm_chain_g10"}, ChainCase{"cloud", "gemm_chain_g10"},
                        ChainCase{"edge", "mlp_block"}, ChainCase{"tpu_like", "mlp_block"}, ChainCase{"edge", "attention_g1"},
                        ChainCase{"cloud", "attention_g3"}, ChainCase{"tpu_like", "attention_g10"}, ChainCase{"edge", "bert_layer_tail"},
                        ChainCase{"cloud", "bert_layer_tail"}, ChainCase{"tpu_like", "bert_layer_tail"},
                        ChainCase{"tpu_like_small", "bert_layer_tail"}}) {
    SCOPED_TRACE(std::string(c.arch) + " " + c.workload);
    const arch::Arch a = arch::load_arch(test::config(std::string("arch/") + c.arch + ".yaml"));
    const model::Workload w = model::load_workload(test::config(std::string("workloads/") + c.workload + ".yaml"));
    auto s = solve_gemm_chain(a, w);
    ASSERT_TRUE(s.has_value());
    model::Report r = model::analyze(a, w, model::load_dataflow_from_string(s->flow_yaml, "chain", a, w));
    ASSERT_TRUE(r.valid) << r.reason << "\n" << s->flow_yaml;
    EXPECT_EQ(static_cast<double>(chain_dram(w, r)), s->predicted_dram_elems);
    EXPECT_EQ(s->gemms, std::count_if(w.ops.begin(), w.ops.end(), [](const model::Op& op) { return op.unit == arch::UnitKind::Matrix; }));
    // The tiles respect the buffer (MU ≤ MC) and the analysis agrees.
    const auto& buf = r.levels[static_cast<size_t>(s->buffer_level)];
    EXPECT_LE(s->footprint_elems * buf.word_bytes, buf.capacity_bytes);
    EXPECT_LE(static_cast<double>(buf.peak_bytes), s->footprint_elems * buf.word_bytes);
  }
}

// The solver's tiles as a point of the template (Space::fused_at), the search's seed: the
// analysis of its tree moves what §3 predicts, as the solver's own tree does. Longer chains
// have no such point.
TEST(ChainSolver, SeedsTheSearchWithItsTiles) {
  for (const ChainCase& c : {ChainCase{"edge", "gemm_chain_g1"}, ChainCase{"tileflow_validation", "fused_gemm_validation"},
                        ChainCase{"tpu_like", "gemm_chain_g10"}, ChainCase{"cloud", "gemm_chain_g10"}, ChainCase{"edge", "mlp_block"},
                        ChainCase{"edge", "attention_g1"}, ChainCase{"cloud", "attention_g3"}, ChainCase{"tpu_like", "attention_g10"}}) {
    SCOPED_TRACE(std::string(c.arch) + " " + c.workload);
    const arch::Arch a = arch::load_arch(test::config(std::string("arch/") + c.arch + ".yaml"));
    const model::Workload w = model::load_workload(test::config(std::string("workloads/") + c.workload + ".yaml"));
    auto s = solve_gemm_chain(a, w);
    ASSERT_TRUE(s.has_value());
    Space space(a, w);
    auto seed = space.fused_at(model::Prim::Seq, s->core_dim, s->cores, s->group_tile, s->own_trips);
    ASSERT_TRUE(seed.has_value());
    const model::Dataflow f = space.build(*seed, "seed");
    model::check_dataflow(f, a, w);
    const model::Report r = model::analyze(a, w, f);
    ASSERT_TRUE(r.valid) << r.reason << "\n" << space.flow_yaml(*seed, "seed");
    EXPECT_EQ(static_cast<double>(chain_dram(w, r)), s->predicted_dram_elems) << space.flow_yaml(*seed, "seed");
  }
  arch::Arch a = arch::load_arch(test::config("arch/edge.yaml"));
  model::Workload w = model::load_workload(test::config("workloads/bert_layer_tail.yaml"));
  auto s = solve_gemm_chain(a, w);
  ASSERT_TRUE(s.has_value());
  EXPECT_TRUE(s->group_tile.empty());
  // Tiles the template cannot take: a tile over a dim the fused group may not loop over.
  model::Workload att = model::load_workload(test::config("workloads/attention_g1.yaml"));
  std::vector<int64_t> tile;
  for (const auto& d : att.dims) tile.push_back(d.size);
  tile[static_cast<size_t>(att.dim_index("l"))] = 64;  // max and sum reduce over l inside the group
  EXPECT_FALSE(Space(a, att).fused_at(model::Prim::Seq, -1, 1, tile, {}).has_value());
  tile[static_cast<size_t>(att.dim_index("l"))] = 512;
  tile[static_cast<size_t>(att.dim_index("m"))] = 48;  // no trip count gives it: 11 trips over 512 are 47 each
  EXPECT_FALSE(Space(a, att).fused_at(model::Prim::Seq, -1, 1, tile, {}).has_value());
  tile[static_cast<size_t>(att.dim_index("m"))] = 47;  // 10 steps of 47 and a partial one of 42
  EXPECT_TRUE(Space(a, att).fused_at(model::Prim::Seq, -1, 1, tile, {}).has_value());
  tile[static_cast<size_t>(att.dim_index("m"))] = 64;
  EXPECT_TRUE(Space(a, att).fused_at(model::Prim::Seq, -1, 1, tile, {}).has_value());
  EXPECT_FALSE(Space(a, att, {model::Prim::Pipe}).fused_at(model::Prim::Seq, -1, 1, tile, {}).has_value());
}

// The analysis of a solution's tree: valid, and moving the DRAM data the solver predicts; the
// report in `out` where given.
void expect_predicted_dram(const arch::Arch& a, const model::Workload& w, const ChainSolution& s, model::Report* out = nullptr) {
  const model::Report r = model::analyze(a, w, model::load_dataflow_from_string(s.flow_yaml, "chain", a, w));
  ASSERT_TRUE(r.valid) << r.reason << "\n" << s.flow_yaml;
  EXPECT_EQ(static_cast<double>(chain_dram(w, r)), s.predicted_dram_elems) << s.flow_yaml;
  if (out) *out = r;
}

// Extents with no useful divisor (QA pass 8: 97×61×131×53 on edge ran on one core with T_K =
// T_N = 1, 29.3 K cycles against Layerwise's 1.57 K): tiles with a partial last step, m over
// the cores in even chunks on every arch, and the prediction still equals the analysis — for
// two GEMMs, with a ReLU between, and for three.
TEST(ChainSolver, PrimeExtentsTakePartialTiles) {
  const std::string two = "name: odd\ndims: {m: 97, k: 61, l: 131, n: 53}\nops:\n"
                          "  - {name: g1, expr: \"C[m,l] += A[m,k] * B[k,l]\"}\n";
  const std::string relu = "  - {name: relu, expr: \"R[m,l] = relu(C[m,l])\"}\n  - {name: g2, expr: \"E[m,n] += R[m,l] * D[l,n]\"}\n";
  const std::string plain = "  - {name: g2, expr: \"E[m,n] += C[m,l] * D[l,n]\"}\n";
  const std::string three = "name: odd3\ndims: {m: 97, k: 61, l: 131, n: 53, p: 29}\nops:\n"
                            "  - {name: g1, expr: \"C[m,l] += A[m,k] * B[k,l]\"}\n"
                            "  - {name: g2, expr: \"E[m,n] += C[m,l] * D[l,n]\"}\n"
                            "  - {name: g3, expr: \"G[m,p] += E[m,n] * F[n,p]\"}\n";
  // k and n that the arrays' width divides: the search's seed too, with m and l in partial tiles.
  const std::string even_k = "name: odd\ndims: {m: 97, k: 64, l: 131, n: 64}\nops:\n"
                             "  - {name: g1, expr: \"C[m,l] += A[m,k] * B[k,l]\"}\n";
  int seeded = 0;
  for (const char* arch_name : {"edge", "cloud", "tpu_like"})
    for (const std::string& text : {two + plain, two + relu, three, even_k + plain}) {
      SCOPED_TRACE(std::string(arch_name) + "\n" + text);
      const arch::Arch a = arch::load_arch(test::config(std::string("arch/") + arch_name + ".yaml"));
      const model::Workload w = model::load_workload_from_string(text, "odd");
      auto s = solve_gemm_chain(a, w);
      ASSERT_TRUE(s.has_value());
      EXPECT_GT(s->tk, 1);
      EXPECT_GT(s->tn, 1);
      EXPECT_GT(s->tm, 1);
      EXPECT_EQ(s->core_dim, w.dim_index("m"));
      EXPECT_EQ(s->cores, a.cores);
      model::Report r;
      expect_predicted_dram(a, w, *s, &r);
      ASSERT_TRUE(r.valid);
      const auto& buf = r.levels[static_cast<size_t>(s->buffer_level)];
      EXPECT_LE(s->footprint_elems * buf.word_bytes, buf.capacity_bytes);
      EXPECT_LE(static_cast<double>(buf.peak_bytes), s->footprint_elems * buf.word_bytes) << s->flow_yaml;
      if (!s->group_tile.empty()) {  // the seed of the search, with the same partial tiles
        Space space(a, w);
        auto seed = space.fused_at(model::Prim::Seq, s->core_dim, s->cores, s->group_tile, s->own_trips);
        ASSERT_TRUE(seed.has_value());
        const model::Report sr = model::analyze(a, w, space.build(*seed, "seed"));
        ASSERT_TRUE(sr.valid) << sr.reason << "\n" << space.flow_yaml(*seed, "seed");
        EXPECT_EQ(static_cast<double>(chain_dram(w, sr)), s->predicted_dram_elems) << space.flow_yaml(*seed, "seed");
        ++seeded;
      }
    }
  EXPECT_GE(seeded, 2);
  // A softmax between (whole rows: T_L = L) and a tight buffer: T_M is sized with T_K = T_N = α
  // and shrinks until MU fits (a review found 25 rows needing 133.7 KiB of a 117.2 KiB L1).
  const std::string softmax = "name: att\ndims: {m: 97, k: 64, l: 512, n: 64}\nops:\n"
                              "  - {name: qk, expr: \"S[m,l] += Q[m,k] * K[k,l]\"}\n"
                              "  - {name: mx, expr: \"X[m] max= S[m,l]\"}\n"
                              "  - {name: ex, expr: \"P[m,l] = exp(S[m,l] - X[m])\"}\n"
                              "  - {name: sm, expr: \"Z[m] += P[m,l]\"}\n"
                              "  - {name: dv, expr: \"R[m,l] = P[m,l] / Z[m]\"}\n"
                              "  - {name: av, expr: \"O[m,n] += R[m,l] * V[l,n]\"}\n";
  {
    const arch::Arch a = arch::load_arch(test::config("arch/edge.yaml"), {parse_override("levels.L1.capacity=120000", "--set")});
    const model::Workload w = model::load_workload_from_string(softmax, "att");
    auto s = solve_gemm_chain(a, w);
    ASSERT_TRUE(s.has_value());
    EXPECT_GT(s->tm, 1);
    const model::Report r = model::analyze(a, w, model::load_dataflow_from_string(s->flow_yaml, "chain", a, w));
    EXPECT_TRUE(r.valid) << r.reason << "\n" << s->flow_yaml;
  }
  // Small tiles under an uneven split, each core fed its own copy (tpu_like's DRAM does not
  // multicast): 25 rows in tiles of 3 are 9 steps, the last core's 22 are 8, and B and D leave
  // DRAM at each core's own steps (the prediction counted the widest core's for all, a review).
  {
    const arch::Arch a = arch::load_arch(test::config("arch/tpu_like.yaml"), {parse_override("levels.SPM.capacity=256B", "--set")});
    const model::Workload w = model::load_workload_from_string(two + plain, "odd");
    auto s = solve_gemm_chain(a, w);
    ASSERT_TRUE(s.has_value());
    ASSERT_EQ(s->tm, 3);
    expect_predicted_dram(a, w, *s);
  }
  // Fewer rows than the cores: the widest even chunks, 9 rows as 3 + 3 + 3 on three cores.
  {
    const arch::Arch a = arch::load_arch(test::config("arch/tpu_like.yaml"));
    const model::Workload w = model::load_workload_from_string(
        "name: nine\ndims: {m: 9, k: 64, l: 64, n: 64}\nops:\n  - {name: g1, expr: \"C[m,l] += A[m,k] * B[k,l]\"}\n"
        "  - {name: g2, expr: \"E[m,n] += C[m,l] * D[l,n]\"}\n", "nine");
    auto s = solve_gemm_chain(a, w);
    ASSERT_TRUE(s.has_value());
    EXPECT_EQ(s->cores, 3);
    expect_predicted_dram(a, w, *s);
  }
  // Three batches on four cores: each of three cores takes one (its own B and D), where m over
  // all four had each read every batch's.
  const model::Workload batched = model::load_workload_from_string(
      "name: b3\ndims: {b: 3, m: 97, k: 64, l: 131, n: 64}\nops:\n  - {name: g1, expr: \"C[b,m,l] += A[b,m,k] * B[b,k,l]\"}\n"
      "  - {name: g2, expr: \"E[b,m,n] += C[b,m,l] * D[b,l,n]\"}\n", "b3");
  for (const char* arch_name : {"edge", "tpu_like"}) {
    SCOPED_TRACE(arch_name);
    const arch::Arch a = arch::load_arch(test::config(std::string("arch/") + arch_name + ".yaml"));
    ASSERT_EQ(a.cores, 4);
    auto s = solve_gemm_chain(a, batched);
    ASSERT_TRUE(s.has_value());
    EXPECT_EQ(s->core_dim, batched.dim_index("b"));
    EXPECT_EQ(s->cores, 3);
    expect_predicted_dram(a, batched, *s);
    // The search starts from the same split: the template offers b over three cores too.
    Space space(a, batched);
    ASSERT_FALSE(s->group_tile.empty());
    EXPECT_TRUE(space.fused_at(model::Prim::Seq, s->core_dim, s->cores, s->group_tile, s->own_trips).has_value());
  }
}

// A Gram matrix reads A along m and along n: spread over the cores or over PEs with registers,
// those dims would give instances slices of A of different shapes, which the analysis refuses.
// The search offers no such spread, so it finds valid trees (QA pass 9: every candidate was
// refused, 5.6 ms each, and explore ended with no dataflow); a vector op's lanes, with no buffer
// below them, may still spread them.
TEST(Space, ReadsOfOneTensorInTwoWaysAreNotSpreadApart) {
  const model::Workload gram = model::load_workload_from_string(
      "name: gram\ndims: {m: 64, n: 64, k: 32}\nops: [{name: g, expr: \"C[m,n] += A[m,k] * A[n,k]\"}]\n", "w");
  EXPECT_EQ(dims_read_apart(gram, 0, 1), (uint64_t{1} << gram.dim_index("m")) | (uint64_t{1} << gram.dim_index("n")));
  // Two ops of one group reading X[m,k] and X[n,k] (a review's case); a convolution's
  // intermediate read through its window is not apart.
  const model::Workload cross = model::load_workload_from_string(
      "name: cross\ndims: {m: 64, n: 64, k: 32}\nops:\n  - {name: p, expr: \"P[m,n] += X[m,k] * W[k,n]\"}\n"
      "  - {name: q, expr: \"Q[m,n] += P[m,n] * X[n,k]\"}\n", "w");
  EXPECT_EQ(dims_read_apart(cross, 0, 2), (uint64_t{1} << cross.dim_index("m")) | (uint64_t{1} << cross.dim_index("n")));
  EXPECT_EQ(dims_read_apart(cross, 0, 1), 0u);
  const model::Workload conv = model::load_workload(test::config("workloads/conv_chain_c1.yaml"));
  EXPECT_EQ(dims_read_apart(conv, 0, conv.ops.size()), 0u);
  for (const char* arch_name : {"edge", "ascend_like"}) {
    SCOPED_TRACE(arch_name);
    const arch::Arch a = arch::load_arch(test::config(std::string("arch/") + arch_name + ".yaml"));
    SearchOptions o;
    o.evaluations = 600;
    const Outcome out = explore(a, gram, o);
    ASSERT_FALSE(out.best.empty());
    EXPECT_TRUE(out.best.front().report.valid);
    EXPECT_GT(out.valid, out.evaluations / 4);
    const model::Dataflow f = model::load_dataflow_from_string(out.best.front().flow_yaml, "best", a, gram);
    // Over the cores (DRAM's tiles) never m or n; on edge, whose PEs hold registers, only k at
    // all; ascend_like's cube reads A from L0A, above its spread.
    const bool registers = std::string(arch_name) == "edge";
    int spread = 0;
    for (const model::TreeNode& n : f.nodes)
      for (const model::Loop& l : n.loops)
        if (l.spatial) {
          ++spread;
          if (registers || n.levels.front() == 0) {
            EXPECT_EQ(l.dim, gram.dim_index("k")) << out.best.front().flow_yaml;
          }
        }
    EXPECT_GT(spread, 0) << out.best.front().flow_yaml;
  }
  const model::Workload tr = model::load_workload_from_string(
      "name: tr\ndims: {i: 64, j: 64}\nops: [{name: t, expr: \"B[i,j] = A[i,j] * A[j,i]\"}]\n", "w");
  const arch::Arch edge = arch::load_arch(test::config("arch/edge.yaml"));
  SearchOptions o;
  o.evaluations = 600;
  const Outcome out = explore(edge, tr, o);
  ASSERT_FALSE(out.best.empty());
  EXPECT_GT(out.best.front().report.ops[0].instances, 1) << out.best.front().flow_yaml;  // the lanes
}

// §3's DV and MU for every pair of divisor tiles (T_M of one core's rows, T_L), T_K and T_N as
// solved: no pair that fits the buffer moves less data than the solver's tiles.
TEST(ChainSolver, NoOtherTilesThatFitMoveLess) {
  for (const ChainCase& c : {ChainCase{"edge", "gemm_chain_g1"}, ChainCase{"tpu_like", "gemm_chain_g10"}, ChainCase{"cloud", "gemm_chain_g10"},
                        ChainCase{"tpu_like", "gemm_chain_g5"}, ChainCase{"edge", "mlp_block"}, ChainCase{"tpu_like", "mlp_block"},
                        ChainCase{"tpu_like_small", "gemm_chain_g1"}, ChainCase{"tpu_like_small", "attention_g1"},
                        ChainCase{"tpu_like", "attention_g4"}, ChainCase{"cloud", "attention_g12"}}) {
    SCOPED_TRACE(std::string(c.arch) + " " + c.workload);
    const arch::Arch a = arch::load_arch(test::config(std::string("arch/") + c.arch + ".yaml"));
    const model::Workload w = model::load_workload(test::config(std::string("workloads/") + c.workload + ".yaml"));
    auto s = solve_gemm_chain(a, w);
    ASSERT_TRUE(s.has_value());
    const model::Op& g1 = w.ops.front();
    const model::Op& g2 = w.ops.back();
    auto size = [&](int d) { return w.dims[static_cast<size_t>(d)].size; };
    const int64_t K = size(g1.reduction_dims[0]), L = size(g2.reduction_dims[0]);
    auto indexes = [](const model::TensorAccess& acc, int d) {
      for (const auto& ix : acc.index)
        if (ix.terms[0].dim == d) return true;
      return false;
    };
    int m = -1, n = -1;  // m: A's dim that is neither k nor B's; n: E's dim that C lacks
    for (const auto& ix : g1.inputs[0].index)
      if (ix.terms[0].dim != g1.reduction_dims[0] && !indexes(g1.inputs[1], ix.terms[0].dim)) m = ix.terms[0].dim;
    for (const auto& ix : g2.out.index)
      if (!indexes(g2.inputs[0], ix.terms[0].dim)) n = ix.terms[0].dim;
    ASSERT_GE(m, 0);
    ASSERT_GE(n, 0);
    const int64_t M = size(m), N = size(n);
    const int64_t rows = s->core_dim == m ? M / a.cores : M;
    double batch = 1;
    for (size_t d = 0; d < w.dims.size(); ++d)
      if (static_cast<int>(d) != m && static_cast<int>(d) != n && d != static_cast<size_t>(g1.reduction_dims[0]) &&
          d != static_cast<size_t>(g2.reduction_dims[0]))
        batch *= static_cast<double>(w.dims[d].size);
    const double copies = s->core_dim == m && !a.levels[0].multicast ? static_cast<double>(a.cores) : 1;
    // C and each op's output between in C's shape (T_M × T_L), and the rows reduced over l (T_M),
    // which need all of L at once.
    double tiles = 0, rows_kept = 0;
    for (size_t o = 0; o + 1 < w.ops.size(); ++o) (indexes(w.ops[o].out, g2.reduction_dims[0]) ? tiles : rows_kept) += 1;
    const auto& buf = a.levels[static_cast<size_t>(s->buffer_level)];
    const double mc = buf.capacity_bytes / buf.word_bytes;
    double best = INFINITY;
    for (int64_t tm : divisors(rows))
      for (int64_t tl : divisors(L)) {
        if (rows_kept > 0 && tl != L) continue;
        const double mu = tiles * static_cast<double>(tm * tl) + rows_kept * static_cast<double>(tm) +
                          static_cast<double>(std::max(tm * s->tk + s->tk * tl, tl * s->tn + tm * s->tn));
        if (mu > mc) continue;
        const double dv = batch * (static_cast<double>(M * K + M * N) * static_cast<double>(L / tl) +
                                   static_cast<double>(K * L + N * L) * static_cast<double>(rows / tm) * copies);
        best = std::min(best, dv);
      }
    EXPECT_EQ(s->predicted_dram_elems, best) << "tm " << s->tm << " tl " << s->tl;
  }
}

// G10 has one batch: the cores take m, each core its rows, and the cloud's sub-core arrays sit
// side by side (one 64×64 array per core would leave 15 of 16 idle).
// Longer chains: for every pair of divisor tiles (T_M, T_L1) the analysis of the chain's tree
// moves the data the prediction says, and none that fits the buffer moves less than the
// solver's choice (a three-GEMM chain with a ReLU after the second, and one with a softmax
// after the first, which needs whole rows of l).
TEST(ChainSolver, LongerChainsTilesAgainstTheAnalysis) {
  arch::Arch a = arch::load_arch(test::config("arch/tpu_like_small.yaml"));
  const std::string relu = "name: tail\ndims: {t: 256, d: 64, h: 128, f: 256, e: 64}\nops:\n"
                           "  - {name: proj, expr: \"Y1[t,h] += O[t,d] * Wo[d,h]\"}\n"
                           "  - {name: fc1, expr: \"H[t,f] += Y1[t,h] * W1[h,f]\"}\n"
                           "  - {name: relu, expr: \"R[t,f] = relu(H[t,f])\"}\n"
                           "  - {name: fc2, expr: \"Y[t,e] += R[t,f] * W2[f,e]\"}\n";
  const std::string softmax = "name: att3\ndims: {m: 512, k: 32, l: 256, n: 48, e: 32}\nops:\n"
                              "  - {name: qk, expr: \"S[m,l] += Q[m,k] * K[k,l]\"}\n"
                              "  - {name: max, expr: \"X[m] max= S[m,l]\"}\n"
                              "  - {name: sub, expr: \"D[m,l] = S[m,l] - X[m]\"}\n"
                              "  - {name: av, expr: \"O[m,n] += D[m,l] * V[l,n]\"}\n"
                              "  - {name: out, expr: \"P[m,e] += O[m,n] * W[n,e]\"}\n";
  for (const std::string& text : {relu, softmax}) {
    model::Workload w = model::load_workload_from_string(text, "chain");
    SCOPED_TRACE(w.name);
    auto best = solve_gemm_chain(a, w);
    ASSERT_TRUE(best.has_value());
    EXPECT_EQ(best->gemms, 3);
    const auto& buf = a.levels[static_cast<size_t>(best->buffer_level)];
    auto name = [&](int tensor) { return w.tensors[static_cast<size_t>(tensor)].name; };
    const int64_t rows = w.dims[0].size / a.cores;  // the cores split m (no batch)
    const int64_t l1 = w.dims[2].size;  // the first GEMM's output dim (h, l) is the third in both
    int fitting = 0, too_big = 0;
    for (int64_t tm : divisors(rows))
      for (int64_t tl : divisors(l1)) {
        auto s = gemm_chain_with_tiles(a, w, tm, tl);
        if (w.name == "att3" && tl != l1) {
          EXPECT_FALSE(s.has_value());
          continue;
        }
        ASSERT_TRUE(s.has_value()) << tm << " " << tl;
        model::Report r = model::analyze(a, w, model::load_dataflow_from_string(s->flow_yaml, "chain", a, w));
        int64_t moved = dram(r, name(w.ops[0].inputs[0].tensor), true) + dram(r, name(w.ops.back().out.tensor), false);
        for (const model::Op& op : w.ops)
          if (op.unit == arch::UnitKind::Matrix) moved += dram(r, name(op.inputs[1].tensor), true);
        EXPECT_EQ(static_cast<double>(moved), s->predicted_dram_elems) << tm << " " << tl;
        const bool fits = s->footprint_elems * buf.word_bytes <= buf.capacity_bytes;
        EXPECT_LE(static_cast<double>(r.levels[static_cast<size_t>(best->buffer_level)].peak_bytes),
                  s->footprint_elems * buf.word_bytes) << tm << " " << tl;
        if (fits) {
          EXPECT_GE(s->predicted_dram_elems, best->predicted_dram_elems) << tm << " " << tl;
        }
        ++(fits ? fitting : too_big);
      }
    // The buffer binds: some tiles do not fit, and the solver's are among those that do.
    EXPECT_GT(fitting, 0);
    EXPECT_GT(too_big, 0);
    EXPECT_LE(best->footprint_elems * buf.word_bytes, buf.capacity_bytes);
  }
}

TEST(ChainSolver, SpreadsASingleBatchChainOverEveryCore) {
  model::Workload w = model::load_workload(test::config("workloads/gemm_chain_g10.yaml"));
  for (const char* name : {"edge", "cloud", "tpu_like"}) {
    SCOPED_TRACE(name);
    arch::Arch a = arch::load_arch(test::config(std::string("arch/") + name + ".yaml"));
    ASSERT_GT(a.cores, 1);
    auto s = solve_gemm_chain(a, w);
    ASSERT_TRUE(s.has_value());
    EXPECT_EQ(w.dims[static_cast<size_t>(s->core_dim)].name, "m");
    model::Report r = model::analyze(a, w, model::load_dataflow_from_string(s->flow_yaml, "chain", a, w));
    ASSERT_TRUE(r.valid) << r.reason << "\n" << s->flow_yaml;
    const int64_t per_array = a.unit(arch::UnitKind::Matrix)->pes_per_instance;
    // Every core's array busy, and on the cloud more than one array per core.
    EXPECT_GE(r.matrix_pes_used, a.cores * per_array) << s->flow_yaml;
    if (a.sub_cores > 1) {
      EXPECT_GT(r.matrix_pes_used, a.cores * per_array) << s->flow_yaml;
    }
  }
}

TEST(ChainSolver, OnlyForGemmChains) {
  arch::Arch a = arch::load_arch(test::config("arch/edge.yaml"));
  EXPECT_FALSE(solve_gemm_chain(a, model::load_workload(test::config("workloads/conv_chain_c1.yaml"))).has_value());
  // A softmax between the GEMMs reduces rows over l: whole rows (T_L = L).
  auto attention = solve_gemm_chain(a, model::load_workload(test::config("workloads/attention_g1.yaml")));
  ASSERT_TRUE(attention.has_value());
  EXPECT_EQ(attention->tl, 512);
  // Ops between that reduce over m (a column's max), or make something no later op reads, are
  // not the chain's.
  const std::string gemms = "name: g\ndims: {m: 64, k: 32, l: 64, n: 32}\nops:\n"
                            "  - {name: g1, expr: \"C[m,l] += A[m,k] * B[k,l]\"}\n";
  const std::string g2 = "  - {name: g2, expr: \"E[m,n] += P[m,l] * D[l,n]\"}\n";
  for (const std::string& between : {std::string("  - {name: mx, expr: \"X[l] max= C[m,l]\"}\n"
                                                 "  - {name: sub, expr: \"P[m,l] = C[m,l] - X[l]\"}\n"),
                                     std::string("  - {name: mx, expr: \"X[m] max= C[m,l]\"}\n"
                                                 "  - {name: ex, expr: \"P[m,l] = exp(C[m,l])\"}\n")}) {
    SCOPED_TRACE(between);
    EXPECT_FALSE(solve_gemm_chain(a, model::load_workload_from_string(gemms + between + g2, "chain")).has_value());
  }
  // A third GEMM whose left operand comes from outside starts no chain of its own.
  const std::string third = "  - {name: g2, expr: \"E[m,n] += C[m,l] * D[l,n]\"}\n"
                            "  - {name: g3, expr: \"F[m,p] += G[m,n] * H[n,p]\"}\n";
  EXPECT_FALSE(solve_gemm_chain(a, model::load_workload_from_string(
                                       "name: g\ndims: {m: 64, k: 32, l: 64, n: 32, p: 16}\nops:\n"
                                       "  - {name: g1, expr: \"C[m,l] += A[m,k] * B[k,l]\"}\n" + third, "chain"))
                   .has_value());
  // Role-split buffers (ascend_like: L0A/L0B/L0C for the cube, UB for the vector unit) hold no chain whole.
  arch::Arch ascend = arch::load_arch(test::config("arch/ascend_like.yaml"));
  EXPECT_FALSE(solve_gemm_chain(ascend, model::load_workload(test::config("workloads/attention_g8.yaml"))).has_value());
}


}  // namespace
}  // namespace dfx::mapper

#include "mapper/mcts.h"

namespace dfx::mapper {
namespace {

TEST(Mcts, ReachesTheBestTilingOfAStructure) {
  arch::Arch a = arch::load_arch_from_string(kTinyArch, "tiny");
  model::Workload w = model::load_workload_from_string(
      "name: g\ndims: {m: 2, k: 2, l: 4, n: 2}\nops:\n  - {name: g1, expr: \"C[m,l] += A[m,k] * B[k,l]\"}\n"
      "  - {name: g2, expr: \"E[m,n] += C[m,l] * D[l,n]\"}\n", "w");
  Space space(a, w);
  for (const Baseline& b : space.baselines()) {
    SCOPED_TRACE(b.name);
    auto cost = [&](const Choice& c) {
      model::Dataflow f = space.build(c, "c");
      model::check_dataflow(f, a, w);
      model::Report r = model::analyze(a, w, f);
      return r.valid ? r.cycles : INFINITY;
    };
    // Every tiling of the structure, by walking all decisions.
    double optimum = INFINITY;
    int64_t points = 0;
    const size_t steps = space.tiling_steps(b.structure);
    std::function<void(const Choice&, size_t)> all = [&](const Choice& c, size_t step) {
      if (step == steps) {
        ++points, optimum = std::min(optimum, cost(c));
        return;
      }
      for (const Choice& next : space.tiling_options(c, step)) all(next, step + 1);
    };
    all(space.tiling_start(b.structure), 0);
    dfx::mapper::Rng rng(5);
    double found = 0;
    auto costs = [&](const std::vector<Choice>& batch) {
      std::vector<double> out;
      for (const Choice& c : batch) out.push_back(cost(c));
      return out;
    };
    Choice best = mcts_tiling(space, b.structure, std::max<int64_t>(60, points / 2), 16, rng, costs, found);
    EXPECT_EQ(found, optimum) << points << " tilings";
    EXPECT_EQ(cost(best), found);
  }
}

}  // namespace
}  // namespace dfx::mapper

namespace dfx::mapper {
namespace {

// Replayed steps (model/walk_replay.h) and buffers held as boxes (model/held.h) leave every analysis
// as the full walk finds it, so a search takes the same path with and without them, analysis for
// analysis. The searches' trees nest loops more deeply than the property tier's random ones and
// cover the archs timed by instructions, whose replays carry the pipeline's last load and store.
void expect_same_search(bool SearchOptions::*shortcut) {
  const std::pair<const char*, const char*> cases[] = {
      {"tpu_like", "cosim/gemm_chain_s2"}, {"tpu_like", "cosim/attention_s2"}, {"edge", "attention_g1"},
      {"cloud", "conv_chain_c1"}, {"ascend_like", "attention_g1"}};
  for (const auto& [arch_name, workload] : cases) {
    const arch::Arch a = arch::load_arch(test::config(std::string("arch/") + arch_name + ".yaml"));
    const model::Workload w = model::load_workload(test::config(std::string("workloads/") + workload + ".yaml"));
    for (uint64_t seed : {1, 2}) {
      SearchOptions o;
      o.evaluations = 600;
      o.seed = seed;
      o.top = 16;
      const Outcome with = explore(a, w, o);
      o.*shortcut = false;
      const Outcome without = explore(a, w, o);
      const std::string where = std::string(arch_name) + " " + workload + " seed " + std::to_string(seed);
      EXPECT_EQ(with.analyses, without.analyses) << where;
      ASSERT_EQ(with.best.size(), without.best.size()) << where;
      for (size_t i = 0; i < with.best.size(); ++i) {
        EXPECT_EQ(with.best[i].flow_yaml, without.best[i].flow_yaml) << where;
        EXPECT_EQ(with.best[i].report.cycles, without.best[i].report.cycles) << where;
        EXPECT_EQ(with.best[i].report.dram_bytes, without.best[i].report.dram_bytes) << where;
      }
      ASSERT_EQ(with.baselines.size(), without.baselines.size()) << where;
      for (size_t i = 0; i < with.baselines.size(); ++i) {
        EXPECT_EQ(with.baselines[i].flow_yaml, without.baselines[i].flow_yaml) << where;
        EXPECT_EQ(with.baselines[i].report.cycles, without.baselines[i].report.cycles) << where;
      }
      EXPECT_EQ(with.convergence, without.convergence) << where;
    }
  }
}

TEST(ReplayedStepsSearch, FindsTheSameWithAndWithout) { expect_same_search(&SearchOptions::replay_steps); }
TEST(BoxesSearch, FindsTheSameWithAndWithout) { expect_same_search(&SearchOptions::boxes); }

}  // namespace
}  // namespace dfx::mapper
