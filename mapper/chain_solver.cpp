#include "mapper/chain_solver.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "mapper/chain_internal.h"
#include "mapper/space.h"
#include "model/report_io.h"

namespace dfx::mapper {

int64_t largest_divisor_at_most(int64_t n, double at_most) {
  int64_t best = 1;
  for (int64_t d : divisors(n))
    if (static_cast<double>(d) <= at_most) best = d;
  return best;
}

int64_t chain_tile(int64_t n, double at_most) {
  const int64_t divisor = largest_divisor_at_most(n, at_most);
  const int64_t limit = std::clamp<int64_t>(static_cast<int64_t>(std::floor(at_most)), 1, n);
  const int64_t chunk = widest_spread(n, limit);
  return 2 * divisor >= chunk ? divisor : chunk;
}

std::vector<int64_t> chain_tiles(int64_t n) {
  std::vector<int64_t> tiles;
  for (int64_t trips : trip_counts(n)) {
    const int64_t chunk = ceil_div(n, trips);
    if (chain_tile(n, static_cast<double>(chunk)) == chunk) tiles.push_back(chunk);
  }
  std::sort(tiles.begin(), tiles.end());
  return tiles;
}

namespace {

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

bool made_by_ops_in(const model::Workload& w, int tensor, int first, int end) {
  const int producer = w.tensors[static_cast<size_t>(tensor)].producer;
  return producer >= first && producer < end;
}

// The vector ops that carry a GEMM's output C to the next GEMM (ops first .. end-1):
// element-wise ones (ReLU, a scale) and, as in a softmax, reductions of C's rows over the stage's
// l and ops that read such a row beside C's elements. Each reads only what the stage made before
// it, in C's shape or a row's.
bool note_ops_between(const model::Workload& w, int first, int end, ChainStage& st) {
  const std::vector<int> c_dims = plain_dims(w.ops[static_cast<size_t>(st.gemm)].out);
  const std::vector<int> row_dims = without(c_dims, st.l);
  if (c_dims.empty() || row_dims.size() == c_dims.size()) return false;
  for (int o = first; o < end; ++o) {
    const model::Op& op = w.ops[static_cast<size_t>(o)];
    const std::vector<int> out = plain_dims(op.out);
    const bool reduces = out == row_dims && op.reduction_dims == std::vector<int>{st.l};
    if (op.unit != arch::UnitKind::Vector || (out != c_dims && !reduces) || (!reduces && !op.reduction_dims.empty()) ||
        op.inputs.empty())
      return false;
    for (const auto& in : op.inputs) {
      const std::vector<int> dims = plain_dims(in);
      if (!made_by_ops_in(w, in.tensor, st.gemm, o) || (dims != c_dims && dims != row_dims)) return false;
    }
    st.between.push_back(o);
    (reduces ? st.rows_kept : st.tiles_kept) += 1;
    st.rows_whole = st.rows_whole || reduces;
  }
  return true;
}

bool uses_exactly(const model::Op& op, std::vector<int> dims) {
  std::vector<int> mine = op.dims;
  std::sort(mine.begin(), mine.end()), std::sort(dims.begin(), dims.end());
  return mine == dims;
}

// Recognises a chain of GEMMs by the roles of their dims (mapper/chain_internal.h): the first
// reads A and B from outside, each later one the chain's last result as its left operand and a
// matrix of its own from outside, with vector ops in between (note_ops_between); everything
// the chain makes but its last result is read later in it.
std::optional<Chain> recognise_chain(const model::Workload& w) {
  std::vector<int> gemms;
  for (size_t o = 0; o < w.ops.size(); ++o)
    if (w.ops[o].unit == arch::UnitKind::Matrix) gemms.push_back(static_cast<int>(o));
  if (gemms.size() < 2 || gemms.front() != 0 || gemms.back() != static_cast<int>(w.ops.size()) - 1) return std::nullopt;
  for (int g : gemms) {
    const model::Op& op = w.ops[static_cast<size_t>(g)];
    if (op.reduction_dims.size() != 1 || op.inputs.size() != 2 || plain_dims(op.out).empty() ||
        plain_dims(op.inputs[0]).empty() || plain_dims(op.inputs[1]).empty() ||
        made_by_ops_in(w, op.inputs[1].tensor, 0, static_cast<int>(w.ops.size())))
      return std::nullopt;
  }
  for (size_t o = 0; o + 1 < w.ops.size(); ++o)
    if (w.tensors[static_cast<size_t>(w.ops[o].out.tensor)].consumers.empty()) return std::nullopt;
  const model::Op& g1 = w.ops.front();
  if (made_by_ops_in(w, g1.inputs[0].tensor, 0, static_cast<int>(w.ops.size()))) return std::nullopt;
  Chain c;
  c.k = g1.reduction_dims[0];
  const int l1 = w.ops[static_cast<size_t>(gemms[1])].reduction_dims[0];
  for (int x : g1.dims) {
    if (x == c.k || x == l1) continue;
    bool in_b = false;  // a dim of A and not of B is m; a dim of both is a batch dim
    for (const auto& ix : g1.inputs[1].index)
      for (const auto& t : ix.terms) in_b |= t.dim == x;
    if (in_b) c.batch.push_back(x);
    else if (c.m < 0) c.m = x;
    else return std::nullopt;
  }
  if (c.m < 0) return std::nullopt;
  std::vector<int> shared = c.batch;
  shared.push_back(c.m);
  for (size_t i = 0; i < gemms.size(); ++i) {
    ChainStage st;
    st.gemm = gemms[i];
    const model::Op& op = w.ops[static_cast<size_t>(st.gemm)];
    for (int x : plain_dims(op.out))
      if (std::find(shared.begin(), shared.end(), x) == shared.end()) {
        if (st.l >= 0) return std::nullopt;
        st.l = x;
      }
    const int red = i == 0 ? c.k : c.stages[i - 1].l;
    std::vector<int> dims = shared;
    dims.push_back(red), dims.push_back(st.l);
    if (st.l < 0 || op.reduction_dims[0] != red || !uses_exactly(op, dims)) return std::nullopt;
    if (i > 0) {
      const ChainStage& before = c.stages[i - 1];
      if (!made_by_ops_in(w, op.inputs[0].tensor, before.gemm, st.gemm) ||
          plain_dims(op.inputs[0]) != plain_dims(w.ops[static_cast<size_t>(before.gemm)].out))
        return std::nullopt;
    }
    c.stages.push_back(st);
    if (i + 1 < gemms.size() && !note_ops_between(w, gemms[i] + 1, gemms[i + 1], c.stages.back())) return std::nullopt;
  }
  return c;
}

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

// What a solution's tiles cost, as §3 counts it, and what they need of the buffer.
struct ChainCosts {
  const model::Workload& w;
  const Chain& c;
  const CoreUnits& units;
  int64_t m_per_core = 1;
  double batch = 1, copies = 1;  // B_i's copies out of DRAM: one per core without multicast

