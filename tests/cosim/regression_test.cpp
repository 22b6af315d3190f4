// The co-simulation regression: for small GEMMs, GEMM chains, attention with its softmax and
// conv chains, dataflows from the mapper (its best and its baselines; a different search seed
// and a different pick per case) are lowered to programs for the TPU-like chips (N = 16 with 4
// cores, N = 8 with 2) and run with seeded random data on the SystemC model and on the verilated
// RTL. Outputs must be bit-exact and cycles within 1% (issue 5's goal). Each case prints its
// figures.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <ostream>
#include <set>
#include <sstream>
#include <string>

#include "mapper/lower.h"
#include "mapper/search.h"
#include "tests/unit/test_util.h"
#include "rtl/harness.h"
#include "verify/cosim.h"

namespace dfx {
namespace {

struct Case {
  std::string arch, workload;
  uint64_t seed;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.workload << " on " << c.arch << " seed " << c.seed; }

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return info.param.workload + "_" + info.param.arch + "_seed" + std::to_string(info.param.seed);
}

// The programs without their comments (which name the dataflow).
std::string program_text(const arch::Arch& a, const std::vector<arch::Program>& programs) {
  std::string text;
  for (const arch::Program& p : programs) {
    std::istringstream in(arch::print_program(p, a));
    for (std::string line; std::getline(in, line);)
      if (line.empty() || line[0] != '#') text += line + '\n';
  }
  return text;
}

// Case `seed` takes the seed-th distinct program (cycling) among the search's best dataflows
// and then its baselines, every one that lowers, so that the cases cover different tilings and
// fusions and not only the single best.
mapper::Lowered lowered_pick(const arch::Arch& a, const model::Workload& w, uint64_t seed) {
  mapper::SearchOptions so;
  so.seed = seed;
  so.evaluations = 600;
  so.top = 16;
  so.lowering = arch::DType::Int16;  // the best that lowers (non-divisor factors do not)
  const mapper::Outcome out = mapper::explore(a, w, so);
  std::vector<mapper::Candidate> candidates = out.best;
  candidates.insert(candidates.end(), out.baselines.begin(), out.baselines.end());
  std::vector<mapper::Lowered> distinct;
  std::set<std::string> seen;
  for (const mapper::Candidate& c : candidates) {
    try {
      const model::Dataflow f = model::load_dataflow_from_string(c.flow_yaml, c.name, a, w);
      mapper::Lowered l = mapper::lower(a, w, f, arch::DType::Int16);
      if (seen.insert(program_text(a, l.programs)).second) distinct.push_back(std::move(l));
    } catch (const InputError&) {
      continue;  // needs what the lowering cannot express
    }
  }
  if (distinct.empty()) {
    ADD_FAILURE() << "none of the " << out.best.size() << " best dataflows and " << out.baselines.size() << " baselines lowers";
    return {};
  }
  return distinct[(seed - 1) % distinct.size()];
}

class RtlRegression : public ::testing::TestWithParam<Case> {};

TEST_P(RtlRegression, OutputsBitExactAndCyclesWithinOnePercent) {
  const Case& k = GetParam();
  const arch::Arch a = arch::load_arch(test::config("arch/" + k.arch + ".yaml"));
  const model::Workload w = model::load_workload(test::config("workloads/cosim/" + k.workload + ".yaml"));
  const mapper::Lowered l = lowered_pick(a, w, k.seed);
  ASSERT_FALSE(l.programs.empty());
  sim::SimOptions options;
  options.seed = k.seed;
  const verify::Cosim c = verify::cosim(a, l.programs, {}, options, {}, k.workload);
  EXPECT_EQ(c.first_difference, "");
  EXPECT_LE(std::fabs(c.cycle_error()), 0.01) << verify::cosim_table(c);
  // Each unit is occupied as long on both, within the same 1% of the run (the table sets them
  // side by side: SystemC's busy alone was a fifth of a DMA engine's RTL figure).
  for (size_t core = 0; core < c.rtl.cores.size(); ++core)
    for (size_t p = 0; p < rtl::kUnitPipes.size(); ++p)
      EXPECT_LE(std::abs(c.systemc_occupied(core, p) - c.rtl.cores[core].busy[p]), c.rtl.cycles / 100 + 1)
          << "core " << core << " " << arch::pipe_name(rtl::kUnitPipes[p]) << "\n" << verify::cosim_table(c);
  std::printf("cosim %-14s %-16s seed %llu: %zu cores, SystemC %lld, RTL %lld cycles (%+.3f%%), RTL %.0f cycles/s\n", k.arch.c_str(), k.workload.c_str(),
              static_cast<unsigned long long>(k.seed), l.programs.size(), static_cast<long long>(c.sim.cycles),
              static_cast<long long>(c.rtl.cycles), 100.0 * c.cycle_error(),
              c.rtl.seconds > 0 ? static_cast<double>(c.rtl.cycles) / c.rtl.seconds : 0.0);
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const char* w : {"gemm_s1", "gemm_chain_s1", "gemm_chain_s2", "attention_s1", "attention_s2"})
    for (uint64_t seed : {1, 2, 3, 4}) out.push_back({"tpu_like", w, seed});
  for (uint64_t seed : {2, 3, 5, 7}) out.push_back({"tpu_like", "conv_chain_s1", seed});
  // The second build: an 8×8 array, 16 lanes, 2 cores.
  for (const char* w : {"gemm_s1", "gemm_chain_s1", "attention_s1", "attention_s2"})
    for (uint64_t seed : {1, 2}) out.push_back({"tpu_like_small", w, seed});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Lowered, RtlRegression, ::testing::ValuesIn(cases()), case_name);

