#include "mapper/space.h"

#include <algorithm>
#include <numeric>
#include <atomic>
#include <cassert>
#include <optional>
#include <set>
#include <tuple>

#include "model/cycles_floor.h"
#include "model/walk.h"

namespace dfx::mapper {
namespace {
auto fields(const Choice& c) {
  return std::tie(c.group_of, c.prim, c.outer, c.core_dim, c.spatial, c.order, c.own_trips, c.home, c.may_tile, c.may_spread);
}
}  // namespace

bool Choice::operator==(const Choice& o) const { return fields(*this) == fields(o); }
bool Choice::operator<(const Choice& o) const { return fields(*this) < fields(o); }

uint64_t Choice::hash() const {
  uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&h](int64_t v) { h = (h ^ static_cast<uint64_t>(v)) * 0x100000001b3ull; };
  // Each list preceded by its length, so that no two choices flatten alike.
  auto list = [&](const auto& xs) {
    mix(static_cast<int64_t>(xs.size()));
    for (const auto& x : xs) mix(static_cast<int64_t>(x));
  };
  auto lists = [&](const auto& xss) {
    mix(static_cast<int64_t>(xss.size()));
    for (const auto& xs : xss) list(xs);
  };
  list(group_of), list(prim), lists(outer), list(core_dim), lists(spatial), list(order), lists(own_trips), list(home), lists(may_tile), list(may_spread);
  return h;
}

Space::Space(const arch::Arch& a, const model::Workload& w, std::vector<model::Prim> prims, bool divisors_only)
    : a_(a), w_(w), prims_(std::move(prims)), divisors_only_(divisors_only) {
  static std::atomic<uint64_t> spaces{0};
  memo_id_ = ++spaces;
  for (size_t o = 0; o < w.ops.size(); ++o) computed_in_full_.push_back(model::computed_in_full(w, o) ? 1 : 0);
  note_reads_apart();
  tabulate_nest_orders();
  if (prims_.empty()) prims_ = {model::Prim::Seq, model::Prim::Shar, model::Prim::Pipe};
  cores_ = a.cores;
  const auto uses = [&](arch::UnitKind k) {
    return std::any_of(w.ops.begin(), w.ops.end(), [k](const model::Op& op) { return op.unit == k; });
  };
  levels_ = template_levels(a, uses(arch::UnitKind::Matrix), uses(arch::UnitKind::Vector));
  staging_tile_ = {levels_.matrix_staging}, registers_tile_ = {levels_.registers};
  // An op's own loops at DRAM sit under a group tile at DRAM that keeps the group's
  // intermediates in its buffer: one level for all of them and for every op's tile.
  auto same_level = [&](const std::vector<int>& levels) { return levels.empty() || levels == levels_.group; };
  own_loops_ok_ = levels_.group.size() == 1 && levels_.matrix_staging < 0 && same_level(levels_.matrix_op) &&
                  same_level(levels_.vector_op);
  // A unit the tree schedules has axes (each spatial loop on one); one that takes whole
  // instructions only a count of PEs (mapper/pe_axes.h).
  auto axes_of = [&](const arch::ComputeUnit* u, int unit_ways) -> std::optional<PeAxes> {
    if (!u || u->total_pes() / cores_ <= 0) return std::nullopt;
    const int64_t arrays = std::max<int64_t>(1, u->instances / cores_);
    if (u->schedule == arch::ComputeUnit::Schedule::Tree) return PeAxes::geometric(u->shape, arrays);
    return PeAxes::count(unit_ways + (a.sub_cores > 1 ? 1 : 0), u->total_pes() / cores_);
  };
  matrix_axes_ = axes_of(a.unit(arch::UnitKind::Matrix), 2);
  vector_axes_ = axes_of(a.unit(arch::UnitKind::Vector), 1);
  for (int k = 1; k <= static_cast<int>(w.ops.size()); ++k) {
    if (matrix_axes_) shared_axes_[0].push_back(matrix_axes_->shared_by(k));
    if (vector_axes_) shared_axes_[1].push_back(vector_axes_->shared_by(k));
  }
  for (const auto& op : w.ops)
    if (!(op.unit == arch::UnitKind::Matrix ? matrix_axes_ : vector_axes_))
      throw InputError(op.loc, "op '" + op.name + "' needs a unit that arch '" + a.name + "' does not have");
  // Every group is a run of ops, and every candidate asks for its groups' dims a few times.
  run_dims_.resize(w.ops.size());
  run_ops_.resize(w.ops.size());
  model::OpsBelow runs(w.ops.size() * w.ops.size(), model::OpSet(w.ops.size()));  // [run_node]
  for (size_t first = 0; first < w.ops.size(); ++first)
    for (size_t end = first + 1; end <= w.ops.size(); ++end) {
      std::vector<int> run;
      for (size_t o = first; o < end; ++o) run.push_back(static_cast<int>(o)), runs[first * w.ops.size() + end - first - 1].insert(o);
      run_dims_[first].push_back(dims_outside(run));
      run_ops_[first].push_back(run);
    }
  run_index_.emplace(w, runs);
  run_splits_.resize(w.ops.size());
  for (size_t first = 0; first < w.ops.size(); ++first)
    for (size_t k = 0; k < run_dims_[first].size(); ++k)
      run_splits_[first].push_back(splits_of(run_dims_[first][k], first, first + k + 1));
}

