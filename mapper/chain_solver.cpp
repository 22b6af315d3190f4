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
  std::vector<int> between;  // vector ops between the two GEMMs, in order
  int tiles_kept = 1;        // C and the ops' outputs over (m, l): T_M × T_L each in the buffer
  int rows_kept = 0;         // the ops' outputs reduced over l (a row's max, sum): T_M each
  bool rows_whole = false;   // an op reduces over l: it needs all of a row before a later op uses it
};

// The dims of an access that indexes each tensor dimension by one dim, unscaled and unshifted
// (empty otherwise).
std::vector<int> plain_dims(const model::TensorAccess& acc) {
  std::vector<int> dims;
  for (const auto& ix : acc.index) {
    if (ix.terms.size() != 1 || ix.terms[0].coef != 1 || ix.offset != 0) return {};
    dims.push_back(ix.terms[0].dim);
  }
  return dims;
}

// C's dims without l: the shape of a row reduced over l.
std::vector<int> without(std::vector<int> dims, int l) {
  dims.erase(std::remove(dims.begin(), dims.end(), l), dims.end());
  return dims;
}

// The vector ops that carry C from the first GEMM to the second: element-wise ones (ReLU, a
// scale) and, as in a softmax, reductions of C's rows over l and ops that read such a row
// beside C's elements. Each reads only what the chain made before it, in C's shape or a row's,
// and everything it makes is read later in the chain. `l` is the second GEMM's reduction dim.
bool note_ops_between(const model::Workload& w, int l, ChainDims& d) {
  const std::vector<int> c_dims = plain_dims(w.ops[0].out);
  const std::vector<int> row_dims = without(c_dims, l);
  if (c_dims.empty() || row_dims.size() == c_dims.size()) return false;
  auto made_in_chain = [&](int tensor, size_t before) {
    const int producer = w.tensors[static_cast<size_t>(tensor)].producer;
    return producer >= 0 && static_cast<size_t>(producer) < before;
  };
  for (size_t o = 1; o + 1 < w.ops.size(); ++o) {
    const model::Op& op = w.ops[o];
    const std::vector<int> out = plain_dims(op.out);
    const bool reduces = out == row_dims && op.reduction_dims == std::vector<int>{l};
    if (op.unit != arch::UnitKind::Vector || (out != c_dims && !reduces) || (!reduces && !op.reduction_dims.empty()) ||
        op.inputs.empty())
      return false;
    for (const auto& in : op.inputs) {
      const std::vector<int> dims = plain_dims(in);
      if (!made_in_chain(in.tensor, o) || (dims != c_dims && dims != row_dims)) return false;
    }
    d.between.push_back(static_cast<int>(o));
    (reduces ? d.rows_kept : d.tiles_kept) += 1;
    d.rows_whole = d.rows_whole || reduces;
  }
  // Nothing the chain makes leaves it but E: every intermediate has a reader.
  for (size_t o = 0; o + 1 < w.ops.size(); ++o)
    if (w.tensors[static_cast<size_t>(w.ops[o].out.tensor)].consumers.empty()) return false;
  const model::Op& g2 = w.ops.back();
  return made_in_chain(g2.inputs[0].tensor, w.ops.size() - 1) && plain_dims(g2.inputs[0]) == c_dims &&
         !made_in_chain(g2.inputs[1].tensor, w.ops.size());
}