  int64_t size(int d) const { return w.dims[static_cast<size_t>(d)].size; }
  int64_t alpha(int d) const { return chain_tile(size(d), static_cast<double>(units.cols)); }
  double trips_m(int64_t tm) const { return static_cast<double>(ceil_div(m_per_core, tm)); }
  // The steps at which a B_i's tiles leave DRAM. One transfer serves every core: the widest
  // core's steps. A copy per core (`copies` > 1: m over the cores, no multicast): each core's
  // own, the last of an uneven split taking fewer (22 rows in tiles of 3 are 8 steps, 25 are 9).
  double b_steps(int64_t tm) const {
    if (copies <= 1) return trips_m(tm);
    const int64_t factor = ceil_div(m_per_core, tm), cores = static_cast<int64_t>(copies);
    double steps = 0;
    for (int64_t core = 0; core < cores; ++core)
      if (const int64_t rows = std::min(m_per_core, size(c.m) - core * m_per_core); rows > 0)
        steps += static_cast<double>(trips_of(rows, factor));
    return steps;
  }
  double trips_l(int64_t tl) const { return static_cast<double>(ceil_div(size(c.stages[0].l), tl)); }
  double M() const { return static_cast<double>(size(c.m)); }
  double K() const { return static_cast<double>(size(c.k)); }
  double L(size_t stage) const { return static_cast<double>(size(c.stages[stage].l)); }

