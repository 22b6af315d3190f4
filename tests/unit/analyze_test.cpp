#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <tuple>

#include "arch/unit_costs.h"
#include "model/analyze.h"
#include "model/report_io.h"
#include "tests/unit/test_util.h"

namespace dfx::model {
namespace {

const char* kTwoLevels = R"(name: two
compute: {matrix: {rows: 64, cols: 64}, vector: {lanes: 64}}
levels:
  - {name: DRAM, capacity: unlimited, read_bw: 8, write_bw: 8}
  - {name: L1, capacity: unlimited, read_bw: 64, write_bw: 64}
)";

const char* kChain = R"(name: chain
dims: {m: 12, k: 6, l: 10, n: 8}
ops:
  - {name: gemm1, expr: "C[m,l] += A[m,k] * B[k,l]"}
  - {name: gemm2, expr: "E[m,n] += C[m,l] * D[l,n]"}
)";

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t chunk(int64_t extent, int64_t factor) { return ceil_div(extent, factor); }
int64_t trips(int64_t extent, int64_t factor) { return ceil_div(extent, chunk(extent, factor)); }

// Order m, l (shared), then k (gemm1 only) and n (gemm2 only): REFERENCE.md §3's order 'mlkn'.
std::string chain_flow(int64_t fm, int64_t fl, int64_t fk, int64_t fn, const char* prim) {
  std::ostringstream os;
  os << "tree:\n  tile: DRAM\n  loops: [\"m:" << fm << "\", \"l:" << fl << "\"]\n  keep: {C: L1}\n  prim: " << prim
     << "\n  children:\n    - tile: DRAM\n      loops: [\"k:" << fk << "\"]\n"
     << "      children: [{tile: L1, children: [{op: gemm1}]}]\n"
     << "    - tile: DRAM\n      loops: [\"n:" << fn << "\"]\n"
     << "      children: [{tile: L1, children: [{op: gemm2}]}]\n";
  return os.str();
}

const TensorLevelReport* find(const Report& r, size_t level, const std::string& tensor) {
  for (const auto& t : r.levels[level].tensors)
    if (t.tensor == tensor) return &t;
  return nullptr;
}

int64_t dram_read(const Report& r, const std::string& t) { auto* x = find(r, 0, t); return x ? x->traffic.read : 0; }
int64_t dram_update(const Report& r, const std::string& t) { auto* x = find(r, 0, t); return x ? x->traffic.update : 0; }

TEST(ChainClosedForm, DataMovementOfOrderMlknMatchesChimera) {
  arch::Arch a = arch::load_arch_from_string(kTwoLevels, "arch");
  Workload w = load_workload_from_string(kChain, "chain");
  const int64_t M = 12, K = 6, L = 10, N = 8;
  int checked = 0;
  for (int64_t fm : {1, 3, 4, 5})
    for (int64_t fl : {1, 2, 3, 4})
      for (int64_t fk : {1, 2, 3})
        for (int64_t fn : {1, 3}) {
          SCOPED_TRACE(chain_flow(fm, fl, fk, fn, "Seq"));
          Dataflow f = load_dataflow_from_string(chain_flow(fm, fl, fk, fn, "Seq"), "flow", a, w);
          Report r = analyze(a, w, f);
          ASSERT_TRUE(r.valid) << r.reason;
          const int64_t tm = trips(M, fm), tl = trips(L, fl);
          EXPECT_EQ(dram_read(r, "A"), M * K * tl);
          EXPECT_EQ(dram_read(r, "B"), K * L * tm);
          EXPECT_EQ(dram_read(r, "C") + dram_update(r, "C"), 0);  // the intermediate stays on chip
          EXPECT_EQ(dram_read(r, "D"), N * L * tm);
          EXPECT_EQ(dram_update(r, "E"), M * N * tl);
          EXPECT_EQ(dram_read(r, "E"), M * N * (tl - 1));  // partial sums come back
          // MU = T_M·T_L + max(T_M·T_K + T_K·T_L, T_L·T_N + T_M·T_N), with the first (largest) tiles.
          const int64_t TM = chunk(M, fm), TL = chunk(L, fl), TK = chunk(K, fk), TN = chunk(N, fn);
          EXPECT_EQ(r.levels[1].peak_bytes / 2, TM * TL + std::max(TM * TK + TK * TL, TL * TN + TM * TN));
          ++checked;
        }
  EXPECT_EQ(checked, 96);
}

TEST(ChainClosedForm, SharKeepsWhatSeqDrops) {
  arch::Arch a = arch::load_arch_from_string(kTwoLevels, "arch");
  Workload w = load_workload_from_string(kChain, "chain");
  // With k untiled, gemm1's A block is the same for every l step of one m block: Shar keeps it
  // while gemm2 runs, Seq drops it.
  Report seq = analyze(a, w, load_dataflow_from_string(chain_flow(3, 2, 1, 1, "Seq"), "f", a, w));
  Report shar = analyze(a, w, load_dataflow_from_string(chain_flow(3, 2, 1, 1, "Shar"), "f", a, w));
  EXPECT_EQ(dram_read(seq, "A"), 12 * 6 * 2);
  EXPECT_EQ(dram_read(shar, "A"), 12 * 6);
  EXPECT_EQ(dram_update(shar, "E"), 12 * 8);
  EXPECT_GT(shar.levels[1].peak_bytes, seq.levels[1].peak_bytes);
}

class Invalid : public ::testing::Test {
 protected:
  arch::Arch edge = arch::load_arch(test::config("arch/edge.yaml"));
  Workload w = load_workload(test::config("workloads/gemm_chain_g1.yaml"));
  Report run(const std::string& tree) { return analyze(edge, w, load_dataflow_from_string("tree:\n" + tree, "f.yaml", edge, w)); }
};