// Recognises C[..m..l] += A[..m..k]·B[..k..l]; E[..m..n] += C'·D[..l..n] by the roles of dims,
// with vector ops carrying C to C' in between (note_ops_between).
std::optional<ChainDims> chain_dims(const model::Workload& w) {
  if (w.ops.size() < 2) return std::nullopt;
  const model::Op& g1 = w.ops.front();
  const model::Op& g2 = w.ops.back();
  if (g1.unit != arch::UnitKind::Matrix || g2.unit != arch::UnitKind::Matrix || g1.reduction_dims.size() != 1 ||
      g2.reduction_dims.size() != 1 || g2.inputs.size() != 2 || g1.inputs.size() != 2)
    return std::nullopt;
  ChainDims d;
  d.k = g1.reduction_dims[0];
  d.l = g2.reduction_dims[0];
  if (!note_ops_between(w, d.l, d)) return std::nullopt;
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

// The arrays (rows × cols PEs) and vector lanes one core has for an operator's tile.
struct CoreUnits {
  int64_t rows = 1, cols = 1, lanes = 1;
};

// A core's arrays (sub-cores) side by side, in the rows × cols grid of them closest to square,
// and its vector lanes.
CoreUnits core_units(const arch::Arch& a, const arch::ComputeUnit& mu, const arch::ComputeUnit* vu) {
  const auto side = static_cast<int64_t>(std::floor(std::sqrt(static_cast<double>(mu.pes_per_instance))));
  const int64_t arrays = std::max<int64_t>(1, mu.instances / a.cores);
  int64_t grid_cols = 1;
  for (int64_t d : divisors(arrays))
    if (d * d <= arrays) grid_cols = d;
  CoreUnits units;
  units.rows = side * (arrays / grid_cols);
  units.cols = mu.pes_per_instance / side * grid_cols;
  if (vu) units.lanes = std::max<int64_t>(1, vu->total_pes() / a.cores);
  return units;
}

// The tree: the cores' loop, batch and m, l at DRAM (C and what the ops between make of it kept
// in the buffer); k below for gemm1, n for gemm2; each GEMM's tile spreads its two output dims
// over the core's arrays, each op between spreads the C tile over the lanes.
std::string chain_tree(const arch::Arch& a, const model::Workload& w, const ChainDims& chain, const ChainSolution& s,
                       int registers, const CoreUnits& units) {
  const auto* dims = &chain;
  auto size = [&](int x) { return w.dims[static_cast<size_t>(x)].size; };
  const int64_t K = size(dims->k), L = size(dims->l), N = size(dims->n);
  const auto& buf = a.levels[static_cast<size_t>(s.buffer_level)];
  auto name = [&](int d) { return w.dims[static_cast<size_t>(d)].name; };
  auto loop = [&](int d, int64_t f, bool spatial = false) {
    return "\"" + name(d) + ":" + std::to_string(f) + (spatial ? ":sp\"" : "\"");
  };
  auto list = [](const std::vector<std::string>& items) {
    std::string out;
    for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
    return out;
  };
  std::vector<std::string> outer, keep;
  if (s.core_dim >= 0) outer.push_back(loop(s.core_dim, a.cores, true));
  for (int b : dims->batch) {
    const int64_t per_core = b == s.core_dim ? size(b) / a.cores : size(b);
    if (b != s.core_dim || per_core > 1) outer.push_back(loop(b, per_core));
  }
  const int64_t m_per_core = dims->m == s.core_dim ? size(dims->m) / a.cores : size(dims->m);
  outer.push_back(loop(dims->m, m_per_core / s.tm));
  if (L / s.tl > 1) outer.push_back(loop(dims->l, L / s.tl));  // one trip: above a row's reductions, none
  keep.push_back(w.tensors[static_cast<size_t>(w.ops.front().out.tensor)].name + ": " + buf.name);
  for (int o : dims->between) keep.push_back(w.tensors[static_cast<size_t>(w.ops[static_cast<size_t>(o)].out.tensor)].name + ": " + buf.name);
  std::ostringstream os;
  os << "name: chain_solver\nworkload: " << w.name << "\ntree:\n  tile: " << a.levels[0].name << "\n  loops: ["
     << list(outer) << "]\n  keep: {" << list(keep) << "}\n  children:\n";
  // An operator's buffer tile over t1 × t2 of (m, out2) (none: out2 < 0), spread over up to
  // `across` × `down`, with `tred` steps of its reduction (none: red < 0); `indent` deep.
  auto buffer_tile = [&](const model::Op& op, const std::string& indent, int out2, int64_t t1, int64_t t2,
                         int64_t across, int64_t down, int red, int64_t tred) {
    const int64_t s2 = largest_divisor_at_most(t2, static_cast<double>(down));
    const int64_t s1 = largest_divisor_at_most(t1, static_cast<double>(across) * static_cast<double>(down / s2));
    std::vector<std::string> loops;
    if (t1 / s1 > 1) loops.push_back(loop(dims->m, t1 / s1));
    if (out2 >= 0 && t2 / s2 > 1) loops.push_back(loop(out2, t2 / s2));
    if (red >= 0 && tred > 1) loops.push_back(loop(red, tred));
    if (s1 > 1) loops.push_back(loop(dims->m, s1, true));
    if (out2 >= 0 && s2 > 1) loops.push_back(loop(out2, s2, true));
    os << indent << "- tile: " << buf.name << "\n" << indent << "  loops: [" << list(loops) << "]\n" << indent << "  children:\n";
    if (op.unit == arch::UnitKind::Matrix && registers >= 0)
      os << indent << "    - tile: " << a.levels[static_cast<size_t>(registers)].name << "\n" << indent
         << "      children: [{op: " << op.name << "}]\n";
    else
      os << indent << "    - {op: " << op.name << "}\n";
  };
  // A GEMM's private loop at DRAM (k of gemm1, n of gemm2) around its buffer tile.
  auto gemm_tree = [&](const model::Op& op, int out2, int64_t t2, int red, int64_t tred, int private_dim,
                       int64_t private_trips) {
    os << "    - tile: " << a.levels[0].name << "\n      loops: [" << loop(private_dim, private_trips) << "]\n      children:\n";
    buffer_tile(op, "        ", out2, s.tm, t2, units.rows, units.cols, red, tred);
  };
  gemm_tree(w.ops.front(), dims->l, s.tl, dims->k, s.tk, dims->k, K / s.tk);
  // Ops between spread C's tile over the lanes; one that reduces a row over l spreads its rows.
  for (int o : dims->between) {
    const model::Op& op = w.ops[static_cast<size_t>(o)];
    if (op.reduction_dims.empty()) buffer_tile(op, "    ", dims->l, s.tm, s.tl, 1, units.lanes, -1, 1);
    else buffer_tile(op, "    ", -1, s.tm, 1, units.lanes, 1, dims->l, s.tl);
  }
  gemm_tree(w.ops.back(), dims->n, s.tn, dims->l, s.tl, dims->n, N / s.tn);
  return os.str();
}

}  // namespace