  // Either kind of chain, its traffic and its buffer need at tiles (T_M, T_L1).
  double dv(int64_t tm, int64_t tl) const { return c.stages.size() == 2 ? two_gemm_dv(tm, tl) : longer_dv(tm, tl); }
  double mu(int64_t tm, int64_t tl) const { return c.stages.size() == 2 ? two_gemm_mu(tm, tl) : longer_mu(tm, tl); }

  // Two GEMMs: C and each op's output between them in the buffer, t of them T_M × T_L each, r
  // rows reduced over l, T_M each; and either GEMM's operand tiles (T_K = T_N = α).
  double two_gemm_mu(int64_t tm, int64_t tl) const {
    const ChainStage& first = c.stages[0];
    const int64_t tk = alpha(c.k), tn = alpha(c.stages[1].l);
    return static_cast<double>(first.tiles_kept * tm * tl + first.rows_kept * tm + std::max(tm * tk + tk * tl, tl * tn + tm * tn));
  }

  // Two GEMMs, order m, l, k, n: A and E move once per step of l (E's partial sums), B and D once
  // per step of m; C and the ops' outputs stay on chip.
  double two_gemm_dv(int64_t tm, int64_t tl) const {
    return batch * (M() * K() * trips_l(tl) + K() * L(0) * b_steps(tm) + L(1) * L(0) * b_steps(tm) +
                    M() * L(1) * trips_l(tl));
  }

  // Longer chains (chain_tree): A moves once per step of l_1, each B_i once per step of m, the
  // last result once; everything between stays on chip.
  double longer_dv(int64_t tm, int64_t tl) const {
    double weights = K() * L(0);
    for (size_t i = 1; i < c.stages.size(); ++i) weights += L(i - 1) * L(i);
    return batch * (M() * K() * trips_l(tl) + weights * b_steps(tm) + M() * L(c.stages.size() - 1));
  }