const std::vector<int>& Space::outer_dims(const std::vector<int>& ops) const {
  assert(!ops.empty() && ops.back() - ops.front() + 1 == static_cast<int>(ops.size()));  // a run: groups are
  return run_dims_[static_cast<size_t>(ops.front())][ops.size() - 1];
}

Groups Space::group_members(const Choice& c) const {
  Groups g;
  for (size_t o = 0; o < c.group_of.size();) {
    size_t end = o;
    while (end < c.group_of.size() && c.group_of[end] == c.group_of[o]) ++end;
    assert(c.group_of[o] == static_cast<int>(g.size()));  // groups are runs, numbered in order
    g.add(run_ops_[o][end - o - 1]);
    o = end;
  }
  return g;
}

const std::vector<int>& Space::members_of(const Choice& c, int g) const {
  const auto first = std::find(c.group_of.begin(), c.group_of.end(), g);  // a run, as in group_members
  const auto end = std::find_if(first, c.group_of.end(), [g](int x) { return x != g; });
  return run_ops_[static_cast<size_t>(first - c.group_of.begin())][static_cast<size_t>(end - first - 1)];
}

int Space::groups(const Choice& c) const { return c.group_of.empty() ? 0 : c.group_of.back() + 1; }

void Space::lone_ops_seq(Choice& c) const {
  for (size_t g = 0; g < c.prim.size(); ++g)
    if (std::count(c.group_of.begin(), c.group_of.end(), static_cast<int>(g)) == 1) c.prim[g] = model::Prim::Seq;
}

// Whether a loop over `dim` outside the group steps through op `o`'s work: `o` uses it, or a
// consumer in the group that it steps through reads `o`'s output at an index with `dim` as one
// of its output dims — then the loop restricts `o` to what that consumer's step reads (a
// convolution chain's rows: a loop over p2 restricts conv1 to the rows p2 + r2 of O1, the
// tiles of Fused-Layer). `members` are in topological order (a run of the workload's ops).
bool Space::steps_through(int dim, int o, const std::set<int>& members) const {
  const model::Op& op = w_.ops[static_cast<size_t>(o)];
  if (op.uses_dim(dim)) return true;
  for (int c : w_.tensors[static_cast<size_t>(op.out.tensor)].consumers) {
    if (!members.count(c)) continue;
    const model::Op& reader = w_.ops[static_cast<size_t>(c)];
    if (std::find(reader.reduction_dims.begin(), reader.reduction_dims.end(), dim) != reader.reduction_dims.end()) continue;
    for (const auto& in : reader.inputs) {
      if (in.tensor != op.out.tensor) continue;
      for (const auto& ix : in.index)
        for (const auto& t : ix.terms)
          if (t.dim == dim && steps_through(dim, c, members)) return true;
    }
  }
  return false;
}