std::optional<ChainSolution> solve_gemm_chain(const arch::Arch& a, const model::Workload& w) {
  auto dims = chain_dims(w);
  const arch::ComputeUnit* mu = a.unit(arch::UnitKind::Matrix);
  const arch::ComputeUnit* vu = a.unit(arch::UnitKind::Vector);
  if (!dims || !mu || (!dims->between.empty() && !vu)) return std::nullopt;
  int buffer = -1, registers = -1;
  for (size_t l = 1; l < a.levels.size(); ++l) {
    // The buffer holds every tensor of the chain: a level kept to some roles (ascend_like's
    // L0A/L0B/L0C, or its UB for the vector unit) cannot.
    const bool holds_all = std::all_of(std::begin(a.levels[l].holds), std::end(a.levels[l].holds), [](bool h) { return h; });
    if (a.levels[l].instances <= a.cores * a.sub_cores && holds_all) buffer = static_cast<int>(l);
    if (a.levels[l].instances == mu->total_pes()) registers = static_cast<int>(l);
  }
  if (buffer < 0 || a.levels[static_cast<size_t>(buffer)].unlimited()) return std::nullopt;
  auto size = [&](int d) { return w.dims[static_cast<size_t>(d)].size; };
  const int64_t M = size(dims->m), K = size(dims->k), L = size(dims->l), N = size(dims->n);
  const auto& buf = a.levels[static_cast<size_t>(buffer)];
  const double mc = buf.capacity_bytes / buf.word_bytes;
  ChainSolution s;
  s.buffer_level = buffer;
  // The cores take a batch dim they divide, else m: rows of C and E are independent, and the
  // cores then share B's and D's tiles (one transfer at DRAM serves them all).
  for (int b : dims->batch)
    if (s.core_dim < 0 && a.cores > 1 && size(b) % a.cores == 0) s.core_dim = b;
  if (s.core_dim < 0 && a.cores > 1 && M % a.cores == 0) s.core_dim = dims->m;
  const int64_t m_per_core = s.core_dim == dims->m ? M / a.cores : M;
  const CoreUnits units = core_units(a, *mu, vu);
  // α: the smallest tile that keeps a core's arrays busy along one side.
  s.tk = largest_divisor_at_most(K, static_cast<double>(units.cols));
  s.tn = largest_divisor_at_most(N, static_cast<double>(units.cols));
  // C and each op's output between the GEMMs stay in the buffer: t of them T_M × T_L each, and r
  // rows reduced over l, T_M each.
  const auto t = static_cast<int64_t>(dims->tiles_kept), r = static_cast<int64_t>(dims->rows_kept);
  auto mu_of = [&](int64_t tm, int64_t tl) {
    return static_cast<double>(t * tm * tl + r * tm + std::max(tm * s.tk + s.tk * tl, tl * s.tn + tm * s.tn));
  };
  if (dims->rows_whole) {
    // A row reduced over l (a softmax's max and sum) is read again beside the row's elements, so
    // the whole row is in the buffer first: T_L = L, and T_M is the one unknown. MU is linear in
    // it: T_M* = min over the two operand pairs of (MC − α·L) / (t·L + r + α).
    s.tl = L;
    const double per_row = static_cast<double>(t * L + r);
    s.ideal_tile = std::min((mc - static_cast<double>(s.tk * L)) / (per_row + static_cast<double>(s.tk)),
                            (mc - static_cast<double>(s.tn * L)) / (per_row + static_cast<double>(s.tn)));
    if (mu_of(1, L) > mc) return std::nullopt;
    s.tm = largest_divisor_at_most(m_per_core, s.ideal_tile);
  } else {
    // MU = t·T² + 2αT at T_M = T_L = T, T_K = T_N = α (rows reduced: none), and MU = MC gives
    // T* = (−α + √(α² + t·MC)) / t (§3's formula for t = 1).
    const double alpha = static_cast<double>(std::max(s.tk, s.tn)), c = static_cast<double>(t);
    s.ideal_tile = (-alpha + std::sqrt(alpha * alpha + c * mc)) / c;
    s.tm = largest_divisor_at_most(m_per_core, s.ideal_tile);
    s.tl = largest_divisor_at_most(L, s.ideal_tile);
    // Rounding down may still overflow when α was rounded too: shrink the larger tile until MU fits.
    while (mu_of(s.tm, s.tl) > mc && (s.tm > 1 || s.tl > 1)) {
      if (s.tm >= s.tl) s.tm = largest_divisor_at_most(m_per_core, static_cast<double>(s.tm - 1));
      else s.tl = largest_divisor_at_most(L, static_cast<double>(s.tl - 1));
    }
    // A tile held down by its extent (one core's rows, or all of L) leaves room: the other grows
    // into it, the largest divisor that still fits (DV falls as either tile grows).
    for (int64_t d : divisors(L))
      if (d > s.tl && mu_of(s.tm, d) <= mc) s.tl = d;
  }
  for (int64_t d : divisors(m_per_core))
    if (d > s.tm && mu_of(d, s.tl) <= mc) s.tm = d;
  s.footprint_elems = mu_of(s.tm, s.tl);
  double batch = 1;
  for (int b : dims->batch) batch *= static_cast<double>(size(b));
  // Per core: trips over its rows. Every core reads its own A rows and writes its own E rows;
  // B and D, the same for every core at each step, go out of DRAM once for all of them if DRAM
  // multicasts, else once per core.
  const double trips_m = static_cast<double>(m_per_core / s.tm), trips_l = static_cast<double>(L / s.tl);
  const double copies = s.core_dim == dims->m && !a.levels[0].multicast ? static_cast<double>(a.cores) : 1;
  s.predicted_dram_elems = batch * (static_cast<double>(M * K) * trips_l + static_cast<double>(K * L) * trips_m * copies +
                                    static_cast<double>(N * L) * trips_m * copies + static_cast<double>(M * N) * trips_l);
  s.flow_yaml = chain_tree(a, w, *dims, s, registers, units);
  return s;
}

}  // namespace dfx::mapper