  // The kept tiles: the first stage's m × l_1 (and its rows), the later stages' whole rows; and
  // the largest set of operand tiles one GEMM adds to them.
  double longer_mu(int64_t tm, int64_t tl) const {
    const ChainStage& first = c.stages[0];
    double per_row = static_cast<double>(first.tiles_kept) * static_cast<double>(tl) + first.rows_kept;
    for (size_t i = 1; i + 1 < c.stages.size(); ++i)
      per_row += c.stages[i].tiles_kept * L(i) + c.stages[i].rows_kept;
    const double t_m = static_cast<double>(tm), t_l = static_cast<double>(tl), a_k = static_cast<double>(alpha(c.k));
    double operands = t_m * a_k + a_k * t_l;                                                  // A, B_1
    operands = std::max(operands, t_l * static_cast<double>(alpha(c.stages[1].l)));            // B_2
    const size_t last = c.stages.size() - 1;                                                   // ≥ 2
    for (size_t i = 2; i < last; ++i)                                                          // B_i
      operands = std::max(operands, L(i - 1) * static_cast<double>(alpha(c.stages[i].l)));
    const double a_n = static_cast<double>(alpha(c.stages[last].l));
    operands = std::max(operands, L(last - 1) * a_n + t_m * a_n);                              // B_G and the result's tile
    return t_m * per_row + operands;
  }
};

// Two GEMMs: REFERENCE.md §3's closed form, rounded to tiles (chain_tile: divisors, or a
// partial last step where an extent's divisors fall short).
bool solve_two_gemms(const ChainCosts& costs, double mc, ChainSolution& s) {
  const Chain& c = costs.c;
  const ChainStage& first = c.stages[0];
  const int64_t L = costs.size(first.l), m_per_core = costs.m_per_core;
  const auto t = static_cast<int64_t>(first.tiles_kept), r = static_cast<int64_t>(first.rows_kept);
  auto mu_of = [&](int64_t tm, int64_t tl) { return costs.two_gemm_mu(tm, tl); };
  if (first.rows_whole) {
    // T_K = T_N = α before T_M is sized from them (finish() sets them; they were still 1 here,
    // which overestimated T_M*: a review found the tile overflowing a tight buffer once tiles
    // could be chunks), and T_M shrinks until MU fits.
    s.tk = costs.alpha(c.k), s.tn = costs.alpha(c.stages[1].l);
    // A row reduced over l (a softmax's max and sum) is read again beside the row's elements, so
    // the whole row is in the buffer first: T_L = L, and T_M is the one unknown. MU is linear in
    // it: T_M* = min over the two operand pairs of (MC − α·L) / (t·L + r + α).
    s.tl = L;
    const double per_row = static_cast<double>(t * L + r);
    s.ideal_tile = std::min((mc - static_cast<double>(s.tk * L)) / (per_row + static_cast<double>(s.tk)),
                            (mc - static_cast<double>(s.tn * L)) / (per_row + static_cast<double>(s.tn)));
    if (mu_of(1, L) > mc) return false;
    s.tm = chain_tile(m_per_core, s.ideal_tile);
    while (s.tm > 1 && mu_of(s.tm, L) > mc) s.tm = chain_tile(m_per_core, static_cast<double>(s.tm - 1));
  } else {
    // MU = t·T² + 2αT at T_M = T_L = T, T_K = T_N = α (rows reduced: none), and MU = MC gives
    // T* = (−α + √(α² + t·MC)) / t (§3's formula for t = 1).
    const double alpha = static_cast<double>(std::max(s.tk, s.tn)), kept = static_cast<double>(t);
    s.ideal_tile = (-alpha + std::sqrt(alpha * alpha + kept * mc)) / kept;
    s.tm = chain_tile(m_per_core, s.ideal_tile);
    s.tl = chain_tile(L, s.ideal_tile);
    // Rounding down may still overflow when α was rounded too: shrink the larger tile until MU fits.
    while (mu_of(s.tm, s.tl) > mc && (s.tm > 1 || s.tl > 1)) {
      if (s.tm >= s.tl) s.tm = chain_tile(m_per_core, static_cast<double>(s.tm - 1));
      else s.tl = chain_tile(L, static_cast<double>(s.tl - 1));
    }
    // A tile held down by its extent (one core's rows, or all of L) leaves room: the other grows
    // into it, the largest tile that still fits (DV falls as either tile grows).
    for (int64_t d : chain_tiles(L))
      if (d > s.tl && mu_of(s.tm, d) <= mc) s.tl = d;
  }
  for (int64_t d : chain_tiles(m_per_core))
    if (d > s.tm && mu_of(d, s.tl) <= mc) s.tm = d;
  return true;
}

// Longer chains: two unknowns (T_M, T_L1), and the least DV over every pair of tiles
// (chain_tiles) that fits — §3's rule has no closed form for this order, and the pairs are few.
bool solve_longer(const ChainCosts& costs, double mc, ChainSolution& s) {
  const Chain& c = costs.c;
  const int64_t L1 = costs.size(c.stages[0].l);
  const std::vector<int64_t> tls = c.stages[0].rows_whole ? std::vector<int64_t>{L1} : chain_tiles(L1);
  double best = INFINITY, best_mu = INFINITY;
  for (int64_t tm : chain_tiles(costs.m_per_core))
    for (int64_t tl : tls) {
      const double mu = costs.longer_mu(tm, tl), dv = costs.longer_dv(tm, tl);
      if (mu > mc || dv > best || (dv == best && mu >= best_mu)) continue;
      best = dv, best_mu = mu, s.tm = tm, s.tl = tl;
    }
  return best < INFINITY;
}

// A recognised chain on an arch: its buffer, units, cores and costs; a solution's tiles go in
// `s` (finish() completes it).
struct Prepared {
  Chain chain;
  CoreUnits units;
  int registers = -1;
  double mc = 0;  // the buffer's capacity in elements
  ChainSolution s;
  int64_t m_per_core = 1;
  double batch = 1, copies = 1;