// Dimensions a group may loop over outside its operators: those that step through every op
// (above), minus a producer's reductions and the output dimensions its consumers index
// differently. A lone op loops over its output dimensions.
std::vector<int> Space::dims_outside(const std::vector<int>& ops) const {
  std::set<int> members(ops.begin(), ops.end());
  std::vector<int> out;
  for (size_t d = 0; d < w_.dims.size(); ++d) {
    const int dim = static_cast<int>(d);
    bool ok = true;
    for (int o : ops) ok = ok && steps_through(dim, o, members);
    for (int o : ops) {
      const model::Op& op = w_.ops[static_cast<size_t>(o)];
      bool feeds_group = false;
      for (int c : w_.tensors[static_cast<size_t>(op.out.tensor)].consumers) feeds_group |= members.count(c) > 0;
      const bool reduction = std::find(op.reduction_dims.begin(), op.reduction_dims.end(), dim) != op.reduction_dims.end();
      if (reduction && (feeds_group || ops.size() == 1)) ok = false;
      if (!feeds_group) continue;
      for (size_t j = 0; j < op.out.index.size(); ++j) {
        if (op.out.index[j].terms[0].dim != dim) continue;
        for (int c : w_.tensors[static_cast<size_t>(op.out.tensor)].consumers) {
          if (!members.count(c)) continue;
          for (const auto& in : w_.ops[static_cast<size_t>(c)].inputs)
            if (in.tensor == op.out.tensor &&
                !(in.index[j].terms.size() == 1 && in.index[j].terms[0].dim == dim && in.index[j].terms[0].coef == 1 &&
                  in.index[j].offset == 0))
              ok = false;
        }
      }
    }
    if (ok) out.push_back(dim);
  }
  return out;
}

// Every op's box inside group g's first outer tile (fusion may shrink producers), or its last
// one, which is partial where an outer factor does not divide its extent.
// Building, mutating and checking a candidate ask for the same few group tiles again and again
// (~4 times a candidate, ~9 k instructions each): the last ones are kept per thread, each
// entry with everything the tile depends on — the group's run of ops, its core split and outer
// factors — and the Space it was made for.
model::OpBoxes Space::group_tile(const Choice& c, int g, bool last) const { return group_tile_view(c, g, last); }

const model::OpBoxes& Space::group_tile_view(const Choice& c, int g, bool last) const {
  struct Entry {
    uint64_t space = 0;
    int first = -1, size = 0, core = -1;
    bool last = false;
    Factors outer;
    model::OpBoxes boxes;
  };
  // A climb redraws the factors of one group at a time, so a point's group tiles come back often:
  // 64 entries missed 29% of the look-ups on G1 / edge, 1,024 miss 22% (about 1 MB per thread).
  constexpr size_t kEntries = 1024;
  thread_local std::vector<Entry> memo(kEntries);
  // Groups are runs of ops (outer_dims asserts it too): the first op and the count name one.
  const auto from = std::find(c.group_of.begin(), c.group_of.end(), g);
  const int first = static_cast<int>(from - c.group_of.begin());
  const int size = static_cast<int>(std::count(from, c.group_of.end(), g));
  assert(std::all_of(from, from + size, [&](int x) { return x == g; }));
  const int core = c.core_dim[static_cast<size_t>(g)];
  const Factors& outer = c.outer[static_cast<size_t>(g)];
  uint64_t h = memo_id_ * 0x9e3779b97f4a7c15ull ^ (static_cast<uint64_t>(first) << 40 | static_cast<uint64_t>(size) << 32 |
                                                  static_cast<uint64_t>(core + 1) << 1 | (last ? 1 : 0));
  for (int64_t f : outer) h = (h ^ static_cast<uint64_t>(f)) * 0x100000001b3ull;
  Entry& e = memo[(h ^ (h >> 29)) % kEntries];
  if (e.space != memo_id_ || e.first != first || e.size != size || e.core != core || e.last != last || e.outer != outer) {
    compute_group_tile(c, g, last, e.boxes);
    e.space = memo_id_, e.first = first, e.size = size, e.core = core, e.last = last, e.outer = outer;
  }
  return e.boxes;
}

