#include "mapper/chain_solver.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "mapper/space.h"

namespace dfx::mapper {
namespace {

struct ChainDims {
  int m = -1, k = -1, l = -1, n = -1;
  std::vector<int> batch;
};

// Recognises C[..m..l] += A[..m..k]·B[..k..l]; E[..m..n] += C·D[..l..n] by the roles of dims.
std::optional<ChainDims> chain_dims(const model::Workload& w) {
  if (w.ops.size() != 2) return std::nullopt;
  const model::Op& g1 = w.ops[0];
  const model::Op& g2 = w.ops[1];
  if (g1.unit != arch::UnitKind::Matrix || g2.unit != arch::UnitKind::Matrix || g1.reduction_dims.size() != 1 ||
      g2.reduction_dims.size() != 1 || g2.inputs.size() != 2 || g2.inputs[0].tensor != g1.out.tensor)
    return std::nullopt;
  ChainDims d;
  d.k = g1.reduction_dims[0];
  d.l = g2.reduction_dims[0];
  for (int x : g1.dims) {
    if (x == d.k || x == d.l) continue;
    bool in_b = false;  // a dim of A and not of B is m; a dim of both is a batch dim
    for (const auto& ix : g1.inputs[1].index)
      for (const auto& t : ix.terms) in_b |= t.dim == x;
    if (in_b) d.batch.push_back(x);
    else if (d.m < 0) d.m = x;
    else return std::nullopt;
  }
  for (int x : g2.dims)
    if (x != d.l && x != d.m && std::find(d.batch.begin(), d.batch.end(), x) == d.batch.end()) {
      if (d.n >= 0) return std::nullopt;
      d.n = x;
    }
  if (d.m < 0 || d.n < 0 || !g1.uses_dim(d.l) || g1.uses_dim(d.n)) return std::nullopt;
  return d;
}

int64_t largest_divisor_at_most(int64_t n, double at_most) {
  int64_t best = 1;
  for (int64_t d : divisors(n))
    if (static_cast<double>(d) <= at_most) best = d;
  return best;
}

// The tree: the cores' loop, batch and m, l at DRAM (C kept in the buffer); k below for gemm1, n
// for gemm2; each operator's tile spreads its two output dims over the core's arrays (rows × cols).
std::string chain_tree(const arch::Arch& a, const model::Workload& w, const ChainDims& chain, const ChainSolution& s,
                       int buffer, int registers, int64_t rows, int64_t cols) {
  const auto* dims = &chain;
  auto size = [&](int x) { return w.dims[static_cast<size_t>(x)].size; };
  const int64_t K = size(dims->k), L = size(dims->l), N = size(dims->n);
  const auto& buf = a.levels[static_cast<size_t>(buffer)];
  auto name = [&](int d) { return w.dims[static_cast<size_t>(d)].name; };
  auto loop = [&](int d, int64_t f, bool spatial = false) {
    return "\"" + name(d) + ":" + std::to_string(f) + (spatial ? ":sp\"" : "\"");
  };
  std::ostringstream os;
  os << "name: chain_solver\nworkload: " << w.name << "\ntree:\n  tile: " << a.levels[0].name << "\n  loops: [";
  std::vector<std::string> outer;
  if (s.core_dim >= 0) outer.push_back(loop(s.core_dim, a.cores, true));
  for (int b : dims->batch) {
    const int64_t per_core = b == s.core_dim ? size(b) / a.cores : size(b);
    if (b != s.core_dim || per_core > 1) outer.push_back(loop(b, per_core));
  }
  const int64_t m_per_core = dims->m == s.core_dim ? size(dims->m) / a.cores : size(dims->m);
  outer.push_back(loop(dims->m, m_per_core / s.tm));
  outer.push_back(loop(dims->l, L / s.tl));
  for (size_t i = 0; i < outer.size(); ++i) os << (i ? ", " : "") << outer[i];
  os << "]\n  keep: {" << w.tensors[static_cast<size_t>(w.ops[0].out.tensor)].name << ": " << buf.name << "}\n  children:\n";
  auto op_tree = [&](const model::Op& op, int out2, int64_t t1, int64_t t2, int red, int64_t tred, int private_dim,
                     int64_t private_trips) {
    const int64_t s1 = largest_divisor_at_most(t1, static_cast<double>(rows));
    const int64_t s2 = largest_divisor_at_most(t2, static_cast<double>(cols));
    os << "    - tile: " << a.levels[0].name << "\n      loops: [\"" << name(private_dim) << ":" << private_trips
       << "\"]\n      children:\n        - tile: " << buf.name << "\n          loops: [";
    std::vector<std::string> loops;
    if (t1 / s1 > 1) loops.push_back(loop(dims->m, t1 / s1));
    if (t2 / s2 > 1) loops.push_back(loop(out2, t2 / s2));
    if (tred > 1) loops.push_back(loop(red, tred));
    if (s1 > 1) loops.push_back(loop(dims->m, s1, true));
    if (s2 > 1) loops.push_back(loop(out2, s2, true));
    for (size_t i = 0; i < loops.size(); ++i) os << (i ? ", " : "") << loops[i];
    os << "]\n          children:\n";
    if (registers >= 0)
      os << "            - tile: " << a.levels[static_cast<size_t>(registers)].name << "\n              children: [{op: "
         << op.name << "}]\n";
    else
      os << "            - {op: " << op.name << "}\n";
  };
  op_tree(w.ops[0], dims->l, s.tm, s.tl, dims->k, s.tk, dims->k, K / s.tk);
  op_tree(w.ops[1], dims->n, s.tm, s.tn, dims->l, s.tl, dims->n, N / s.tn);
  return os.str();
}

}  // namespace

std::optional<ChainSolution> solve_gemm_chain(const arch::Arch& a, const model::Workload& w) {
  auto dims = chain_dims(w);
  const arch::ComputeUnit* mu = a.unit(arch::UnitKind::Matrix);
  if (!dims || !mu) return std::nullopt;
  int buffer = -1, registers = -1;
  for (size_t l = 1; l < a.levels.size(); ++l) {
    if (a.levels[l].instances <= a.cores * a.sub_cores) buffer = static_cast<int>(l);
    if (a.levels[l].instances == mu->total_pes()) registers = static_cast<int>(l);
  }
  if (buffer < 0 || a.levels[static_cast<size_t>(buffer)].unlimited()) return std::nullopt;
  auto size = [&](int d) { return w.dims[static_cast<size_t>(d)].size; };
  const int64_t M = size(dims->m), K = size(dims->k), L = size(dims->l), N = size(dims->n);
  const auto& buf = a.levels[static_cast<size_t>(buffer)];
  const double mc = buf.capacity_bytes / buf.word_bytes;
  ChainSolution s;
  // The cores take a batch dim they divide, else m: rows of C and E are independent, and the
  // cores then share B's and D's tiles (one transfer at DRAM serves them all).
  for (int b : dims->batch)
    if (s.core_dim < 0 && a.cores > 1 && size(b) % a.cores == 0) s.core_dim = b;
  if (s.core_dim < 0 && a.cores > 1 && M % a.cores == 0) s.core_dim = dims->m;
  const int64_t m_per_core = s.core_dim == dims->m ? M / a.cores : M;
  // α: the smallest tile that keeps the array busy along one side.
  const int64_t side = static_cast<int64_t>(std::floor(std::sqrt(static_cast<double>(mu->pes_per_instance))));
  s.tk = largest_divisor_at_most(K, static_cast<double>(side));
  s.tn = largest_divisor_at_most(N, static_cast<double>(side));
  const double alpha = static_cast<double>(std::max(s.tk, s.tn));
  s.ideal_tile = -alpha + std::sqrt(alpha * alpha + mc);
  s.tm = largest_divisor_at_most(m_per_core, s.ideal_tile);
  s.tl = largest_divisor_at_most(L, s.ideal_tile);
  // Rounding down may still overflow when α was rounded too: shrink the larger tile until MU fits.
  auto mu_of = [&](const ChainSolution& x) {
    return static_cast<double>(std::max(x.tm * x.tk + x.tk * x.tl + x.tm * x.tl, x.tm * x.tl + x.tl * x.tn + x.tm * x.tn));
  };
  while (mu_of(s) > mc && (s.tm > 1 || s.tl > 1)) {
    if (s.tm >= s.tl) s.tm = largest_divisor_at_most(m_per_core, static_cast<double>(s.tm - 1));
    else s.tl = largest_divisor_at_most(L, static_cast<double>(s.tl - 1));
  }
  s.footprint_elems = mu_of(s);
  double batch = 1;
  for (int b : dims->batch) batch *= static_cast<double>(size(b));
  // Per core: trips over its rows. Every core reads its own A rows and writes its own E rows;
  // B and D, the same for every core at each step, go out of DRAM once for all of them if DRAM
  // multicasts, else once per core.
  const double trips_m = static_cast<double>(m_per_core / s.tm), trips_l = static_cast<double>(L / s.tl);
  const double copies = s.core_dim == dims->m && !a.levels[0].multicast ? static_cast<double>(a.cores) : 1;
  s.predicted_dram_elems = batch * (static_cast<double>(M * K) * trips_l + static_cast<double>(K * L) * trips_m * copies +
                                    static_cast<double>(N * L) * trips_m * copies + static_cast<double>(M * N) * trips_l);
  // A core's arrays (sub-cores) side by side: the rows × cols grid of them closest to square.
  const int64_t arrays = std::max<int64_t>(1, mu->instances / a.cores);
  int64_t grid_cols = 1;
  for (int64_t d : divisors(arrays))
    if (d * d <= arrays) grid_cols = d;
  s.flow_yaml = chain_tree(a, w, *dims, s, buffer, registers, side * (arrays / grid_cols),
                           mu->pes_per_instance / side * grid_cols);
  return s;
}

}  // namespace dfx::mapper