  ChainCosts costs(const model::Workload& w) const { return ChainCosts{w, chain, units, m_per_core, batch, copies}; }

  // chain_tree's two-GEMM tree in the template's terms: batch dims one at a time, m and l_1 in
  // tiles of T_M and T_L, k and n below the group in steps of T_K and T_N.
  void template_tiles(const model::Workload& w) {
    s.group_tile.clear();
    for (const auto& d : w.dims) s.group_tile.push_back(d.size);
    for (int b : chain.batch) s.group_tile[static_cast<size_t>(b)] = 1;
    s.group_tile[static_cast<size_t>(chain.m)] = s.tm;
    s.group_tile[static_cast<size_t>(chain.stages[0].l)] = s.tl;
    s.own_trips.assign(w.ops.size(), {});
    auto own_loop = [&](int op, int dim, int64_t tile) {
      const model::Op& o = w.ops[static_cast<size_t>(op)];
      std::vector<int64_t>& trips = s.own_trips[static_cast<size_t>(op)];
      trips.assign(o.dims.size(), 1);
      for (size_t i = 0; i < o.dims.size(); ++i)
        if (o.dims[i] == dim) trips[i] = w.dims[static_cast<size_t>(dim)].size / tile;
    };
    own_loop(chain.stages[0].gemm, chain.k, s.tk);
    own_loop(chain.stages[1].gemm, chain.stages[1].l, s.tn);
  }

  // The template's own loops step evenly (Space::fused_at): T_K and T_N divide k and n.
  bool own_loops_even(const model::Workload& w) const {
    return w.dims[static_cast<size_t>(chain.k)].size % s.tk == 0 && w.dims[static_cast<size_t>(chain.stages[1].l)].size % s.tn == 0;
  }