TEST_F(Invalid, CapacityOverflowNamesTheLevel) {
  Report r = run("  tile: DRAM\n  children:\n    - tile: L1\n      children: [{op: gemm1}, {op: gemm2}]\n");
  ASSERT_FALSE(r.valid);
  EXPECT_NE(r.reason.find("level 'L1' needs"), std::string::npos) << r.reason;
  EXPECT_NE(r.problems[0].where.str().find("edge.yaml"), std::string::npos);
}

TEST_F(Invalid, PeOverflow) {
  Report r = run("  tile: DRAM\n  loops: [\"m:64:sp\", \"l:128:sp\"]\n  children: [{op: gemm1}, {op: gemm2}]\n");
  ASSERT_FALSE(r.valid);
  EXPECT_NE(r.reason.find("spreads over 8192 matrix PEs but the arch has 4096"), std::string::npos) << r.reason;
}

TEST_F(Invalid, FactorBeyondItsExtent) {
  Report r = run("  tile: DRAM\n  loops: [\"m:512\"]\n  children:\n    - tile: DRAM\n      loops: [\"m:2\"]\n"
                 "      children: [{op: gemm1}, {op: gemm2}]\n");
  ASSERT_FALSE(r.valid);
  EXPECT_NE(r.reason.find("factor 2 for 'm' exceeds its extent 1"), std::string::npos) << r.reason;
  EXPECT_EQ(r.problems[0].where.line, 6);  // the inner loops line
}

// In the partial last step of a loop that does not divide its extent (m: 512 in three steps of
// 171, the last 170), a loop with more trips than elements steps one element at a time.
TEST_F(Invalid, PartialTileStepsElementByElement) {
  Report r = run("  tile: DRAM\n  loops: [\"m:3\"]\n  children:\n    - tile: DRAM\n      loops: [\"m:171\"]\n"
                 "      children: [{op: gemm1}, {op: gemm2}]\n");
  ASSERT_TRUE(r.valid) << r.reason;
  const Report whole = run("  tile: DRAM\n  children: [{op: gemm1}, {op: gemm2}]\n");
  EXPECT_EQ(r.macs, whole.macs);
  // A spatial loop there runs fewer instances of the same chunk (170 of 171 rows), the rest idle.
  Report sp = run("  tile: DRAM\n  loops: [\"m:3\"]\n  children:\n    - tile: DRAM\n      loops: [\"m:171:sp\"]\n"
                  "      children: [{op: gemm1}, {op: gemm2}]\n");
  ASSERT_TRUE(sp.valid) << sp.reason;
  EXPECT_EQ(sp.macs, whole.macs);
  // Not if the chunk changes: 171 rows over 2 are 86 + 85, 170 are 85 + 85.
  Report halves = run("  tile: DRAM\n  loops: [\"m:3\"]\n  children:\n    - tile: DRAM\n      loops: [\"m:2:sp\"]\n"
                      "      children: [{op: gemm1}, {op: gemm2}]\n");
  ASSERT_FALSE(halves.valid);
  EXPECT_NE(halves.reason.find("into different pieces"), std::string::npos) << halves.reason;
}

// Padding: a spatial loop whose instances run in full steps only may have loops after it in its
// tile or below only where what buffers below take from a multicast source they share (edge's
// DRAM into L1) is read without its dim or indexed by it plainly. Over l the second GEMM's partial
// sums E, written without l, are not: refused. Over m (A and E by m plainly, B and D without it) they
// are; and with no buffers below, always.
TEST_F(Invalid, IdleInstancesAboveOtherLoops) {
  const std::string l1 = "  children:\n    - tile: L1\n      children: [{op: gemm1}, {op: gemm2}]\n";
  Report r = run("  tile: DRAM\n  loops: [\"l:3\", \"l:171:sp\", \"b:2\"]\n" + l1);
  ASSERT_FALSE(r.valid);
  EXPECT_NE(r.reason.find("runs 170 instances in one step and 171 in another above a temporal loop"), std::string::npos)
      << r.reason;
  EXPECT_NE(r.reason.find("multicast source its instances share"), std::string::npos) << r.reason;
  const int64_t macs = run("  tile: DRAM\n  children: [{op: gemm1}, {op: gemm2}]\n").macs;
  const Report rows = run("  tile: DRAM\n  loops: [\"m:3\", \"m:171:sp\", \"b:2\"]\n" + l1);
  ASSERT_TRUE(rows.valid) << rows.reason;
  EXPECT_EQ(rows.macs, macs);
  const Report bare = run("  tile: DRAM\n  loops: [\"l:3\", \"l:171:sp\", \"b:2\"]\n  children: [{op: gemm1}, {op: gemm2}]\n");
  ASSERT_TRUE(bare.valid) << bare.reason;
  EXPECT_EQ(bare.macs, macs);
}

