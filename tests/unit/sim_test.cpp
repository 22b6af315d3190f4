// The SystemC model: timings with known answers, real data against Eigen references, deadlocks.
#include <gtest/gtest.h>

#include <Eigen/Dense>

#include "arch/isa.h"
#include "sim/simulator.h"
#include "sim/level_ports.h"
#include "sim/timing.h"
#include "sim/values.h"
#include "tests/unit/test_util.h"

namespace dfx::sim {
namespace {

// Two cores; DRAM 8 B/cycle with 10 cycles latency; SPM 16 B/cycle; a 4×4 array; 8 lanes. Both
// levels have row ports, as the TPU-like RTL (one row piece per access).
const char* kArch = R"(
name: tiny
cores: 2
compute:
  matrix: {rows: 4, cols: 4, per: core}
  vector: {lanes: 8, per: core}
levels:
  - {name: DRAM, capacity: unlimited, read_bw: 8, write_bw: 8, latency: 10, port: row, per: chip}
  - {name: SPM, capacity: 64 KiB, read_bw: 16, write_bw: 16, port: row, per: core}
)";

class Sim : public ::testing::Test {
 protected:
  arch::Arch a = arch::load_arch_from_string(kArch, "tiny.yaml");
  arch::Program program(const std::string& text) {
    arch::Program p = arch::parse_program(text, "p.s", a);
    arch::check_program(p, a, "p.s");
    return p;
  }
  SimResult run(const std::vector<std::string>& texts, const TensorValues& in = {}) {
    std::vector<arch::Program> ps;
    for (const auto& t : texts) ps.push_back(program(t));
    return simulate(a, ps, in, SimOptions{}, "p.s");
  }
};

// Row-major values of a tensor as an Eigen matrix.
Eigen::MatrixXd matrix(const std::vector<double>& v, Eigen::Index rows, Eigen::Index cols) {
  return Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(v.data(), rows, cols);
}

TEST_F(Sim, OneTransferIsLatencyPlusSegmentsPlusOne) {
  // 100 elements at 8 B/cycle (4 words): 25 requests, the last one's data 10 cycles later,
  // written the cycle after: 10 + 25 + 1. Dispatched in cycle 1, issued in cycle 2.
  SimResult r = run({"dma SPM[0 : 100 / 1] <- DRAM[0 : 100 / 1]\nhalt\n"});
  EXPECT_EQ(r.cores[0].pipes[0].busy, 10 + 25 + 1);
  EXPECT_EQ(r.cycles, 1 + kIssueCycles + 10 + 25 + 1);
  // 101 elements: ⌈101 / 4⌉ = 26 requests.
  r = run({"dma SPM[0 : 101 / 1] <- DRAM[0 : 101 / 1]\nhalt\n"});
  EXPECT_EQ(r.cores[0].pipes[0].busy, 10 + 26 + 1);
  ASSERT_EQ(r.paths.size(), 1u);
  EXPECT_EQ(r.paths[0].bytes, 202);
  // On-chip: no latency, 16 B/cycle = 8 words.
  EXPECT_EQ(dma_cycles(a, arch::parse_program("dma SPM[0 : 64 / 1] <- SPM[100 : 64 / 1]\n", "p.s", a).code[0]), 8 + 1);
  // A piece never crosses a row: 10 rows of 6 take 2 pieces each (not ⌈60 / 4⌉ = 15).
  EXPECT_EQ(dma_cycles(a, arch::parse_program("dma SPM[0 : 10x6 / 6,1] <- DRAM[0 : 10x6 / 8,1]\n", "p.s", a).code[0]),
            10 + 20 + 1);
  // With streaming ports (the default) the shape does not matter: ⌈120 B / 8⌉.
  arch::Arch streaming = a;
  for (auto& lv : streaming.levels) lv.row_port = false;
  EXPECT_EQ(dma_cycles(streaming, arch::parse_program("dma SPM[0 : 10x6 / 6,1] <- DRAM[0 : 10x6 / 8,1]\n", "p.s", a).code[0]),
            10 + 15 + 1);
  // Blocks of different shapes: pieces end wherever either block's row ends (rows of 6 and 4).
  arch::MemRef six, four;
  six.sizes = {4, 6}, six.strides = {6, 1};
  four.sizes = {6, 4}, four.strides = {4, 1};
  EXPECT_EQ(row_segments({&six, &four}, 4), 8);  // per 12 elements: pieces of 4, 2, 2, 4
}

TEST_F(Sim, OneMatrixTileIsKPlusFillAndDrain) {
  // One 4×4 block with k = 9: k operands, then R + C for the skew in and the drain out.
  SimResult r = run({"mma SPM[0 : 4x4 / 4,1] = SPM[100 : 4x9 / 9,1] * SPM[200 : 9x4 / 4,1]\nhalt\n"});
  EXPECT_EQ(r.cores[0].pipes[1].busy, 9 + 4 + 4);
  // An 8×6 output needs 2 × 2 blocks; they pipeline: 4 × k, one fill and drain.
  EXPECT_EQ(mma_cycles(*a.unit(arch::UnitKind::Matrix), 8, 6, 9), 4 * 9 + 8);
  // With k below the array's height, draining a block (4 rows) is what limits.
  EXPECT_EQ(mma_cycles(*a.unit(arch::UnitKind::Matrix), 8, 6, 2), 4 * 4 + 8);
}

TEST_F(Sim, TwoCoresSharingDramHalveTheBandwidth) {
  const std::string big = "dma SPM[0 : 4000 / 1] <- DRAM[0 : 4000 / 1]\nhalt\n";  // 1000 requests alone
  const int64_t alone = run({big}).cores[0].pipes[0].busy;
  EXPECT_EQ(alone, 10 + 1000 + 1);
  SimResult both = run({big, big});
  for (const CoreStats& c : both.cores) {
    const int64_t took = c.pipes[0].busy + c.pipes[0].wait_memory;
    // Requests alternate between the cores: the last ones are granted in cycles 1998 and 1999.
    EXPECT_NEAR(static_cast<double>(took), 10 + 2000 + 1, 1) << "each core gets half the port";
    EXPECT_GT(c.pipes[0].wait_memory, 900);
  }
}

TEST_F(Sim, ShippedGemmEqualsEigenExactly) {
  arch::Arch tpu = arch::load_arch(test::config("arch/tpu_like.yaml"));
  arch::Program p = arch::load_program(test::config("programs/tpu_like_gemm.s"), tpu);
  for (uint64_t seed : {1, 2, 3}) {
    SimOptions o;
    o.seed = seed;
    SimResult r = simulate(tpu, {p}, {}, o, "gemm");
    const Eigen::MatrixXd ref = matrix(r.inputs.at("A"), 32, 256) * matrix(r.inputs.at("B"), 256, 32);
    EXPECT_EQ(matrix(r.outputs.at("C"), 32, 32), ref) << "seed " << seed;
    EXPECT_GT(ref.cwiseAbs().maxCoeff(), 0);
  }
}

TEST_F(Sim, ShippedSoftmaxIsCloseToEigenInFp16) {
  arch::Arch asc = arch::load_arch(test::config("arch/ascend_like.yaml"));
  arch::Program p = arch::load_program(test::config("programs/ascend_like_softmax_row.s"), asc);
  ASSERT_EQ(p.dtype, arch::DType::Fp16);
  SimResult r = simulate(asc, {p}, {}, SimOptions{}, "softmax");
  const Eigen::MatrixXd s = matrix(r.inputs.at("S"), 16, 64);
  Eigen::MatrixXd ref = (s.colwise() - s.rowwise().maxCoeff()).array().exp().matrix();
  ref = ref.array().colwise() / ref.rowwise().sum().array();
  const double err = (matrix(r.outputs.at("P"), 16, 64) - ref).cwiseAbs().maxCoeff();
  EXPECT_LT(err, 2e-3) << "fp16 keeps ~3 significant digits";
  EXPECT_GT(err, 0) << "fp16 rounding is visible: the data really went through fp16";
}

TEST_F(Sim, GivenInputsAreUsedAndCheckedForSize) {
  const std::string text = ".input X DRAM[0 : 4 / 1]\n.output Y DRAM[8 : 4 / 1]\n"
                           "dma SPM[0 : 4 / 1] <- DRAM[0 : 4 / 1]\nset_flag dma -> vector 0\nwait_flag dma -> vector 0\n"
                           "vec.add SPM[8 : 4 / 1] <- SPM[0 : 4 / 1], SPM[0 : 4 / 1]\nset_flag vector -> dma 1\n"
                           "wait_flag vector -> dma 1\ndma DRAM[8 : 4 / 1] <- SPM[8 : 4 / 1]\nhalt\n";
  SimResult r = run({text}, {{"X", {1, -2, 3, 40000}}});
  // int16 storage wraps 40000 to −25536; vector results keep 32 bits.
  EXPECT_EQ(r.outputs.at("Y"), (std::vector<double>{2, -4, 6, -51072}));
  const std::string err = test::input_error([&] { run({text}, {{"X", {1, 2}}}); });
  EXPECT_NE(err.find("p.s:1:"), std::string::npos) << err;
  EXPECT_NE(err.find("input 'X' needs 4 values, got 2"), std::string::npos) << err;
}

TEST_F(Sim, DeadlockSaysWhoWaitsOnWhat) {
  // The matrix pipe waits for a flag the dma pipe sets only after waiting for the matrix pipe.
  const std::string text = "wait_flag matrix -> dma 1\nset_flag dma -> matrix 0\n"
                           "wait_flag dma -> matrix 0\nset_flag matrix -> dma 1\nhalt\n";
  const std::string err = test::input_error([&] { run({text}); });
  EXPECT_NE(err.find("p.s:1:"), std::string::npos) << err;
  EXPECT_NE(err.find("deadlock: core 0: the dma pipe waits for flag matrix -> dma 1"), std::string::npos) << err;
  EXPECT_NE(err.find("p.s:3:"), std::string::npos) << err;
  EXPECT_NE(err.find("the matrix pipe waits for flag dma -> matrix 0"), std::string::npos) << err;
  // The process can run again afterwards.
  EXPECT_EQ(run({"dma SPM[0 : 100 / 1] <- DRAM[0 : 100 / 1]\nhalt\n"}).cycles, 1 + kIssueCycles + 36);
}

TEST_F(Sim, FlagsInsideLoopsLetTheDmaRunAhead) {
  // Eight iterations: a dma of 32 elements (8 requests + 10 latency + 1), then a vector op of
  // 32 elements (4 pieces of 8 lanes + depth 12 + 1). With flags as counters the dma never
  // waits for the vector pipe: the loop and the first dma dispatch in cycles 1 and 2, then 8
  // iterations of issue + transfer + set_flag on the dma pipe, then the vector pipe's last wait,
  // issue and op.
  const std::string text = "loop 8\n dma SPM[0 +32*i0 : 32 / 1] <- DRAM[0 +32*i0 : 32 / 1]\n set_flag dma -> vector 0\n"
                           " wait_flag dma -> vector 0\n vec.exp SPM[1024 +32*i0 : 32 / 1] <- SPM[0 +32*i0 : 32 / 1]\nendloop\nhalt\n";
  SimResult r = run({text});
  EXPECT_EQ(r.cores[0].pipes[0].wait_flag, 0);
  EXPECT_EQ(r.cores[0].pipes[2].instructions, 16);  // 8 waits + 8 ops
  const arch::Program p = program(text);
  const int64_t dma = dma_cycles(a, p.code[1]), vec = vec_cycles(a, *a.unit(arch::UnitKind::Vector), p.code[4]);
  EXPECT_EQ(dma, 8 + 10 + 1);
  EXPECT_EQ(vec, 4 + 12 + 1);
  EXPECT_EQ(r.cycles, 2 + 8 * (kIssueCycles + dma + 1) + 1 + kIssueCycles + vec);
}

TEST_F(Sim, BarrierWaitsForEveryCoreAndItsOwnPipes) {
  // Core 0 moves 4000 elements (10 + 1000 + 1 cycles) before its barrier; core 1 waits there.
  SimResult r = run({"dma SPM[0 : 4000 / 1] <- DRAM[0 : 4000 / 1]\nbarrier\nhalt\n",
                     "barrier\ndma SPM[0 : 4 / 1] <- DRAM[8000 : 4 / 1]\nhalt\n"});
  // Released when core 0's transfer ends (dispatch, issue, 1011 cycles); core 1 then dispatches
  // and issues its own small transfer (10 + 1 + 1).
  EXPECT_EQ(r.cores[1].cycles, 1 + kIssueCycles + 1011 + 1 + kIssueCycles + 10 + 1 + 1);
  EXPECT_GE(r.cores[1].pipes[3].wait_flag, 1000);
  // A barrier another core never reaches is a deadlock, not a hang.
  const std::string err = test::input_error([&] { run({"barrier\nhalt\n", "halt\n"}); });
  EXPECT_NE(err.find("p.s:1:1: deadlock: core 0: waits at a barrier"), std::string::npos) << err;
}

TEST(SimEngines, AscendEnginesRunSideBySide) {
  // GM → L1 on MTE2 and UB → GM on MTE3 are different pipes: the two transfers overlap, apart
  // from sharing the GM port (the second one alone would take 200 + 2048/1200·... cycles).
  arch::Arch asc = arch::load_arch(test::config("arch/ascend_like.yaml"));
  const std::string text = "dma L1[0 : 64x64 / 64,1] <- GM[0 : 64x64 / 64,1]\ndma GM[8192 : 64x64 / 64,1] <- UB[0 : 64x64 / 64,1]\nhalt\n";
  arch::Program p = arch::parse_program(text, "p.s", asc);
  arch::check_program(p, asc, "p.s");
  EXPECT_EQ(arch::pipe_of(p.code[0], asc), arch::Pipe::Mte2);
  EXPECT_EQ(arch::pipe_of(p.code[1], asc), arch::Pipe::Mte3);
  SimResult r = simulate(asc, {p}, {}, SimOptions{}, "p.s");
  const int64_t one = dma_cycles(asc, p.code[0]);
  EXPECT_LT(r.cycles, 2 * one) << "not one after the other";
  EXPECT_EQ(r.cores[0].pipes[static_cast<size_t>(arch::Pipe::Mte2)].instructions, 1);
  EXPECT_EQ(r.cores[0].pipes[static_cast<size_t>(arch::Pipe::Mte3)].instructions, 1);
}

TEST(SimPorts, EachPipeHasItsOwnPorts) {
  // Two engines write S at once; each has its own 16 B (8-word) port into the core's S, as every
  // unit of the RTL core has its own SPM ports, so the transfers overlap: 100 pieces each.
  // (Ports of a level with one instance per chip are shared by every pipe of every core.)
  const arch::Arch a = arch::load_arch_from_string(R"(
name: ports
compute:
  vector: {lanes: 64}
levels:
  - {name: DRAM, capacity: unlimited, read_bw: 1000, write_bw: 1000}
  - {name: T, capacity: 64 KiB, read_bw: 1000, write_bw: 1000, parent: DRAM, per: core}
  - {name: S, capacity: 64 KiB, read_bw: 16, write_bw: 16, parent: DRAM, port: row, per: core}
paths:
  - {from: DRAM, to: S, engine: MTE2}
  - {from: DRAM, to: T, engine: MTE2}
  - {from: T, to: S, engine: MTE1}
)", "ports.yaml");
  auto run_text = [&](const std::string& text) {
    arch::Program p = arch::parse_program(text, "p.s", a);
    arch::check_program(p, a, "p.s");
    return simulate(a, {p}, {}, SimOptions{}, "p.s");
  };
  EXPECT_EQ(run_text("dma S[0 : 800 / 1] <- T[0 : 800 / 1]\nhalt\n").cycles, 1 + kIssueCycles + 100 + 1);
  const SimResult both = run_text("dma S[0 : 800 / 1] <- T[0 : 800 / 1]\ndma S[1000 : 800 / 1] <- DRAM[0 : 800 / 1]\nhalt\n");
  EXPECT_EQ(both.cycles, 2 + kIssueCycles + 100 + 1) << "the second, dispatched a cycle later, ends last";
  EXPECT_EQ(both.cores[0].pipes[static_cast<size_t>(arch::Pipe::Mte2)].wait_memory, 0);
  // A vector op over 640 elements of S: 64 lanes, but S's port reads 8 elements a cycle.
  const SimResult v = run_text("vec.exp T[0 : 640 / 1] <- S[0 : 640 / 1]\nhalt\n");
  EXPECT_EQ(v.cycles, 1 + kIssueCycles + 640 / 8 + 12 + 1);
  // Banks: with 4 banks, a block with stride 4 lands in one of them: a quarter of the bandwidth.
  EXPECT_DOUBLE_EQ(bank_share(arch::parse_program("dma S[0 : 8 / 4] <- T[0 : 8 / 1]\n", "p.s", a).code[0].dst, 4), 0.25);
  EXPECT_DOUBLE_EQ(bank_share(arch::parse_program("dma S[0 : 8 / 2] <- T[0 : 8 / 1]\n", "p.s", a).code[0].dst, 4), 0.5);
  EXPECT_DOUBLE_EQ(bank_share(arch::parse_program("dma S[0 : 2x4 / 100,1] <- T[0 : 8 / 1]\n", "p.s", a).code[0].dst, 4), 1.0);
  arch::Arch banked = a;
  banked.levels[2].banks = 4;
  arch::Program strided = arch::parse_program("dma S[0 : 800 / 4] <- T[0 : 800 / 1]\nhalt\n", "p.s", banked);
  EXPECT_EQ(simulate(banked, {strided}, {}, SimOptions{}, "p.s").cycles, 1 + kIssueCycles + 4 * 100);
}

TEST(Values, RoundingRules) {
  EXPECT_EQ(to_storage(arch::DType::Int16, 32768), -32768);
  EXPECT_EQ(to_storage(arch::DType::Int16, -32769), 32767);
  EXPECT_EQ(to_accumulator(arch::DType::Int16, 2147483648.0), -2147483648.0);
  EXPECT_EQ(to_storage(arch::DType::Fp16, 1.0 + 1.0 / 4096), 1.0);       // below half an fp16 ulp
  EXPECT_EQ(to_storage(arch::DType::Fp16, 1.0 + 3.0 / 2048), 1.0 + 2.0 / 1024);  // ties to even
  EXPECT_EQ(to_storage(arch::DType::Bf16, 1.0 + 1.0 / 256), 1.0);
  EXPECT_EQ(to_storage(arch::DType::Int16, 1.0 / 0.0), 0);
}

// Input data is held to its type rather than wrapped or zeroed as a unit's result would be.
TEST(Values, InputsTheTypeCannotHoldAreNamed) {
  using arch::DType;
  EXPECT_EQ(input_value_problem(DType::Int16, -32768), "");
  EXPECT_EQ(input_value_problem(DType::Int16, 32767), "");
  EXPECT_EQ(input_value_problem(DType::Int16, 32768), "is 32768, outside int16's range [-32768, 32767]");
  EXPECT_EQ(input_value_problem(DType::Int16, 0.5), "is 0.5, not a whole number (the programs' type is int16)");
  EXPECT_EQ(input_value_problem(DType::Int16, std::nan("")), "is NaN");
  EXPECT_EQ(input_value_problem(DType::Fp16, 0.1), "");  // rounded, as every fp16 input is
  EXPECT_EQ(input_value_problem(DType::Fp16, 65504), "");
  EXPECT_EQ(input_value_problem(DType::Fp16, 1e5), "is 100000, beyond fp16's range (it would be stored as infinity)");
  EXPECT_EQ(input_value_problem(DType::Bf16, 1e5), "");
  EXPECT_EQ(input_value_problem(DType::Bf16, -1.0 / 0.0), "is -inf");
}

}  // namespace
}  // namespace dfx::sim