// The VCD is timed in picoseconds at the arch's clock (tpu_like: 400 MHz, a half period of
// 1,250 ps), and --trace-depth keeps the levels of the hierarchy asked for: at 1 the chip's
// ports alone, a small part of the whole. Progress is reported on the way.
TEST(RtlTrace, TimedAtTheArchsClockAndCutToADepth) {
  const arch::Arch a = arch::load_arch(test::config("arch/tpu_like.yaml"));
  const arch::Program p = arch::load_program(test::config("programs/tpu_like_gemm.s"), a);
  sim::TensorValues inputs;
  for (const arch::TensorDecl& t : p.tensors)
    if (!t.output) inputs[t.name] = std::vector<double>(static_cast<size_t>(t.at.sizes[0] * t.at.sizes[1]), 1.0);
  auto traced = [&](int depth, std::string& text) {
    rtl::RtlOptions o;
    o.trace_file = ::testing::TempDir() + "/dfx_trace_" + std::to_string(depth) + ".vcd";
    o.trace_depth = depth;
    o.progress_every = 100;
    int64_t reports = 0;
    o.progress = [&](int64_t, int64_t) { ++reports; };
    const rtl::RtlResult r = rtl::run(a, {p}, inputs, o, "tpu_like_gemm.s");
    std::ifstream in(o.trace_file);
    std::stringstream ss;
    ss << in.rdbuf();
    text = ss.str();
    std::remove(o.trace_file.c_str());
    EXPECT_EQ(reports, r.cycles / 100);
    return r;
  };
  std::string all, ports;
  const rtl::RtlResult whole = traced(99, all);
  ASSERT_GE(whole.cycles, 1000);
  traced(1, ports);
  EXPECT_NE(all.find("$timescale 1ps $end"), std::string::npos);
  EXPECT_NE(all.find("\n#1250\n"), std::string::npos);
  EXPECT_NE(all.find("\n#2500\n"), std::string::npos);
  // Time 0 is the start (reset and the program load untraced): the run's last cycle, cycle
  // `cycles`, begins at cycles periods, and its high phase is the trace's last time.
  EXPECT_EQ(all.substr(all.rfind("\n#") + 2, all.find('\n', all.rfind("\n#") + 1) - all.rfind("\n#") - 2),
            std::to_string(2500 * whole.cycles + 1250));
  EXPECT_NE(all.find("g_core"), std::string::npos);
  EXPECT_EQ(ports.find("g_core"), std::string::npos) << "depth 1: the chip's ports only";
  EXPECT_LT(ports.size() * 10, all.size());
}

}  // namespace
}  // namespace dfx
