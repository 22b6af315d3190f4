// An op's own choices in the template (mapper/space.h): its spatial loops on the PE array or the
// vector lanes, within the PEs its group gives it, and the order of its temporal loops.
#include <algorithm>

#include "mapper/space.h"

namespace dfx::mapper {

OpExtents Space::op_extents(const model::OpBoxes& tile, size_t op) const {
  const std::vector<int>& dims = w_.ops[op].dims;
  OpExtents out(dims.size(), boost::container::default_init);
  for (size_t i = 0; i < dims.size(); ++i) out[i] = tile[op][dims[i]].second - tile[op][dims[i]].first;
  return out;
}

OpExtents Space::op_tile_extents(const model::OpBoxes& tile, const Choice& c, size_t op) const {
  OpExtents out = op_extents(tile, op);
  if (op < c.own_trips.size() && !c.own_trips[op].empty())
    for (size_t i = 0; i < out.size(); ++i) out[i] /= c.own_trips[op][i];  // as op_tile() cuts it
  return out;
}

OpExtents Space::spreadable(OpExtents extents, size_t op) const {
  // Only where the op's PEs hold registers of their own below the spread (a matrix unit's):
  // a vector op's lanes read their slices from the op tile's buffer, above the spread.
  if (!reads_apart_[op] || w_.ops[op].unit != arch::UnitKind::Matrix || levels_.registers < 0) return extents;
  for (size_t i = 0; i < extents.size(); ++i)
    if (reads_apart_[op] >> w_.ops[op].dims[i] & 1) extents[i] = 1;  // one instance: see note_reads_apart
  return extents;
}

SpatialRoom Space::spatial_room(const model::OpBoxes& first, size_t op) const {
  return SpatialRoom(spreadable(op_extents(first, op), op), unit_axes(op).geometric() && !divisors_only_);
}

SpatialRoom Space::spatial_room(const Choice& c, size_t op) const {
  const int g = c.group_of[op];
  return op_room(group_tile_view(c, g), c, op);
}

SpatialRoom Space::op_room(const model::OpBoxes& group_first, const Choice& c, size_t op) const {
  return SpatialRoom(spreadable(op_tile_extents(group_first, c, op), op), unit_axes(op).geometric() && !divisors_only_);
}

model::OpBoxes Space::op_tile(model::OpBoxes group, const Choice& c, size_t op) const {
  if (op >= c.own_trips.size() || c.own_trips[op].empty()) return group;
  const model::Op& o = w_.ops[op];
  for (size_t i = 0; i < o.dims.size(); ++i) {
    model::Range& r = group[op][static_cast<size_t>(o.dims[i])];
    r.second = r.first + (r.second - r.first) / c.own_trips[op][i];  // its first step (the trips divide)
  }
  return group;
}

int64_t Space::private_extent(const Choice& c, const model::OpBoxes& first, const model::OpBoxes& last, size_t op,
                              size_t i) const {
  const auto g = static_cast<size_t>(c.group_of[op]);
  if (!own_loops_ok_ || (!c.may_tile.empty() && !c.may_tile[g].empty())) return 0;
  // Pipe and Para children run side by side, each timed at every level's full bandwidth
  // (TileFlow's rule, docs/semantics.md): stages with loads of their own would overlap them
  // beyond what DRAM and the buffer can move (attention G3 / cloud ran 6.15 K cycles under an
  // 8.19 K DRAM bound; with DRAM shared between the stages, attention G1 / edge ran 65.6 K with
  // the buffer busy for 68.5 K), so Pipe and Para groups keep their ops' tiles whole.
  if (c.prim[g] == model::Prim::Pipe || c.prim[g] == model::Prim::Para) return 0;
  if (std::count(c.group_of.begin(), c.group_of.end(), c.group_of[op]) < 2) return 0;
  const auto d = static_cast<size_t>(w_.ops[op].dims[i]);
  const int64_t extent = first[op][d].second - first[op][d].first;
  return extent == last[op][d].second - last[op][d].first ? extent : 0;
}

bool Space::has_own_loops(const Choice& c, const std::vector<int>& members) {
  for (int o : members)
    if (static_cast<size_t>(o) < c.own_trips.size())
      for (int64_t t : c.own_trips[static_cast<size_t>(o)])
        if (t > 1) return true;
  return false;
}

void Space::drop_if_none(Factors& trips) {
  if (std::all_of(trips.begin(), trips.end(), [](int64_t t) { return t == 1; })) trips.clear();
}

bool Space::step_own_trips(Choice& c, const model::OpBoxes& first, const model::OpBoxes& last, size_t op,
                           Rng& rng) const {
  std::vector<std::pair<size_t, int64_t>> dims;  // (position in op.dims, extent)
  for (size_t i = 0; i < w_.ops[op].dims.size(); ++i)
    if (const int64_t extent = private_extent(c, first, last, op, i); extent > 1) dims.push_back({i, extent});
  if (dims.empty()) return false;
  const auto [i, extent] = pick(dims, rng);
  Factors& trips = c.own_trips[op];
  if (trips.empty()) trips.assign(w_.ops[op].dims.size(), 1);
  const std::vector<int64_t>& d = divisors(extent);
  const auto at = std::find(d.begin(), d.end(), trips[i]) - d.begin();
  // Half the time the next divisor up or down (a climb's small step), else any.
  const int64_t before = trips[i];
  if (chance(rng, 0.5)) trips[i] = d[static_cast<size_t>(std::clamp<std::ptrdiff_t>(
                                                  at + (chance(rng, 0.5) ? 1 : -1), 0,
                                                  static_cast<std::ptrdiff_t>(d.size()) - 1))];
  else trips[i] = pick(d, rng);
  const int64_t after = trips[i];
  drop_if_none(trips);
  return after != before;
}

void Space::fit_own_trips(Choice& c, const model::OpBoxes& first, const model::OpBoxes& last,
                          const std::vector<int>& members) const {
  for (int o : members) {
    Factors& trips = c.own_trips[static_cast<size_t>(o)];
    for (size_t i = 0; i < trips.size(); ++i) {
      const int64_t extent = private_extent(c, first, last, static_cast<size_t>(o), i);
      if (trips[i] > 1 && (extent == 0 || extent % trips[i] != 0)) trips[i] = 1;
    }
    drop_if_none(trips);
  }
}

// A quarter of a fused group's draws give its ops loops of their own at DRAM, each dim of each
// op half the time (a divisor of its extent): a GEMM then streams its weights through the
// buffer a slice at a time instead of holding all of the group's step.
void Space::pick_own_trips(Choice& c, const model::OpBoxes& first, const model::OpBoxes& last, const std::vector<int>& members,
                           Rng& rng) const {
  for (int o : members) c.own_trips[static_cast<size_t>(o)].clear();
  constexpr double kOwnLoopsShare = 0.25;
  if (!own_loops_ok_ || members.size() < 2 || !chance(rng, kOwnLoopsShare)) return;
  for (int o : members) {
    const model::Op& op = w_.ops[static_cast<size_t>(o)];
    Factors trips(op.dims.size(), 1);
    for (size_t i = 0; i < trips.size(); ++i) {
      const int64_t extent = private_extent(c, first, last, static_cast<size_t>(o), i);
      if (extent < 2 || !chance(rng, 0.5)) continue;
      std::vector<int64_t> d = divisors(extent);
      d.erase(d.begin());  // not 1
      trips[i] = pick(d, rng);
    }
    drop_if_none(trips);
    c.own_trips[static_cast<size_t>(o)] = std::move(trips);
  }
}

const PeAxes& Space::unit_axes(size_t op) const {
  return w_.ops[op].unit == arch::UnitKind::Matrix ? *matrix_axes_ : *vector_axes_;
}

// An op's part of its unit on one core: all of it, or an equal part in a Pipe (or Para) group.
const PeAxes& Space::op_axes(const Choice& c, const std::vector<int>& members, int op) const {
  const size_t g = static_cast<size_t>(c.group_of[static_cast<size_t>(op)]);
  const arch::UnitKind unit = w_.ops[static_cast<size_t>(op)].unit;
  const PeAxes& whole = unit_axes(static_cast<size_t>(op));
  if (c.prim[g] != model::Prim::Para && c.prim[g] != model::Prim::Pipe) return whole;
  int sharing = 0;
  for (int x : members) sharing += w_.ops[static_cast<size_t>(x)].unit == unit;
  return shared_axes_[unit == arch::UnitKind::Matrix ? 0 : 1][static_cast<size_t>(sharing - 1)];
}

void Space::pick_spatial(Choice& c, size_t op, const SpatialRoom& room, const PeAxes& axes, Rng& rng) const {
  const model::Op& o = w_.ops[op];
  Factors& sp = c.spatial[op];
  sp.assign(o.dims.size(), 1);
  boost::container::small_vector<size_t, 8> dims(o.dims.size());
  for (size_t i = 0; i < dims.size(); ++i) dims[i] = i;
  std::shuffle(dims.begin(), dims.end(), rng);
  for (int k = 0; k < axes.ways() && k < static_cast<int>(dims.size()); ++k) {
    const size_t i = dims[static_cast<size_t>(k)];
    const FactorValues ok = room.drawn(i, axes.room(sp, i));
    // Half the time the widest spread that fits: a big array is rarely best left idle.
    sp[i] = chance(rng, 0.5) ? ok.back() : pick(ok, rng);
  }
}

void Space::fit_spatial(Factors& sp, const SpatialRoom& room, const PeAxes& axes) {
  while (!axes.fits(sp)) {
    const size_t widest = static_cast<size_t>(std::max_element(sp.begin(), sp.end()) - sp.begin());
    sp[widest] = room.largest(widest, sp[widest] - 1);
  }
}

// One local step of an op's spatial choice, the rest kept: a factor to its next divisor, one
// spatial dimension traded for another, or a dimension added when the unit has a way left.
void Space::nudge_spatial(Choice& c, size_t op, const SpatialRoom& room, const PeAxes& axes, Rng& rng) const {
  Factors& sp = c.spatial[op];
  const size_t ways = static_cast<size_t>(axes.ways());
  boost::container::small_vector<size_t, 8> on, off;
  for (size_t i = 0; i < sp.size(); ++i) (sp[i] > 1 ? on : off).push_back(i);
  const int move = std::uniform_int_distribution<int>(0, 2)(rng);
  if (on.empty() || (move == 2 && on.size() < ways)) {
    if (off.empty()) return;
    const size_t j = pick(off, rng);
    sp[j] = pick(room.drawn(j, axes.room(sp, j)), rng);
    return;
  }
  const size_t i = pick(on, rng);
  if (move == 0 || off.empty()) {
    const int64_t at_most = axes.room(sp, i);
    sp[i] = neighbour(room.values(i, at_most), sp[i], at_most, rng);
    return;
  }
  // Trade dimension i for j: j takes the axis i leaves (or a larger one that is free).
  const size_t j = pick(off, rng);
  sp[i] = 1;
  sp[j] = room.largest(j, axes.room(sp, j));
}

namespace {

// An op's dims that are not reduced, by position (inline: listed for every loop order drawn).
boost::container::small_vector<size_t, 8> output_dims(const model::Op& o) {
  boost::container::small_vector<size_t, 8> keep;
  for (size_t i = 0; i < o.dims.size(); ++i)
    if (std::find(o.reduction_dims.begin(), o.reduction_dims.end(), o.dims[i]) == o.reduction_dims.end()) keep.push_back(i);
  return keep;
}

int factorial(size_t n) { return n <= 1 ? 1 : static_cast<int>(n) * factorial(n - 1); }

}  // namespace

std::vector<size_t> Space::ordered_dims(size_t op, int order) const {
  auto pool = output_dims(w_.ops[op]);
  std::vector<size_t> out;
  out.reserve(pool.size());
  const size_t head = unordered_head(pool.size());
  out.insert(out.end(), pool.begin(), pool.begin() + static_cast<long>(head));
  pool.erase(pool.begin(), pool.begin() + static_cast<long>(head));
  // The rank's digits in the factorial base pick, outermost first, one of the dims left.
  int rank = order % factorial(pool.size());
  while (!pool.empty()) {
    const int block = factorial(pool.size() - 1);
    const auto pick = pool.begin() + rank / block;
    out.push_back(*pick);
    pool.erase(pick);
    rank %= block;
  }
  return out;
}

std::vector<size_t> Space::nest_order_of(size_t op, int order) const {
  const model::Op& o = w_.ops[op];
  std::vector<size_t> dims = ordered_dims(op, order);
  for (size_t i = 0; i < o.dims.size(); ++i)
    if (std::find(o.reduction_dims.begin(), o.reduction_dims.end(), o.dims[i]) != o.reduction_dims.end()) dims.push_back(i);
  return dims;
}

void Space::tabulate_nest_orders() {
  nest_orders_.resize(w_.ops.size());
  for (size_t op = 0; op < w_.ops.size(); ++op) {
    const int orders = loop_orders(op);
    if (orders > kTabulatedOrders) continue;
    for (int r = 0; r < orders; ++r) nest_orders_[op].push_back(nest_order_of(op, r));
  }
}

const std::vector<size_t>& Space::nest_order(size_t op, int order, std::vector<size_t>& made) const {
  const auto& table = nest_orders_[op];
  if (!table.empty()) return table[static_cast<size_t>(order % static_cast<int>(table.size()))];
  made = nest_order_of(op, order);
  return made;
}

size_t Space::unordered_head(size_t dims) { return dims > kOrderedDims ? dims - kOrderedDims : 0; }

int Space::loop_orders(size_t op) const { return factorial(std::min(output_dims(w_.ops[op]).size(), kOrderedDims)); }

int Space::pick_order(size_t op, Rng& rng) const {
  // A rotation of the workload's order (each dim innermost once, which decides most of the
  // reuse); --fix, --exhaustive and --polish reach the other orders (docs/mapper.md).
  auto dims = output_dims(w_.ops[op]);
  const int turn = std::uniform_int_distribution<int>(0, 7)(rng);
  if (dims.size() <= 1) return 0;
  const size_t head = unordered_head(dims.size());  // kept outermost, in the workload's order
  std::rotate(dims.begin() + static_cast<long>(head),
              dims.begin() + static_cast<long>(head + static_cast<size_t>(turn) % (dims.size() - head)), dims.end());
  // Its rank, the inverse of ordered_dims: per position, how many later dims come first in the
  // workload's order, in the factorial base (dims are positions in op.dims, so ascending there).
  int rank = 0;
  for (size_t i = head; i < dims.size(); ++i) {
    int smaller_after = 0;
    for (size_t j = i + 1; j < dims.size(); ++j) smaller_after += dims[j] < dims[i];
    rank += smaller_after * factorial(dims.size() - 1 - i);
  }
  return rank;
}

}  // namespace dfx::mapper