// A spatial factor that does not divide its extent leaves the last instance less to do (512
// rows over 3: 171, 171, 170). Where buffers below share a multicast source, loops may follow it
// under the same condition as above; spatial loops may always follow it, each walked within its
// runs of alike instances.
TEST_F(Invalid, UnevenSpatialSplitAboveOtherLoops) {
  const std::string l1 = "  children:\n    - tile: L1\n      children: [{op: gemm1}, {op: gemm2}]\n";
  Report r = run("  tile: DRAM\n  loops: [\"l:3:sp\", \"b:2\"]\n" + l1);
  ASSERT_FALSE(r.valid);
  EXPECT_NE(r.reason.find("splits extent 512 unevenly above a temporal loop"), std::string::npos) << r.reason;
  const Report rows = run("  tile: DRAM\n  loops: [\"m:3:sp\", \"b:2\"]\n" + l1);
  ASSERT_TRUE(rows.valid) << rows.reason;
  // B is read without m: the last row's instance takes what the others' multicast sent, so DRAM
  // sends it once, as to four alike instances.
  const Report even = run("  tile: DRAM\n  loops: [\"m:4:sp\", \"b:2\"]\n" + l1);
  auto dram_reads = [](const Report& x, const std::string& tensor) {
    for (const TensorLevelReport& t : x.levels.front().tensors)
      if (t.tensor == tensor) return t.traffic.read;
    return int64_t{-1};
  };
  EXPECT_EQ(dram_reads(rows, "B"), 8 * 64 * 512);
  EXPECT_EQ(dram_reads(rows, "B"), dram_reads(even, "B"));
  const int64_t macs = run("  tile: DRAM\n  children: [{op: gemm1}, {op: gemm2}]\n").macs;
  const Report bare = run("  tile: DRAM\n  loops: [\"m:3:sp\", \"b:2\"]\n  children: [{op: gemm1}, {op: gemm2}]\n");
  ASSERT_TRUE(bare.valid) << bare.reason;
  EXPECT_EQ(bare.macs, macs);
  const Report inner = run("  tile: DRAM\n  loops: [\"b:2\", \"m:3:sp\"]\n  children: [{op: gemm1}, {op: gemm2}]\n");
  ASSERT_TRUE(inner.valid) << inner.reason;
  EXPECT_EQ(inner.macs, macs);
  // Two such loops in one tile (l: 512 over 5, 103 and 100 rows), one padded (m in 3 steps of 171).
  const Report two = run("  tile: DRAM\n  loops: [\"m:3\", \"m:171:sp\", \"l:5:sp\"]\n  children: [{op: gemm1}, {op: gemm2}]\n");
  ASSERT_TRUE(two.valid) << two.reason;
  EXPECT_EQ(two.macs, macs);
}