  ChainSolution finish(const arch::Arch& a, const model::Workload& w) {
    const ChainCosts c = costs(w);
    s.tk = c.alpha(chain.k);
    s.tn = c.alpha(chain.stages.back().l);
    s.footprint_elems = c.mu(s.tm, s.tl);
    s.predicted_dram_elems = c.dv(s.tm, s.tl);
    s.flow_yaml = chain_tree(a, w, chain, s, registers, units);
    if (chain.stages.size() == 2 && own_loops_even(w)) template_tiles(w);
    return s;
  }
};

// The cores take a batch dim they divide, else m: rows of C and E are independent, and the
// cores then share the B_i's tiles (one transfer at DRAM serves them all, or one per core where
// DRAM does not multicast). Else a batch dim over more than half of them evenly (3 batches on
// 3 of 4 cores: each core reads its own batch's B_i), else m in even chunks, the last core's
// shorter (97 rows as 25 + 25 + 25 + 22) rather than all on one core (QA pass 9: on tpu_like a
// 97-row chain ran 8.37 K cycles on one core, 3.91 K over four; with 3 batches 24.3 K, 8.9 K on
// three).
void choose_cores(const arch::Arch& a, const model::Workload& w, Prepared& p) {
  if (a.cores < 2) return;
  auto size = [&](int d) { return w.dims[static_cast<size_t>(d)].size; };
  auto take = [&](int d, int64_t n) { p.s.core_dim = d, p.s.cores = n; };
  for (int b : p.chain.batch)
    if (size(b) % a.cores == 0) return take(b, a.cores);
  if (size(p.chain.m) % a.cores == 0) return take(p.chain.m, a.cores);
  for (int b : p.chain.batch)
    if (const int64_t n = largest_divisor_at_most(size(b), static_cast<double>(a.cores)); 2 * n > a.cores) return take(b, n);
  // The widest even chunks: 9 rows as 3 + 3 + 3 on 3 of 4 cores (4 would run 3 anyway).
  if (const int64_t n = widest_spread(size(p.chain.m), a.cores); n > 1) take(p.chain.m, n);
}

std::optional<Prepared> prepare(const arch::Arch& a, const model::Workload& w) {
  auto chain = recognise_chain(w);
  const arch::ComputeUnit* mu = a.unit(arch::UnitKind::Matrix);
  const arch::ComputeUnit* vu = a.unit(arch::UnitKind::Vector);
  if (!chain || !mu) return std::nullopt;
  for (const ChainStage& st : chain->stages)
    if (!st.between.empty() && !vu) return std::nullopt;
  Prepared p;
  p.chain = std::move(*chain), p.units = core_units(a, *mu, vu);
  int buffer = -1;
  for (size_t l = 1; l < a.levels.size(); ++l) {
    // The buffer holds every tensor of the chain: a level kept to some roles (ascend_like's
    // L0A/L0B/L0C, or its UB for the vector unit) cannot.
    const bool holds_all = std::all_of(std::begin(a.levels[l].holds), std::end(a.levels[l].holds), [](bool h) { return h; });
    if (a.levels[l].instances <= a.cores * a.sub_cores && holds_all) buffer = static_cast<int>(l);
    if (a.levels[l].instances == mu->total_pes()) p.registers = static_cast<int>(l);
  }
  if (buffer < 0 || a.levels[static_cast<size_t>(buffer)].unlimited()) return std::nullopt;
  const auto& buf = a.levels[static_cast<size_t>(buffer)];
  p.mc = buf.capacity_bytes / buf.word_bytes;
  p.s.buffer_level = buffer;
  p.s.gemms = static_cast<int>(p.chain.stages.size());
  auto size = [&](int d) { return w.dims[static_cast<size_t>(d)].size; };
  choose_cores(a, w, p);
  p.m_per_core = p.s.core_dim == p.chain.m ? ceil_div(size(p.chain.m), p.s.cores) : size(p.chain.m);
  for (int b : p.chain.batch) p.batch *= static_cast<double>(size(b));
  p.copies = p.s.core_dim == p.chain.m && !a.levels[0].multicast ? static_cast<double>(p.s.cores) : 1;
  return p;
}

}  // namespace

std::optional<ChainSolution> solve_gemm_chain(const arch::Arch& a, const model::Workload& w, std::string* why_none) {
  auto p = prepare(a, w);
  if (!p) return std::nullopt;
  const ChainCosts costs = p->costs(w);
  if (!(p->chain.stages.size() == 2 ? solve_two_gemms(costs, p->mc, p->s) : solve_longer(costs, p->mc, p->s))) {
    if (why_none) {
      const ChainStage& first = p->chain.stages[0];
      const int64_t tl = first.rows_whole ? costs.size(first.l) : 1;
      const arch::MemoryLevel& buf = a.levels[static_cast<size_t>(p->s.buffer_level)];
      *why_none = "no tiles fit: the smallest (T_M = 1, T_L = " + std::to_string(tl) + ") need " +
                  model::human_bytes(costs.mu(1, tl) * static_cast<double>(buf.word_bytes)) + " of level '" + buf.name +
                  "', which holds " + model::human_bytes(buf.capacity_bytes);
    }
    return std::nullopt;
  }
  return p->finish(a, w);
}

std::optional<ChainSolution> gemm_chain_with_tiles(const arch::Arch& a, const model::Workload& w, int64_t tm, int64_t tl) {
  auto p = prepare(a, w);
  if (!p) return std::nullopt;
  const int64_t L1 = w.dims[static_cast<size_t>(p->chain.stages[0].l)].size;
  if (tm < 1 || tl < 1 || p->m_per_core % tm != 0 || L1 % tl != 0 || (p->chain.stages[0].rows_whole && tl != L1))
    return std::nullopt;
  p->s.tm = tm, p->s.tl = tl;
  return p->finish(a, w);
}

}  // namespace dfx::mapper