void Space::compute_group_tile(const Choice& c, int g, bool last, model::OpBoxes& boxes) const {
  const std::vector<int>& members = members_of(c, g);
  boxes.assign_whole(w_);
  const std::vector<int>& dims = outer_dims(members);
  const int node = run_node(members);
  // The whole problem's boxes cut in full once; after that they are the run's projection's fixed
  // point, and only what each cut reaches is worked out again.
  bool cut = false;
  auto restrict = [&](int dim, int64_t lo, int64_t hi) {
    if (cut) run_index_->restrict_projected(node, dim, lo, hi, boxes);
    else run_index_->restrict(node, dim, lo, hi, boxes), cut = true;
  };
  // As the tree nests them: the loops over the cores (which divide their extents) outside the
  // temporal ones, which step through one core's share and may leave a partial last tile there.
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t cores = core_share(c, members, static_cast<size_t>(g), i);
    if (cores == 1) continue;
    const int64_t extent = run_index_->extent(node, dims[i], boxes);
    restrict(dims[i], 0, ceil_div(extent, cores));
  }
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t factor = c.outer[static_cast<size_t>(g)][i];
    const int64_t extent = run_index_->extent(node, dims[i], boxes);
    const int64_t chunk = ceil_div(extent, factor);
    const int64_t step = last ? ceil_div(extent, chunk) - 1 : 0;
    restrict(dims[i], step * chunk, step * chunk + chunk);
  }
}

int Space::pick_split(const std::vector<int>& group_ops, const SplitList& splits, Rng& rng) const {
  SplitList kind[2];
  for (int k : splits) kind[core_splits(group_ops)[static_cast<size_t>(k)].cores[1] > 1].push_back(k);
  if (kind[0].empty() || kind[1].empty()) return pick(splits, rng);
  return pick(kind[chance(rng, 0.5) ? 1 : 0], rng);
}

void Space::fill_tiling(Choice& c, Rng& rng) const {
  const auto members = group_members(c);
  c.outer.assign(members.size(), {});
  c.core_dim.assign(members.size(), -1);
  c.spatial.assign(w_.ops.size(), {});
  c.order.assign(w_.ops.size(), 0);
  c.own_trips.assign(w_.ops.size(), {});
  for (size_t g = 0; g < members.size(); ++g) fill_group_tiling(c, g, members[g], rng);
  pin_ops(c);
}

void Space::fill_group_tiling(Choice& c, size_t g, const std::vector<int>& members, Rng& rng) const {
  const std::vector<int>& dims = outer_dims(members);
  const SplitList core_ok = allowed_splits(c, members, g);
  c.core_dim[g] = core_ok.empty() ? -1 : pick_split(members, core_ok, rng);
  pin_outer(c, g);  // the core split first: the outer factors divide what it leaves
  c.outer[g].clear();
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t extent = core_extent(c, members, g, i);
    c.outer[g].push_back(may_tile(c, g, i) ? pick_trips(extent, rng, divisors_only_) : 1);
  }
  pin_outer(c, g);
  const model::OpBoxes first = group_tile(c, static_cast<int>(g)), last = group_tile(c, static_cast<int>(g), true);
  pick_own_trips(c, first, last, members, rng);
  for (int o : members) {
    const auto op = static_cast<size_t>(o);
    pick_spatial(c, op, op_room(first, c, op), op_axes(c, members, o), rng);
    c.order[static_cast<size_t>(o)] = pick_order(static_cast<size_t>(o), rng);
  }
}