TEST_F(Invalid, OperandInALevelThatCannotHoldIt) {
  arch::Arch asc = arch::load_arch(test::config("arch/ascend_like.yaml"));
  Report r = analyze(asc, w, load_dataflow_from_string("tree:\n  tile: GM\n  children:\n    - tile: UB\n"
                                                        "      children: [{op: gemm1}, {op: gemm2}]\n", "f.yaml", asc, w));
  ASSERT_FALSE(r.valid);
  EXPECT_NE(r.reason.find("operand) from level"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("but its tile does not hold it there"), std::string::npos) << r.reason;
}

TEST(Analyze, TransfersWithoutAPathAreStagedThroughTheCommonAncestor) {
  arch::Arch a = arch::load_arch_from_string(R"(name: beside
compute: {vector: {lanes: 4}}
levels:
  - {name: DRAM, capacity: unlimited, read_bw: 8, write_bw: 8}
  - {name: X, capacity: unlimited, read_bw: 8, write_bw: 8}
  - {name: Y, parent: DRAM, capacity: unlimited, read_bw: 8, write_bw: 8}
paths: [{from: DRAM, to: X}, {from: DRAM, to: Y}]
)", "arch");
  Workload w = load_workload_from_string("name: t\ndims: {i: 10}\nops: [\"B[i] = exp(A[i])\"]\n", "w");
  Dataflow f = load_dataflow_from_string("tree:\n  tile: DRAM\n  children:\n    - tile: X\n      children:\n"
                                         "        - tile: Y\n          children: [{op: B}]\n", "f", a, w);
  Report r = analyze(a, w, f);
  ASSERT_TRUE(r.valid) << r.reason;
  // A: DRAM → X (10), X → Y has no path: through DRAM (written there and read again).
  const TensorLevelReport* dram_a = find(r, 0, "A");
  ASSERT_NE(dram_a, nullptr);
  EXPECT_EQ(dram_a->traffic.read, 20);
  EXPECT_EQ(dram_a->traffic.update, 10);
}

TEST(Analyze, MulticastReadsSharedDataOnce) {
  arch::Arch a = arch::load_arch_from_string(R"(name: mc
compute: {matrix: {rows: 4, cols: 4}}
levels:
  - {name: DRAM, capacity: unlimited, read_bw: 4, write_bw: 4}
  - {name: L1, capacity: unlimited, read_bw: 8, write_bw: 8, per: pe}
)", "arch");
  Workload w = load_workload_from_string("name: mm\ndims: {m: 4, n: 4, k: 2}\nops: [\"C[m,n] += A[m,k] * B[k,n]\"]\n", "w");
  Dataflow f = load_dataflow_from_string("tree:\n  tile: DRAM\n  loops: [\"m:4:sp\"]\n  children:\n"
                                         "    - tile: L1\n      children: [{op: C}]\n", "f", a, w);
  Report r = analyze(a, w, f);
  ASSERT_TRUE(r.valid);
  EXPECT_EQ(find(r, 1, "B")->traffic.fill, 4 * 8);  // every instance holds all of B
  EXPECT_EQ(find(r, 0, "B")->traffic.read, 8);      // DRAM sends it once to all four
  EXPECT_EQ(find(r, 0, "A")->traffic.read, 8);
  EXPECT_EQ(r.macs, 32);
}

// A tensor read along different dims (a Gram matrix: A[m,k] and A[n,k]) under spatial loops over
// m or n: the instances' slices differ in shape (on the diagonal m = n they are one block, off it
// two), so the walk's instance cannot stand for the others. Such trees are refused, multicast or
// not; they used to count A's DRAM reads at half of A (1,024 of 2,048 elements). Spatial loops
// over k move both accesses alike and stay: A is read whole at least once.
TEST(Analyze, ATensorReadAlongDifferentDimsIsNotSpreadOverThem) {
  Workload w = load_workload_from_string("name: gram\ndims: {m: 64, n: 64, k: 32}\nops: [\"C[m,n] += A[m,k] * A[n,k]\"]\n", "w");
  const std::string spread_mn = "tree:\n  tile: DRAM\n  loops: [\"m:2:sp\", \"n:2:sp\"]\n  children:\n"
                                "    - tile: L1\n      loops: [\"k:32\", \"m:32:sp\", \"n:32:sp\"]\n"
                                "      children: [{tile: Reg, children: [{op: C}]}]\n";
  for (const char* multicast : {"true", "false"}) {
    const arch::Arch a = arch::load_arch(test::config("arch/edge.yaml"), {parse_override(std::string("levels.DRAM.multicast=") + multicast, "--set")});
    const Report r = analyze(a, w, load_dataflow_from_string(spread_mn, "f.yaml", a, w));
    EXPECT_FALSE(r.valid) << multicast;
    ASSERT_FALSE(r.problems.empty());
    EXPECT_EQ(r.problems.front().where.line, 3) << r.problems.front().str();  // the loop "m:2:sp"
    EXPECT_NE(r.reason.find("this spatial loop over 'm' gives its instances slices of 'A' of different shapes"), std::string::npos)
        << r.reason;
  }
  const arch::Arch a = arch::load_arch(test::config("arch/edge.yaml"));
  const Report k_only = analyze(a, w, load_dataflow_from_string("tree:\n  tile: DRAM\n  loops: [\"k:4:sp\"]\n  children:\n"
                                                                "    - tile: L1\n      loops: [\"m:64\", \"n:64\", \"k:8:sp\"]\n"
                                                                "      children: [{tile: Reg, children: [{op: C}]}]\n", "f.yaml", a, w));
  ASSERT_TRUE(k_only.valid) << k_only.reason;
  EXPECT_GE(find(k_only, 0, "A")->traffic.read, 64 * 32);
}

// Under temporal loops a tensor read along different dims is counted step by step: a step of n
// moves A[n,k] and not A[m,k], so what it finds held differs (the two reads meet on the
// diagonal). A 6 × 1 A, both loops in chunks of two rows, one buffer of A: rows m ∪ n each step,
// 2 + 2 + 2, 2 + 0 + 2, 2 + 2 + 0 fresh = 14 (the oracle's count). One middle step standing for
// the others, or a step replayed from another's recording, miscounted it (the property test's
// Gram family found it); a transposed read the same way (A[i,j] beside A[j,i]).
TEST(Analyze, ATensorReadAlongDifferentDimsIsCountedStepByStep) {
  const arch::Arch a = arch::load_arch_from_string(R"(name: two
compute: {matrix: {rows: 4, cols: 4}, vector: {lanes: 4}}
levels:
  - {name: DRAM, capacity: unlimited, read_bw: 4, write_bw: 4}
  - {name: L2, capacity: unlimited, read_bw: 8, write_bw: 8}
)", "arch");
  const Workload gram = load_workload_from_string("name: gram\ndims: {m: 6, n: 6, k: 1}\nops: [\"C[m,n] += A[m,k] * A[n,k]\"]\n", "w");
  const std::string tree = "tree:\n  tile: DRAM\n  loops: [\"m:3\", \"n:3\"]\n  children:\n    - tile: L2\n      children: [{op: C}]\n";
  const Report r = analyze(a, gram, load_dataflow_from_string(tree, "f", a, gram));
  ASSERT_TRUE(r.valid) << r.reason;
  EXPECT_EQ(find(r, 0, "A")->traffic.read, 14);
  EXPECT_EQ(find(r, 1, "A")->traffic.fill, 14);
  // Beside its transpose, a 4 × 4 A stepped one element at a time: step (i, j) needs A[i,j] and
  // A[j,i] (one element on the diagonal) and the step before never holds either: 4 × (1 + 2 +
  // 2 + 2) = 28.
  const Workload tr = load_workload_from_string("name: tr\ndims: {i: 4, j: 4}\nops: [\"B[i,j] = A[i,j] * A[j,i]\"]\n", "w");
  const std::string tr_tree = "tree:\n  tile: DRAM\n  loops: [\"i:4\", \"j:4\"]\n  children:\n    - tile: L2\n      children: [{op: B}]\n";
  const Report t = analyze(a, tr, load_dataflow_from_string(tr_tree, "f", a, tr));
  ASSERT_TRUE(t.valid) << t.reason;
  EXPECT_EQ(find(t, 0, "A")->traffic.read, 28);
}

// Runs of a spatial loop whose instances are not all alike are walked apart and the first one
// timed, each at its source's full bandwidth; without multicast they share DRAM's 4 B/cycle.
// Here m's partial last step runs one of Sp m:2's instances, so the two form runs: the tree's
// latency (88.5 cycles) is below DRAM's reads (245 elements, 122.5 cycles), and the report
// takes the reads' time and says why.
TEST(Analyze, CyclesNotBelowASharedLevelsTransfers) {
  arch::Arch a = arch::load_arch_from_string(R"(name: shared
compute: {matrix: {rows: 64, cols: 64}}
levels:
  - {name: DRAM, capacity: unlimited, read_bw: 4, write_bw: 4, multicast: false}
  - {name: L2, capacity: unlimited, read_bw: 8, write_bw: 8}
)", "arch");
  Workload w = test::one_gemm("gemm", "m: 5, n: 5, k: 7");
  Dataflow f = load_dataflow_from_string("tree:\n  tile: DRAM\n  loops: [\"n:3\", \"m:4\", \"m:2:sp\", \"n:2:sp\"]\n"
                                         "  children:\n    - tile: L2\n      children: [{op: g}]\n", "f", a, w);
  const Report r = analyze(a, w, f);
  ASSERT_TRUE(r.valid) << r.reason;
  const double dram_reads = static_cast<double>(r.levels[0].traffic.read) * 2 / 4;
  EXPECT_EQ(dram_reads, 122.5);
  EXPECT_LT(r.latency_cycles, dram_reads);
  EXPECT_EQ(r.cycles, dram_reads);
  EXPECT_NE(to_table(r).find("cycles set by DRAM bandwidth (the tree's latency, 88 cycles,"), std::string::npos) << to_table(r);
}

// Figures past the last suffix (an absurd bandwidth's 10^21 cycles, an absurd size's bytes) are
// written in powers of ten, not as twenty-odd digits before 'P' or 'TiB'.
TEST(Analyze, HugeFiguresAreWrittenInPowersOfTen) {
  EXPECT_EQ(human(1234.5), "1.23K");
  EXPECT_EQ(human(999.0e15), "999.00P");
  EXPECT_EQ(human(2.883584e21), "2.88e+21");
  EXPECT_EQ(human(-2.883584e21), "-2.88e+21");
  EXPECT_EQ(human_bytes(3.0 * 1024 * 1024 * 1024 * 1024 * 1024), "3.0 PiB");
  EXPECT_EQ(human_bytes(1e24), "1.0e+24 B");
  EXPECT_EQ(human_bytes(-1), "unlimited");
}

// A written buffer that a reduction loop above it revisits takes its partial sums back from its
// source, and that load takes time: here C's 16 x 64 slice comes back from DRAM in every step of k
// but the first, and DRAM's reads (A, B, and 12 x 1,024 partial sums) pace the tree. Before
// 2026-12-05 they were counted as traffic but not timed: the tree's latency (9.9 K) came out below
// DRAM's reads (10.2 K).
TEST(Analyze, PartialSumsComingBackTakeTheirTime) {
  arch::Arch a = arch::load_arch_from_string(R"(name: narrow
compute: {matrix: {rows: 64, cols: 64}}
levels:
  - {name: DRAM, capacity: unlimited, read_bw: 4, write_bw: 4}
  - {name: L1, capacity: unlimited, read_bw: 64, write_bw: 64}
)", "arch");
  Workload w = test::one_gemm("gemm", "m: 64, k: 64, n: 64");
  auto tree = [&](const char* loops) {
    return load_dataflow_from_string(std::string("tree:\n  tile: DRAM\n  loops: ") + loops +
                                         "\n  children:\n    - tile: L1\n      loops: [\"m:16:sp\", \"n:64:sp\"]\n"
                                         "      children: [{op: g}]\n", "f", a, w);
  };
  const Report reduction_outside = analyze(a, w, tree("[\"k:4\", \"m:4\"]"));
  ASSERT_TRUE(reduction_outside.valid) << reduction_outside.reason;
  EXPECT_EQ(find(reduction_outside, 0, "C")->traffic.read, 3 * 4 * 16 * 64);
  const double dram_reads = static_cast<double>(reduction_outside.levels[0].traffic.read) * 2 / 4;
  EXPECT_EQ(dram_reads, 10240);
  EXPECT_GE(reduction_outside.latency_cycles, dram_reads);
  // With k inside, each C slice is finished before it leaves: nothing comes back.
  const Report reduction_inside = analyze(a, w, tree("[\"m:4\", \"k:4\"]"));
  ASSERT_TRUE(reduction_inside.valid) << reduction_inside.reason;
  EXPECT_EQ(find(reduction_inside, 0, "C")->traffic.read, 0);
  EXPECT_LT(reduction_inside.latency_cycles, reduction_outside.latency_cycles);
}

}  // namespace
}  // namespace dfx::model

