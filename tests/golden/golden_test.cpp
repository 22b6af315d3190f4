// Golden tier: shipped configs against stored numbers, and the model against RTL measurements.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "mapper/lower.h"
#include "model/analyze.h"
#include "model/placement.h"
#include "model/walk.h"
#include "sim/simulator.h"
#include "tools/validation_cases.h"

namespace dfx {
namespace {

struct Shipped {
  const char* arch;
  const char* workload;
  const char* flow;
};

const Shipped kShipped[] = {
    {"edge", "attention_g1", "attention_g1_edge_layerwise"},
    {"edge", "attention_g1", "attention_g1_edge_fused_pipe"},
    {"edge", "gemm_chain_g1", "gemm_chain_g1_edge_fused"},
    {"edge", "attention_g1", "attention_g1_edge_explored"},
    {"edge", "conv_chain_c1", "conv_chain_c1_edge_explored"},
    {"tpu_like", "attention_g1", "attention_g1_tpu_like_explored"},
    {"tpu_like", "gemm_chain_g1", "gemm_chain_g1_tpu_like_explored"},
    {"tpu_like", "conv_chain_c1", "conv_chain_c1_tpu_like_explored"},
    {"ascend_like", "attention_g1", "attention_g1_ascend_fused"},
    {"ascend_like", "gemm_chain_g1", "gemm_chain_g1_ascend_fused"},
    {"ascend_like", "conv_chain_c1", "conv_chain_c1_ascend"},
    {"ascend_like", "attention_g2", "attention_g2_ascend_explored"},
    {"edge", "gemm_chain_g1", "gemm_chain_g1_edge_own_loops"},  // ops with loops of their own at DRAM
    {"tileflow_validation", "fused_gemm_validation", "validation_fused_gemm"},
};

std::string config(const std::string& rel) { return std::string(DFX_CONFIG_DIR) + "/" + rel; }

struct Loaded {
  arch::Arch a;
  model::Workload w;
  model::Dataflow f;
};

Loaded load(const Shipped& s) {
  Loaded l{arch::load_arch(config(std::string("arch/") + s.arch + ".yaml")),
           model::load_workload(config(std::string("workloads/") + s.workload + ".yaml")), {}};
  l.f = model::load_dataflow(config(std::string("dataflows/") + s.flow + ".yaml"), l.a, l.w);
  return l;
}

// Every figure a user reads, as "flow metric value" lines.
std::map<std::string, std::string> figures() {
  std::map<std::string, std::string> out;
  for (const Shipped& s : kShipped) {
    const Loaded shipped = load(s);
    const arch::Arch& a = shipped.a;
    const model::Workload& w = shipped.w;
    const model::Dataflow& f = shipped.f;
    model::Report r = model::analyze(a, w, f);
    auto put = [&](const std::string& metric, double v) {
      std::ostringstream os;
      os.precision(12);
      os << v;
      out[std::string(s.flow) + " " + metric] = os.str();
    };
    put("valid", r.valid);
    put("cycles", r.cycles);
    put("energy_pj", r.energy_pj);
    put("macs", static_cast<double>(r.macs));
    put("vector_ops", static_cast<double>(r.vector_ops));
    put("dram_bytes", static_cast<double>(r.dram_bytes));
    for (const auto& l : r.levels) {
      put(l.name + ".fill", static_cast<double>(l.traffic.fill));
      put(l.name + ".read", static_cast<double>(l.traffic.read));
      put(l.name + ".update", static_cast<double>(l.traffic.update));
      put(l.name + ".peak_bytes", static_cast<double>(l.peak_bytes));
    }
    for (const auto& o : r.ops) {
      put("op." + o.name + ".work", static_cast<double>(o.work));
      put("op." + o.name + ".instances", static_cast<double>(o.instances));
      if (o.own_cycles) put("op." + o.name + ".own_cycles", *o.own_cycles);
    }
    if (std::string(s.arch) == "tileflow_validation") continue;
    // The lowered programs on the simulator: cycles and bytes per path (timing only: the data
    // are random but do not change it).
    const auto low = mapper::lower(a, w, f, arch::DType::Int16);
    const sim::SimResult run = sim::simulate(a, low.programs, {}, sim::SimOptions{}, s.flow);
    put("sim.cycles", static_cast<double>(run.cycles));
    for (const auto& p : run.paths)
      put("sim." + a.levels[static_cast<size_t>(p.from)].name + "->" + a.levels[static_cast<size_t>(p.to)].name, static_cast<double>(p.bytes));
  }
  return out;
}

TEST(Golden, ShippedDataflowsMatchStoredFigures) {
  const std::string path = std::string(DFX_TEST_DATA) + "/golden/shipped.txt";
  std::map<std::string, std::string> now = figures();
  if (std::getenv("DFX_BLESS")) {
    std::ofstream out(path);
    for (const auto& [k, v] : now) out << k << ' ' << v << '\n';
    GTEST_SKIP() << "blessed " << now.size() << " figures into " << path;
  }
  std::ifstream in(path);
  ASSERT_TRUE(in) << path << " is missing: run with DFX_BLESS=1 once";
  std::map<std::string, std::string> stored;
  std::string flow, metric, value;
  while (in >> flow >> metric >> value) stored[flow + " " + metric] = value;
  EXPECT_EQ(stored.size(), now.size());
  for (const auto& [k, v] : now) {
    auto it = stored.find(k);
    ASSERT_NE(it, stored.end()) << "no stored figure for " << k;
    EXPECT_EQ(it->second, v) << k << " (now " << v << ", stored " << it->second << ")";
  }
}

// On the presets timed by instructions, the data the model moves into each level a program
// addresses — fills, write-backs from inside, transfers staged through it (LevelReport: fill +
// update - unit_updates) — and DRAM's reads and writes are what the lowered programs move on
// the simulator, byte for byte. Before 2026-11-25 the model staged ascend_like's L0C -> L1
// transfers through GM (the level tree's common ancestor; the programs go through UB): 13.6 MB
// of DRAM traffic for the fused GEMM chain where the programs move 5.2 MB. Conv C1 on tpu_like
// is left out: its lowering reloads the windows' overlap (2.3% more DRAM reads; docs/status.md).
// The shipped dataflows nest loops deeply (the random trees of the property tier seldom do):
// replaying representative steps (model/walk_replay.h) must leave every count and time as the
// full walk finds it, bit for bit, and skip work on most of them.
TEST(Golden, ReplayedStepsChangeNothingOnShippedDataflows) {
  int replaying = 0;
  for (const Shipped& s : kShipped) {
    const Loaded shipped = load(s);
    const arch::Arch& a = shipped.a;
    const model::Workload& w = shipped.w;
    const model::Dataflow& f = shipped.f;
    const model::Placement p = model::place(a, w, f);
    const model::WalkResult fast = model::walk_tree(a, w, f, p, nullptr, model::StepReplay::Worthwhile, model::HeldAs::Sets);
    const model::WalkResult walked = model::walk_tree(a, w, f, p, nullptr, model::StepReplay::Off, model::HeldAs::Sets);
    replaying += fast.replayed_steps > 0;
    EXPECT_EQ(fast.cycles, walked.cycles) << s.flow;
    EXPECT_EQ(fast.macs, walked.macs) << s.flow;
    EXPECT_EQ(fast.vector_ops, walked.vector_ops) << s.flow;
    EXPECT_EQ(fast.op_work, walked.op_work) << s.flow;
    EXPECT_EQ(fast.op_cycles, walked.op_cycles) << s.flow;
    EXPECT_EQ(fast.op_instruction_cycles, walked.op_instruction_cycles) << s.flow;
    EXPECT_EQ(fast.peak_elems, walked.peak_elems) << s.flow;
    EXPECT_EQ(fast.level_peak_elems, walked.level_peak_elems) << s.flow;
    EXPECT_EQ(fast.feed_reads, walked.feed_reads) << s.flow;
    EXPECT_EQ(fast.feed_updates, walked.feed_updates) << s.flow;
    for (size_t l = 0; l < fast.traffic.size(); ++l)
      for (size_t t = 0; t < fast.traffic[l].size(); ++t) EXPECT_TRUE(fast.traffic[l][t] == walked.traffic[l][t]) << s.flow;
  }
  EXPECT_GE(replaying, 8);  // of the 14 shipped dataflows
}

TEST(Golden, ModelMovesWhatTheProgramsMove) {
  const Shipped exact[] = {
      {"tpu_like", "attention_g1", "attention_g1_tpu_like_explored"},
      {"tpu_like", "gemm_chain_g1", "gemm_chain_g1_tpu_like_explored"},
      {"ascend_like", "attention_g1", "attention_g1_ascend_fused"},
      {"ascend_like", "gemm_chain_g1", "gemm_chain_g1_ascend_fused"},
      {"ascend_like", "conv_chain_c1", "conv_chain_c1_ascend"},
      {"ascend_like", "attention_g2", "attention_g2_ascend_explored"},
  };
  for (const Shipped& s : exact) {
    SCOPED_TRACE(s.flow);
    const Loaded shipped = load(s);
    const arch::Arch& a = shipped.a;
    const model::Workload& w = shipped.w;
    const model::Dataflow& f = shipped.f;
    const model::Report r = model::analyze(a, w, f);
    ASSERT_TRUE(r.valid) << r.reason;
    const sim::SimResult run = sim::simulate(a, mapper::lower(a, w, f, arch::DType::Int16).programs, {}, sim::SimOptions{}, s.flow);
    std::vector<int64_t> in(a.levels.size(), 0), out(a.levels.size(), 0);
    for (const auto& p : run.paths) in[static_cast<size_t>(p.to)] += p.bytes, out[static_cast<size_t>(p.from)] += p.bytes;
    const model::LevelReport& dram = r.levels[0];
    EXPECT_EQ(dram.traffic.read * dram.word_bytes, out[0]);
    EXPECT_EQ(dram.traffic.update * dram.word_bytes, in[0]);
    int addressed = 0;
    for (size_t l = 1; l < a.levels.size(); ++l) {
      if (!a.addressable(static_cast<int>(l))) continue;
      const model::LevelReport& lv = r.levels[l];
      EXPECT_EQ((lv.traffic.fill + lv.traffic.update - lv.unit_updates) * lv.word_bytes, in[l]) << lv.name;
      addressed += in[l] > 0;
    }
    EXPECT_GT(addressed, 0);
  }
}

// ascend_like's fused attention hands S and P between the cube and the vector unit over the
// staging engines (fixpipe L0C -> UB, MTE3 UB -> L1, MTE1 L1 -> L0A) inside each body of its
// group's loop; the body uses the cube again after the vector unit, so its iterations do not
// overlap: the model puts those hand-overs on the chain (Time::staged), and holds the next
// body's loads behind the dispatcher even where the body holds loops. Before (2026-11-27), the
// shipped G1 tree read 16,950 cycles where its programs take 25,795 on the simulator (-34%; now
// 26,956), and the G2 tree the search picks 19,142 against 31,429 (-39%; now 30,364).
TEST(Golden, ModelTimesAttentionOnAscendWithinTenPercent) {
  for (const Shipped& s : {Shipped{"ascend_like", "attention_g1", "attention_g1_ascend_fused"},
                           Shipped{"ascend_like", "attention_g2", "attention_g2_ascend_explored"}}) {
    SCOPED_TRACE(s.flow);
    const Loaded shipped = load(s);
    const model::Report r = model::analyze(shipped.a, shipped.w, shipped.f);
    ASSERT_TRUE(r.valid) << r.reason;
    const sim::SimResult run =
        sim::simulate(shipped.a, mapper::lower(shipped.a, shipped.w, shipped.f, arch::DType::Fp16).programs, {}, sim::SimOptions{}, s.flow);
    const double simulated = static_cast<double>(run.cycles);
    EXPECT_NEAR(r.cycles, simulated, 0.10 * simulated);
  }
}

TEST(Golden, ModelAgreesWithTileFlowRtlMeasurements) {
  arch::Arch a = arch::load_arch(config("arch/tileflow_validation.yaml"));
  auto cases = validation::read_csv(std::string(DFX_TEST_DATA) + "/golden/tileflow_rtl_fused_gemm.csv");
  ASSERT_EQ(cases.size(), 66u);
  double cycle_error = 0;
  for (const auto& c : cases) {
    std::vector<double> model = validation::model_figures(a, c), rtl = validation::rtl_figures(c);
    // DRAM traffic follows from the loop nest alone: it must be exact.
    EXPECT_EQ(model[1], rtl[1]) << "case " << c.id << " DRAM→buffer";
    EXPECT_EQ(model[2], rtl[2]) << "case " << c.id << " buffer→DRAM";
    cycle_error += std::fabs(model[0] - rtl[0]) / rtl[0];
  }
  cycle_error /= static_cast<double>(cases.size());
  std::cout << "mean |cycle error| vs RTL: " << 100 * cycle_error << "%\n";
  // Measured 2.20% when this test was written; the paper's own model reached 5.4%.
  EXPECT_LT(cycle_error, 0.03);
}

}  // namespace
}  // namespace dfx
