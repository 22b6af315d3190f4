#pragma once
// Internal to mapper/chain_solver.cpp and mapper/chain_tree.cpp: a recognised GEMM chain and the
// tree written for a solution.
#include <string>
#include <vector>

#include "arch/arch.h"
#include "mapper/chain_solver.h"
#include "model/workload.h"

namespace dfx::mapper {

// One GEMM of the chain and the vector ops that carry its output to the next GEMM.
struct ChainStage {
  int gemm = -1;              // the GEMM's op
  int l = -1;                 // its output dim besides m and the batch dims (l_i; n for the last)
  std::vector<int> between;   // vector ops between it and the next GEMM, in order
  int tiles_kept = 1;         // its output and the ops' outputs in its shape (m × l each)
  int rows_kept = 0;          // the ops' outputs reduced over l (a row's max, sum: m each)
  bool rows_whole = false;    // an op reduces over l: a later op needs all of a row at once
};

// C_1[..m..l_1] += A[..m..k]·B_1[..k..l_1], then C_i[..m..l_i] += C'_{i-1}·B_i[..l_{i-1}..l_i]
// for i = 2..G, C' being C after the ops between (any batch dims ..).
struct Chain {
  int m = -1, k = -1;
  std::vector<int> batch;
  std::vector<ChainStage> stages;  // G ≥ 2 of them
};

// A core's matrix arrays (sub-cores) side by side, as one array of rows × cols PEs, and its
// vector lanes.
struct CoreUnits {
  int64_t rows = 1, cols = 1, lanes = 1;
};

int64_t largest_divisor_at_most(int64_t n, double at_most);

// The tile of an extent n the solver takes for an ideal of `at_most`: the largest divisor up to
// it, or, where that is under half of the widest even chunk up to it (a prime's divisors leave
// 1), that chunk with a partial last step (97 rows at most 60 at a time: 49 + 48). Extents with
// a divisor near every tile (powers of two) keep their divisors.
int64_t chain_tile(int64_t n, double at_most);
// Every tile chain_tile gives over n, ascending.
std::vector<int64_t> chain_tiles(int64_t n);

// The tree of a solution (ChainSolution::flow_yaml). Two GEMMs: the cores' loop, batch and m, l
// at DRAM (C and what the ops between make of it kept in the buffer); k below for gemm1, n for
// gemm2. Longer chains: m at DRAM, and below it the first two GEMMs as a tile over l_1 (C_1 kept
// there, C_2 accumulating over its steps), then each later GEMM over whole rows of its input
// (C_2 … C_{G-1} kept at the root). `registers`: the per-PE level matrix ops run under (-1: none).
std::string chain_tree(const arch::Arch& a, const model::Workload& w, const Chain& chain, const ChainSolution& s,
                       int registers, const CoreUnits& units);

}  // namespace dfx::mapper