Choice Space::retile_group(const Choice& c, Rng& rng) const {
  Choice t = c;
  const auto members = group_members(t);
  const size_t g = std::uniform_int_distribution<size_t>(0, members.size() - 1)(rng);
  fill_group_tiling(t, g, members[g], rng);
  pin_ops(t);
  return t;
}

bool Space::may_tile(const Choice& c, size_t g, size_t i) const {
  return c.may_tile.empty() || c.may_tile[g].empty() || c.may_tile[g][i];
}

Choice Space::retile(const Choice& structure, Rng& rng) const {
  Choice c;
  c.group_of = structure.group_of;
  c.prim = structure.prim;
  c.may_tile = structure.may_tile;
  c.may_spread = structure.may_spread;
  c.home = structure.home;
  fill_tiling(c, rng);
  return c;
}

bool Space::follows(const Choice& structure, const Choice& c) const {
  if (c.group_of != structure.group_of || c.prim != structure.prim || c.home != structure.home) return false;
  for (size_t g = 0; g < c.outer.size(); ++g) {
    for (size_t i = 0; i < c.outer[g].size(); ++i)
      if (c.outer[g][i] != 1 && !may_tile(structure, g, i)) return false;
    const bool spread = structure.may_spread.empty() || structure.may_spread[g];
    if (!spread && c.core_dim[g] >= 0) return false;
  }
  // A restricted tiling (a named baseline's) has no loops of an op's own.
  if (structure.may_tile.empty()) return true;
  const auto members = group_members(c);
  for (size_t g = 0; g < members.size(); ++g)
    if (!structure.may_tile[g].empty() && has_own_loops(c, members[g])) return false;
  return true;
}

Choice Space::random(Rng& rng) const {
  Choice c;
  int g = 0;
  for (size_t o = 0; o < w_.ops.size(); ++o) {
    if (o > 0 && chance(rng, 0.5)) ++g;
    c.group_of.push_back(g);
  }
  if (!fixed_groups_.empty()) c.group_of = fixed_groups_, g = fixed_groups_.back();
  for (int i = 0; i <= g; ++i) c.prim.push_back(pick(prims_, rng));
  pin_structure(c);
  fill_tiling(c, rng);
  if (!levels_.handover.empty()) pick_homes(c, rng);
  return c;
}

Choice Space::crossover(const Choice& x, const Choice& y, Rng& rng) const {
  if (x.group_of != y.group_of || x.may_tile != y.may_tile || x.may_spread != y.may_spread) return x;
  Choice c = x;
  const auto members = group_members(x);
  std::vector<int> home = x.home, y_home = y.home;
  home.resize(w_.ops.size(), 0), y_home.resize(w_.ops.size(), 0);
  for (size_t g = 0; g < members.size(); ++g) {
    if (!chance(rng, 0.5)) continue;
    for (int o : members[g]) home[static_cast<size_t>(o)] = y_home[static_cast<size_t>(o)];
    c.prim[g] = y.prim[g];
    c.outer[g] = y.outer[g];
    c.core_dim[g] = y.core_dim[g];
    for (int o : members[g]) {
      c.spatial[static_cast<size_t>(o)] = y.spatial[static_cast<size_t>(o)];
      c.order[static_cast<size_t>(o)] = y.order[static_cast<size_t>(o)];
      c.own_trips[static_cast<size_t>(o)] = y.own_trips[static_cast<size_t>(o)];
    }
  }
  c.home = home;
  fit_homes(c);
  return c;
}

Choice Space::mutate(const Choice& in, Rng& rng, bool structure) const {
  // Some genes cannot move in a given point (a dim the structure may not tile, an op with one
  // spatial choice); their draw is the same point, an evaluation spent on nothing (14-32% of the
  // climbs' steps on attention and conv). Draw again a few times instead.
  Choice c;  // a draw that changed nothing leaves its storage to the next
  for (int tries = 0; tries < kMutationTries; ++tries) {
    c = in;
    change_gene(c, in, draw_gene(structure ? 0 : 2, own_loops_ok_ ? 6 : 5, structure, rng), rng);
    if (!(c == in)) return c;
  }
  return in;
}