namespace dfx::model {
namespace {

TEST(Analyze, HugeStridedSetsAreRefusedNotRun) {
  // A stride-4 access with a 1-wide window over 2e9 rows would need 1e9 intervals: the analysis
  // must say so at once instead of running out of memory.
  arch::Arch a = arch::load_arch(test::config("arch/edge.yaml"));
  Workload w = load_workload_from_string("name: s\ndims: {p: 2000000000, r: 1}\nops: [\"O[p] += I[p*4+r] * W[r]\"]\n", "w");
  Report r = analyze(a, w, load_dataflow_from_string("tree:\n  tile: DRAM\n  loops: [\"p:2\"]\n  children:\n    - {tile: L1, children: [{op: O}]}\n", "f", a, w));
  ASSERT_FALSE(r.valid);
  EXPECT_NE(r.reason.find("separate intervals"), std::string::npos) << r.reason;
}

}  // namespace
}  // namespace dfx::model

#include <cmath>

#include "mapper/search.h"

namespace dfx::model {
namespace {

// The roofline is a bound: no dataflow runs faster than its compute alone or than DRAM moving the
// workload's own inputs and outputs once. Checked where it is tight, on what a search finds (its
// best, its baselines, its cycles/energy front), on archs whose loads and stores overlap
// (tree-scheduled) and on those whose programs share one DRAM port.
class Roofline : public test::OnArchWorkload {};

TEST_P(Roofline, NothingTheSearchFindsRunsBelowIt) {
  mapper::SearchOptions o;
  o.evaluations = 2000;
  o.pareto = true;
  const mapper::Outcome out = mapper::explore(a, w, o);
  double closest = INFINITY;  // cycles / roofline
  for (const auto* list : {&out.best, &out.baselines, &out.pareto})
    for (const mapper::Candidate& c : *list) {
      EXPECT_GE(c.report.cycles, c.report.roofline_cycles * (1 - 1e-9)) << c.name << "\n" << c.flow_yaml;
      closest = std::min(closest, c.report.cycles / c.report.roofline_cycles);
    }
  std::cout << GetParam().workload << " on " << GetParam().arch << ": the closest of " << out.best.size() + out.baselines.size() + out.pareto.size()
            << " dataflows runs at " << closest << "x its roofline\n";
}

// Each end of a transfer moves its elements at its own word size. Layerwise attention on edge is
// DRAM-bound: with DRAM's words twice as wide its transfers take twice as long, and the run never
// takes less than DRAM's busy time. (The words of L1, the filled end, timed both ends before:
// DRAM at 16-byte words was busy 644% of the cycles.)
TEST(Analyze, EachEndOfATransferMovesItsOwnWords) {
  const Workload w = load_workload(test::config("workloads/attention_g1.yaml"));
  double cycles_at_2 = 0;
  for (int bytes : {1, 2, 4, 16}) {
    const arch::Arch a = arch::load_arch(test::config("arch/edge.yaml"), {parse_override("levels.DRAM.word_bytes=" + std::to_string(bytes), "--set")});
    const Report r = analyze(a, w, load_dataflow(test::config("dataflows/attention_g1_edge_layerwise.yaml"), a, w));
    ASSERT_TRUE(r.valid) << r.reason;
    EXPECT_GE(r.cycles, r.levels[0].busy_cycles) << bytes << "-byte words";
    if (bytes == 2) cycles_at_2 = r.cycles;
    if (bytes == 4) {
      EXPECT_GT(r.cycles, 1.9 * cycles_at_2);
    }
  }
}

// Layer by layer and DRAM-bound on an arch whose loads and stores overlap: 3.89 K cycles, below a
// roofline that counted all of I (its stride-4 windows skip a quarter of the rows and columns)
// and the reads and writes on one channel (4.46 K).
TEST(Analyze, RooflineCountsWhatTheOpsTouchOnEachChannel) {
  const arch::Arch a = arch::load_arch(test::config("arch/cloud.yaml"));
  const Workload w = load_workload(test::config("workloads/conv_chain_c5.yaml"));
  const Report r = analyze(a, w, load_dataflow_from_string(R"(
name: layerwise
workload: conv_chain_c5
tree:
  tile: DRAM
  children:
    - tile: DRAM
      loops: ["q1:4:sp", "q1:14"]
      children:
        - tile: L1
          children:
            - tile: L1
              loops: ["c:16", "r1:3", "s1:3", "k1:64:sp", "p1:56:sp"]
              children: [{tile: Reg, children: [{op: conv1}]}]
    - tile: DRAM
      loops: ["k2:2:sp", "q2:2:sp", "p2:2", "q2:10"]
      children:
        - tile: L1
          children:
            - tile: L1
              loops: ["q2:3", "k2:8", "p2:2", "p2:14:sp", "k1:64:sp"]
              children: [{tile: Reg, children: [{op: conv2}]}]
)", "layerwise", a, w));
  ASSERT_TRUE(r.valid) << r.reason;
  EXPECT_EQ(r.bottleneck, "DRAM bandwidth");
  EXPECT_GE(r.cycles, r.roofline_cycles);
  // Here the bound is the inputs read once at the read bandwidth, and of I only the rows and
  // columns the stride-4 3x3 windows touch (168 of every 224).
  const double read_bytes = (16.0 * 168 * 168 + 64 * 16 * 9 + 16 * 64) * 2;
  EXPECT_DOUBLE_EQ(r.roofline_cycles, read_bytes / (a.levels[0].read_bw * static_cast<double>(a.levels[0].instances)));
}

INSTANTIATE_TEST_SUITE_P(Searched, Roofline,
                         ::testing::Values(test::ArchWorkload{"cloud", "attention_g3"}, test::ArchWorkload{"cloud", "conv_chain_c5"},
                                           test::ArchWorkload{"edge", "gemm_chain_g10"}, test::ArchWorkload{"tpu_like", "gemm_chain_g10"},
                                           test::ArchWorkload{"ascend_like", "attention_g1"}),
                         test::arch_workload_name);

}  // namespace
}  // namespace dfx::model

namespace dfx::model {
namespace {

// Per op: its work from the walk (the oracle checks it on random trees) and its instances from
// the tree. The shipped fused Pipe for attention G1 / edge balances its stages: qk and av on
// 4 cores × 32 × 16 PEs, the softmax's five ops on 4 cores × 8 lanes, each 65,536 cycles of compute.
TEST(Analyze, EachOpsWorkAndInstances) {
  const arch::Arch a = arch::load_arch(test::config("arch/edge.yaml"));
  const Workload w = load_workload(test::config("workloads/attention_g1.yaml"));
  const Report r = analyze(a, w, load_dataflow(test::config("dataflows/attention_g1_edge_fused_pipe.yaml"), a, w));
  ASSERT_TRUE(r.valid) << r.reason;
  ASSERT_EQ(r.ops.size(), w.ops.size());
  int64_t macs = 0, vector_ops = 0;
  for (size_t o = 0; o < w.ops.size(); ++o) {
    const OpReport& op = r.ops[o];
    EXPECT_EQ(op.name, w.ops[o].name);
    (op.unit == "matrix" ? macs : vector_ops) += op.work;
    const bool gemm = op.name == "qk" || op.name == "av";
    EXPECT_EQ(op.unit, gemm ? "matrix" : "vector") << op.name;
    EXPECT_EQ(op.work, (gemm ? 8 * 512 * 512 * 64 : 8 * 512 * 512) * w.ops[o].ops_per_point) << op.name;
    EXPECT_EQ(op.instances, gemm ? 4 * 32 * 16 : 4 * 8) << op.name;
    EXPECT_DOUBLE_EQ(op.compute_cycles, 65536.0 * static_cast<double>(w.ops[o].ops_per_point)) << op.name;
  }
  EXPECT_EQ(macs, r.macs);
  EXPECT_EQ(vector_ops, r.vector_ops);
}

// Own cycles count what an op's own tiles take, transfers included; compute cycles leave them
// out. Two element-wise ops in turn over four steps of m: x spreads 16 points over 16 lanes
// (one cycle of compute) but loads them from DRAM first (32 B at 8 B a cycle, and the start-up
// every transfer into an addressed level takes); y spreads them over 4 lanes (4 cycles) and
// stores its result to DRAM (as long as x's load). Each step, each stage's latency is the longer
// of its transfers and its compute.
TEST(Analyze, OwnCyclesIncludeAStagesTransfers) {
  const char* wl = R"yaml(name: twice
dims: {m: 64}
ops:
  - {name: x, expr: "X[m] = exp(A[m])"}
  - {name: y, expr: "Y[m] = exp(X[m])"}
)yaml";
  const char* flow = R"(tree:
  tile: DRAM
  loops: ["m:4"]
  keep: {X: L1}
  children:
    - {tile: L1, loops: ["m:16:sp"], children: [{op: x}]}
    - {tile: L1, loops: ["m:4:sp"], children: [{op: y}]}
)";
  auto run = [&](const std::string& dram_bw) {
    std::string arch = kTwoLevels;
    arch.replace(arch.find("read_bw: 8, write_bw: 8"), 23, "read_bw: " + dram_bw + ", write_bw: " + dram_bw);
    const arch::Arch a = arch::load_arch_from_string(arch, "arch");
    const Workload w = load_workload_from_string(wl, "workload");
    const Report r = analyze(a, w, load_dataflow_from_string(flow, "flow", a, w));
    EXPECT_TRUE(r.valid) << r.reason;
    const double startup = static_cast<double>(arch::transfer_startup(a.levels[0], a.levels[1]) + arch::kIssueCycles);
    return std::make_tuple(r, startup);
  };
  const auto [slow, startup] = run("8");
  ASSERT_EQ(slow.ops.size(), 2u);
  EXPECT_DOUBLE_EQ(slow.ops[0].compute_cycles, 4);
  EXPECT_DOUBLE_EQ(slow.ops[1].compute_cycles, 16);
  ASSERT_TRUE(slow.ops[0].own_cycles && slow.ops[1].own_cycles);
  const double dram_step = 16 * 2 / 8.0 + startup;  // 16 elements of 2 B
  EXPECT_DOUBLE_EQ(*slow.ops[0].own_cycles, 4 * std::max(1.0, dram_step));
  EXPECT_DOUBLE_EQ(*slow.ops[1].own_cycles, 4 * std::max({16 * 2 / 64.0 + startup, 4.0, dram_step}));
  // Eight times the DRAM bandwidth: x's compute is unchanged, its own time is not.
  const auto [fast, same_startup] = run("64");
  EXPECT_DOUBLE_EQ(fast.ops[0].compute_cycles, 4);
  EXPECT_DOUBLE_EQ(*fast.ops[0].own_cycles, 4 * std::max(1.0, 16 * 2 / 64.0 + same_startup));
  EXPECT_LT(*fast.ops[0].own_cycles, *slow.ops[0].own_cycles);
}

// Units that take whole instructions from queues are not timed by the tree's latencies: no own
// cycles there (the report leaves them out rather than give a figure the cycles do not follow).
TEST(Analyze, NoOwnCyclesOnInstructionTimedUnits) {
  const arch::Arch a = arch::load_arch(test::config("arch/ascend_like.yaml"));
  const Workload w = load_workload(test::config("workloads/attention_g1.yaml"));
  const Report r = analyze(a, w, load_dataflow(test::config("dataflows/attention_g1_ascend_fused.yaml"), a, w));
  ASSERT_TRUE(r.valid) << r.reason;
  for (const OpReport& op : r.ops) EXPECT_FALSE(op.own_cycles) << op.name;
}

// On units that take whole instructions a level's busy time counts its transfers, not the units'
// operand accesses (one per MAC at L0A/L0B/L0C: a cube takes a block per instruction, and those
// times are in the instructions'); the compute side of the bottleneck is the busiest unit's
// instructions. Before, L0A "bandwidth" was the bottleneck of this tree at 3.2x its cycles.
TEST(Analyze, InstructionUnitsOperandsAreNotTheLevelsBusyTime) {
  const arch::Arch a = arch::load_arch(test::config("arch/ascend_like.yaml"));
  const Workload w = load_workload(test::config("workloads/attention_g1.yaml"));
  const Report r = analyze(a, w, load_dataflow(test::config("dataflows/attention_g1_ascend_fused.yaml"), a, w));
  ASSERT_TRUE(r.valid) << r.reason;
  const LevelReport* l0a = nullptr;
  for (const LevelReport& l : r.levels)
    if (l.name == "L0A") l0a = &l;
  ASSERT_NE(l0a, nullptr);
  ASSERT_GT(l0a->traffic.read, 0);
  const arch::MemoryLevel& lv = a.levels[static_cast<size_t>(a.level_index("L0A"))];
  // The cube reads every operand it multiplies from L0A; only the MTEs' fills occupy the port.
  EXPECT_EQ(l0a->traffic.read, r.macs);
  EXPECT_DOUBLE_EQ(l0a->busy_cycles, static_cast<double>(l0a->traffic.fill) * lv.word_bytes / (lv.write_bw * static_cast<double>(lv.instances)));
  EXPECT_NE(r.bottleneck, "L0A bandwidth");
  double busiest_unit[2] = {0, 0};
  for (size_t o = 0; o < r.ops.size(); ++o) busiest_unit[r.ops[o].unit == "matrix" ? 0 : 1] += r.ops[o].compute_cycles;
  for (const LevelReport& l : r.levels) EXPECT_LE(l.busy_cycles, r.bottleneck_cycles) << l.name;
  EXPECT_GE(r.bottleneck_cycles, std::max(busiest_unit[0], busiest_unit[1]));
  EXPECT_LT(r.bottleneck_cycles, r.cycles);  // this tree waits on its units' turns (49% busy)
  for (const LevelReport& l : r.levels) {
    if (r.bottleneck == l.name + " bandwidth") {
      EXPECT_EQ(l.busy_cycles, r.bottleneck_cycles);
      for (const LevelReport& other : r.levels) EXPECT_LE(other.busy_cycles, l.busy_cycles) << other.name;
      EXPECT_GE(l.busy_cycles, std::max(busiest_unit[0], busiest_unit[1]));
    }
  }
  if (r.bottleneck == "compute") {
    for (const LevelReport& l : r.levels) EXPECT_LE(l.busy_cycles, std::max(busiest_unit[0], busiest_unit[1])) << l.name;
  }
}

// On units that take whole instructions a statement of several operations takes one instruction
// per operation over its block: Sm += exp(D) * 3 + 1 does four per element where Sm += D does
// one. Timed as one instruction, it reported 196% of the lanes busy (a user's QA pass).
TEST(Analyze, EachOperationOfAStatementIsAnInstruction) {
  const arch::Arch a = arch::load_arch(test::config("arch/tpu_like_small.yaml"));
  auto run = [&](const std::string& expr) {
    const Workload w = load_workload_from_string(
        "name: rows\ndims: {b: 2, m: 64, l: 64}\nops:\n  - {name: r, expr: \"" + expr + "\"}\n", "rows.yaml");
    const std::string flow =
        "name: f\ntree:\n  tile: DRAM\n  children:\n  - tile: DRAM\n    loops: [\"b:2:sp\", \"m:3\"]\n    children:\n"
        "    - tile: SPM\n      children:\n      - tile: SPM\n        loops: [\"m:22\", \"l:64\"]\n        children:\n        - op: r\n";
    return analyze(a, w, load_dataflow_from_string(flow, "flow", a, w));
  };
  const Report one = run("Sm[b,m] += D[b,m,l]");
  const Report four = run("Sm[b,m] += exp(D[b,m,l]) * 3 + 1");
  ASSERT_TRUE(one.valid) << one.reason;
  ASSERT_TRUE(four.valid) << four.reason;
  EXPECT_EQ(four.vector_ops, 4 * one.vector_ops);
  const double lanes = static_cast<double>(a.unit(arch::UnitKind::Vector)->total_pes());
  EXPECT_GE(four.cycles, static_cast<double>(four.vector_ops) / lanes);
  EXPECT_LE(four.utilization, 1.0);
  EXPECT_GE(four.ops[0].compute_cycles, 4 * one.ops[0].compute_cycles);  // each pass at exp's depth
}

// The compute side of the bottleneck is at least the slowest op on the PEs the tree gives it: a
// GEMM without loops runs on one PE, 512 cycles of MACs, and read "compute, busy 0%" when the
// compute time was the chip's MACs / PEs (a QA pass found it).
TEST(Analyze, ComputeBoundIsTheSlowestOpOnItsPes) {
  const arch::Arch a = arch::load_arch(test::config("arch/edge.yaml"));
  const Workload w = test::one_gemm("g", "m: 8, k: 8, n: 8");
  const Report r = analyze(a, w, load_dataflow_from_string("name: f\ntree:\n  tile: DRAM\n  children:\n  - tile: L1\n    children:\n    - op: g\n", "flow", a, w));
  ASSERT_TRUE(r.valid) << r.reason;
  EXPECT_EQ(r.ops[0].instances, 1);
  EXPECT_EQ(r.bottleneck, "compute");
  EXPECT_DOUBLE_EQ(r.bottleneck_cycles, 512);
  EXPECT_LE(r.bottleneck_cycles, r.cycles);
  EXPECT_GE(r.bottleneck_cycles, 0.9 * r.cycles);  // the PE is the run, but for the fill and drain
}

// tpu_like's systolic array takes its operands from the SPM into per-PE registers no program
// addresses, and writes its results back: the mma's own work (WalkResult::feed_reads), not the
// DMA's. The GEMM chain keeps the array 96% busy; its bottleneck read "SPM bandwidth" at 10x
// its cycles when those feeds counted as the SPM's transfers.
TEST(Analyze, RegisterFeedsAreTheArraysWork) {
  const arch::Arch a = arch::load_arch(test::config("arch/tpu_like.yaml"));
  const Workload w = load_workload(test::config("workloads/gemm_chain_g1.yaml"));
  const Report r = analyze(a, w, load_dataflow(test::config("dataflows/gemm_chain_g1_tpu_like_explored.yaml"), a, w));
  ASSERT_TRUE(r.valid) << r.reason;
  const LevelReport& spm = r.levels[static_cast<size_t>(a.level_index("SPM"))];
  const LevelReport& reg = r.levels[static_cast<size_t>(a.level_index("Reg"))];
  // The array's register fills are read from the SPM; the DMA's transfers are the rest.
  EXPECT_GT(spm.unit_reads, 0);
  EXPECT_LE(spm.unit_reads, spm.traffic.read);
  EXPECT_EQ(reg.unit_reads, reg.traffic.read);  // the MACs' operands
  EXPECT_LT(spm.busy_cycles, r.cycles);
  EXPECT_EQ(r.bottleneck, "compute");
}

}  // namespace
}  // namespace dfx::model

namespace dfx::model {
namespace {

// A workload with no MACs keeps its lanes busy, not the matrix unit: its utilisation is the
// lanes' (it read 0% on every arch with a matrix unit).
TEST(Utilisation, ElementWiseWorkloadsCountTheLanes) {
  const arch::Arch a = arch::load_arch_from_string(kTwoLevels, "two");
  const Workload w = load_workload_from_string(
      "name: ew\ndims: {m: 64, n: 32}\nops:\n  - {name: e, expr: \"B[m,n] = exp(A[m,n])\"}\n", "ew");
  const Report r = analyze(a, w, load_dataflow_from_string(
      "tree:\n  tile: DRAM\n  children:\n    - tile: L1\n      loops: [\"m:64:sp\"]\n      children: [{op: e}]\n", "ew", a, w));
  ASSERT_TRUE(r.valid) << r.reason;
  ASSERT_EQ(r.macs, 0);
  EXPECT_GT(r.utilization, 0);
  EXPECT_DOUBLE_EQ(r.utilization, static_cast<double>(r.vector_ops) / (r.cycles * 64));
}

}  // namespace
}  // namespace dfx::model
