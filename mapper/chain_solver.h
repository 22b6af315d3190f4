#pragma once
// The analytical chain solver of REFERENCE.md §3 (Chimera): for a two-GEMM chain
// C[m,l] += A[m,k]·B[k,l], E[m,n] += C[m,l]·D[l,n] (with any batch dimensions), loop order
// m, l, k, n, and a buffer of MC elements, the tiles T_M = T_L = −α + sqrt(α² + MC),
// T_K = T_N = α minimise DRAM traffic; α is the smallest legal tile (the matrix unit's width).
// On several cores each takes its share of a batch dim or of m, and the tiles are those of one
// core's share; a core's arrays (sub-cores) work side by side on its tile. Element-wise vector
// ops between the two GEMMs (C → ReLU → second GEMM) run on C's tile in the buffer; each keeps
// one more T_M × T_L tile there, which the tile formula accounts for. Ops that reduce a row of C
// over l and ops that read such a row beside C (attention's softmax: max, sub, exp, sum, div)
// need the whole row before a later op reads it: T_L = L, and T_M is the largest that fits.
// Longer chains (C_i = C_{i-1}·B_i, G GEMMs) tile the first two as above and let each later
// GEMM read whole rows of the one before (kept in the buffer, no recomputation): §3's traffic
// MK·⌈L_1/T_L1⌉ + (K·L_1 + Σ L_{i-1}·L_i)·⌈M/T_M⌉ + M·L_G, minimised over every pair of
// tiles (T_M, T_L1) that fits. Tiles are divisors where an extent has one near the ideal, else
// chunks with a partial last step (a prime's divisors would leave tiles of 1); where the cores
// divide neither a batch dim nor m, a batch dim over more than half of them evenly, else m in
// the widest even chunks (97 rows on 4 cores: 25 + 25 + 25 + 22), on every arch.
#include <optional>
#include <string>
#include <vector>

#include "arch/arch.h"
#include "model/workload.h"

namespace dfx::mapper {

struct ChainSolution {
  int gemms = 2;                           // G, the chain's GEMMs
  int64_t tm = 1, tl = 1, tk = 1, tn = 1;  // tiles after rounding (tm: of one core's rows; tl of l_1; tn of the last
                                           // GEMM's output dim): divisors, or chunks with a partial last step where
                                           // an extent's divisors fall short (97 rows: 49 + 48)
  int core_dim = -1;                       // the dim spread over the cores (a batch dim or m), -1: none
  int64_t cores = 1;                       // how many cores take it
  int buffer_level = -1;                   // the level that keeps C (MC is its capacity)
  double ideal_tile = 0;                   // two GEMMs: T_M* = T_L* (or T_M* with whole rows) before rounding
  double predicted_dram_elems = 0;         // A and the B_i read, the last result written, as §3 counts them
  double footprint_elems = 0;              // MU of the rounded tiles
  std::string flow_yaml;                   // the tree (mapper/chain_internal.h, chain_tree)
  // The same tiles as a point of the search's template (Space::fused_at), where it has one: two
  // GEMMs (a longer chain's first two sit under a tile of their own). Per workload dim the fused
  // group's tile on one core; per op, per op dim, the trips of its own loop at DRAM (k for the
  // first GEMM, n for the second). Both empty for longer chains, and where T_K or T_N leaves a
  // partial last step (the template's own loops step evenly).
  std::vector<int64_t> group_tile;
  std::vector<std::vector<int64_t>> own_trips;
};

// Contract: nullopt when the workload is not a chain of GEMMs (with only such vector ops
// between them), the arch has no buffer, matrix unit or (for ops between) vector unit it can
// use, or whole rows do not fit the buffer — then, with `why_none`, it says so there.
std::optional<ChainSolution> solve_gemm_chain(const arch::Arch& a, const model::Workload& w, std::string* why_none = nullptr);

// The same tree and prediction with tiles chosen by the caller (T_M of one core's rows, T_L of
// l_1; the others as solved), whether or not they fit: for checking the solver's choice against
// the analysis of other tiles. Contract: nullopt where solve_gemm_chain has no solution for a
// reason other than capacity, or the tiles do not divide their extents (or T_L ≠ L where whole
// rows are needed).
std::optional<ChainSolution> gemm_chain_with_tiles(const arch::Arch& a, const model::Workload& w, int64_t tm, int64_t tl);

}  // namespace dfx::mapper