Choice Space::restructure(const Choice& in, Rng& rng) const {
  return mutate_gene(in, draw_gene(fixed_groups_.empty() ? 0 : 1, 1, true, rng), rng);
}

// Genes: 0 a group boundary, 1 a primitive, 2 an outer factor, 3 the loop over the cores,
// 4 a spatial choice, 5 a loop order, 6 an op's own loop at DRAM, 7 where an op's output waits
// for later groups.
Choice Space::mutate_gene(const Choice& in, int gene, Rng& rng) const {
  Choice c = in;
  change_gene(c, in, gene, rng);
  return c;
}

void Space::change_gene(Choice& c, const Choice& in, int gene, Rng& rng) const {
  const size_t ops = w_.ops.size();
  if (gene == 0 && !fixed_groups_.empty()) gene = 1;  // the user fixed the groups: a primitive instead
  if (gene == 0 && ops > 1) {  // move a group boundary: regroup and retile
    const size_t at = std::uniform_int_distribution<size_t>(1, ops - 1)(rng);
    std::vector<bool> cut(ops, false);
    for (size_t o = 1; o < ops; ++o) cut[o] = c.group_of[o] != c.group_of[o - 1];
    cut[at] = !cut[at];
    std::vector<model::Prim> prims;
    c.group_of.assign(ops, 0);
    for (size_t o = 1; o < ops; ++o) c.group_of[o] = c.group_of[o - 1] + (cut[o] ? 1 : 0);
    for (int g = 0; g <= c.group_of.back(); ++g)
      prims.push_back(g < static_cast<int>(in.prim.size()) ? in.prim[static_cast<size_t>(g)] : prims_.front());
    c.prim = prims;
    lone_ops_seq(c);
    c.may_tile.clear();
    c.may_spread.clear();
    fill_tiling(c, rng);
    fit_homes(c);
    return;
  }
  if (gene == 7) {  // an output handed over in DRAM or a shared level instead
    const std::vector<size_t> ops_out = handover_ops(c);
    if (ops_out.empty() || levels_.handover.empty()) return;
    const size_t o = pick(ops_out, rng);
    c.home.resize(ops, 0);
    const int options = static_cast<int>(levels_.handover.size()) + 1;
    c.home[o] = (c.home[o] + std::uniform_int_distribution<int>(1, options - 1)(rng)) % options;
    fit_homes(c);
    return;
  }
  if (gene == 1) {  // a fused group's primitive (a lone op has none)
    const auto members = group_members(c);
    std::vector<size_t> fused;
    for (size_t g = 0; g < members.size(); ++g)
      if (members[g].size() > 1) fused.push_back(g);
    if (fused.empty()) {
      if (fixed_groups_.empty() && ops > 1) return change_gene(c, in, 0, rng);  // c is `in` still
      c = retile(c, rng);
      return;
    }
    const size_t g = pick(fused, rng);
    c.prim[g] = pick(prims_, rng);
    pin_structure(c);
    // Half the time the tiling stays and only the ops' spatial choices shrink to the PEs the new
    // primitive gives them (a Pipe splits the array between its ops): a structure tiled well under
    // one primitive is often tiled well under another. Otherwise the tiling is drawn anew.
    if (chance(rng, 0.5)) return void(c = retile(c, rng));
    fit_own_trips(c, group_tile(c, static_cast<int>(g)), group_tile(c, static_cast<int>(g), true), members[g]);  // a Pipe has none
    for (int o : members[g]) fit_spatial(c.spatial[static_cast<size_t>(o)], spatial_room(c, static_cast<size_t>(o)), op_axes(c, members[g], o));
    pin_ops(c);
    return;
  }
  const int g = std::uniform_int_distribution<int>(0, groups(c) - 1)(rng);
  if ((gene == 2 || gene == 3) && !c.outer[static_cast<size_t>(g)].empty()) {
    const std::vector<int>& group_ops = members_of(c, g);
    const std::vector<int>& dims = outer_dims(group_ops);
    const size_t i = std::uniform_int_distribution<size_t>(0, dims.size() - 1)(rng);
    if (!may_tile(c, static_cast<size_t>(g), i)) return;
    std::vector<int64_t> old_share(dims.size());
    for (size_t k = 0; k < dims.size(); ++k) old_share[k] = core_share(c, group_ops, static_cast<size_t>(g), k);
    const bool split_pinned = static_cast<size_t>(g) < pins_.cores.size() && pins_.cores[static_cast<size_t>(g)] != kSearched;
    if (gene == 3 && !split_pinned) {  // a split over the cores that spreads dim i
      SplitList with_i;
      for (int k : allowed_splits(c, group_ops, static_cast<size_t>(g)))
        if (core_splits(group_ops)[static_cast<size_t>(k)].on(i) > 1) with_i.push_back(k);
      if (!with_i.empty()) c.core_dim[static_cast<size_t>(g)] = pick_split(group_ops, with_i, rng);
    }
    const int64_t extent = core_extent(c, group_ops, static_cast<size_t>(g), i);
    for (size_t k = 0; k < dims.size(); ++k) {
      // A new split keeps each core's tile where it can: the temporal factor takes up what the
      // cores no longer split (m over 32 cores, one step → over 4 cores, eight steps).
      const int64_t share = core_share(c, group_ops, static_cast<size_t>(g), k);
      const int64_t e = core_extent(c, group_ops, static_cast<size_t>(g), k);
      int64_t& f = c.outer[static_cast<size_t>(g)][k];
      if (share != old_share[k] && (f * old_share[k]) % share == 0 && e % (f * old_share[k] / share) == 0) f = f * old_share[k] / share;
      if (f > e) f = 1;
      f = trips_of(e, f);
    }
    int64_t& factor = c.outer[static_cast<size_t>(g)][i];
    if (gene == 2)
      factor = chance(rng, 0.5) ? adjacent_trips(extent, factor, rng, divisors_only_) : pick_trips(extent, rng, divisors_only_);
    pin_outer(c, static_cast<size_t>(g));
  }
  // Keep the group's spatial choices legal for its new extents; re-draw one op's.
  const std::vector<int>& members = members_of(c, g);
  const int redraw = pick(members, rng);
  // The loop below changes spatial choices only: the group's tiles stay.
  const model::OpBoxes first = group_tile(c, g);
  // The last tile only for the ops' own loops (a tenth of a mutation's cost where none has any).
  const bool owns = gene == 6 || std::any_of(members.begin(), members.end(), [&](int o) {
                      return static_cast<size_t>(o) < c.own_trips.size() && !c.own_trips[static_cast<size_t>(o)].empty();
                    });
  const model::OpBoxes last = owns ? group_tile(c, g, true) : model::OpBoxes{};
  if (gene == 6 && !step_own_trips(c, first, last, static_cast<size_t>(redraw), rng)) return;
  if ((gene == 2 || gene == 3) && owns) fit_own_trips(c, first, last, members);
  for (int o : members) {
    const auto op = static_cast<size_t>(o);
    const SpatialRoom ext = op_room(first, c, op);
    const bool fits = ext.allows(c.spatial[static_cast<size_t>(o)]);
    if (fits && !(o == redraw && (gene == 4 || gene == 5))) continue;
    // Half the re-draws of a fitting choice are local steps: a climb needs neighbours to walk to.
    if (fits && chance(rng, 0.5)) nudge_spatial(c, static_cast<size_t>(o), ext, op_axes(c, members, o), rng);
    else pick_spatial(c, static_cast<size_t>(o), ext, op_axes(c, members, o), rng);
    if (gene == 5) c.order[static_cast<size_t>(o)] = pick_order(static_cast<size_t>(o), rng);
  }
  pin_ops(c);
}

}  // namespace dfx::mapper
