// Every point of the template space, for exhaustive search of small spaces.
#include <algorithm>
#include <functional>
#include <map>
#include <unordered_map>

#include "mapper/space.h"

namespace dfx::mapper {

// Spatial choices of one op: nothing, or factors on up to `ways` dims that fit the axes. Each
// dim takes the divisors and the widest padded chunk (SpatialRoom::drawn), and one dim of each
// choice may take any chunk size (SpatialRoom::values): a Pipe balances its stages' lanes with
// narrower chunks (attention G8 / edge: 9, 12, 12, 8 and 11 of 64 lanes for its vector stages),
// while every chunk size on every dim at once made conv chains' polish four times slower.
std::vector<int64_t> Space::options_key(const SpatialRoom& room, const PeAxes& axes) {
  std::vector<int64_t> key = axes.key();
  key.push_back(room.padding() ? 1 : 0);
  for (size_t i = 0; i < room.size(); ++i) key.push_back(room.extent(i));
  return key;
}

std::shared_ptr<const Space::SpatialOptions> Space::spatial_options(const SpatialRoom& room, const PeAxes& axes) {
  // A climb's aimed steps list the same op's options again and again (~100 k instructions a
  // list): the lists are kept per thread, by everything they depend on, up to 32 k options in
  // all (~3 MB; a convolution's list on cloud holds a thousand).
  constexpr size_t kMostKept = size_t{1} << 15;
  thread_local std::map<std::vector<int64_t>, std::shared_ptr<const SpatialOptions>> kept;
  thread_local size_t kept_options = 0;
  std::vector<int64_t> key = options_key(room, axes);
  if (auto at = kept.find(key); at != kept.end()) return at->second;
  if (kept_options >= kMostKept) kept.clear(), kept_options = 0;
  const size_t n = room.size();
  auto out = std::make_shared<SpatialOptions>();
  Factors sp(n, 1);
  // Every subset of a choice that fits fits too, so bounding each factor by the room the
  // factors before it leave lists each fitting choice once.
  std::function<void(size_t, int, bool)> rec = [&](size_t from, int left, bool narrowed) {
    out->push_back(sp);
    if (left == 0) return;
    for (size_t i = from; i < n; ++i) {
      const int64_t at_most = axes.room(sp, i);
      const FactorValues wide = room.drawn(i, at_most);
      for (int64_t d : narrowed ? wide : room.values(i, at_most)) {
        if (d == 1) continue;
        sp[i] = d;
        rec(i + 1, left - 1, narrowed || !std::binary_search(wide.begin(), wide.end(), d));
        sp[i] = 1;
      }
    }
  };
  rec(0, axes.ways(), false);
  kept_options += out->size();
  kept.emplace(std::move(key), out);
  return out;
}

bool Space::enumerate(const std::function<bool(const Choice&)>& visit) const {
  const size_t n = w_.ops.size();
  for (uint64_t cuts = 0; cuts < (uint64_t{1} << (n - 1)); ++cuts) {
    Choice c;
    c.group_of.assign(n, 0);
    for (size_t o = 1; o < n; ++o) c.group_of[o] = c.group_of[o - 1] + ((cuts >> (o - 1)) & 1 ? 1 : 0);
    if (!fixed_groups_.empty() && c.group_of != fixed_groups_) continue;
    auto members = group_members(c);
    const size_t groups = members.size();
    c.prim.assign(groups, model::Prim::Seq);
    c.outer.assign(groups, {});
    c.core_dim.assign(groups, -1);
    c.spatial.assign(n, {});
    c.order.assign(n, 0);
    c.own_trips.assign(n, {});
    // Per op: its own loops at DRAM, spatial and order; then the next op.
    std::function<bool(size_t)> ops;
    std::function<bool(size_t, size_t)> own = [&](size_t o, size_t i) -> bool {
      if (i == w_.ops[o].dims.size() || !own_loops_ok_) {
        const int g = c.group_of[o];
        for (const auto& sp : *spatial_options(spatial_room(c, o), op_axes(c, members[static_cast<size_t>(g)], static_cast<int>(o)))) {
          c.spatial[o] = sp;
          for (int r = 0; r < loop_orders(o); ++r) {
            c.order[o] = r;
            if (!ops(o + 1)) return false;
          }
        }
        return true;
      }
      const std::vector<int64_t> trips = own_trips_options(c, o, i);
      const Factors kept = c.own_trips[o];
      for (int64_t d : trips) {
        c.own_trips[o] = kept;
        set_own_trips(c, o, i, d, w_.ops[o].dims.size());
        if (!own(o, i + 1)) return false;
      }
      return true;
    };
    ops = [&](size_t o) -> bool { return o == n ? !honours_pins(c) || visit(c) : own(o, 0); };
    // Per group: primitive (when it has several ops), the loop over cores, outer factors.
    std::function<bool(size_t)> group = [&](size_t g) -> bool {
      if (g == groups) return ops(0);
      std::vector<int> dims = outer_dims(members[g]);
      std::vector<int> cores = {-1};
      for (size_t k = 0; k < core_splits(members[g]).size(); ++k) cores.push_back(static_cast<int>(k));
      const size_t prim_count = members[g].size() > 1 ? prims_.size() : 1;
      for (size_t p = 0; p < prim_count; ++p)
        for (int core : cores) {
          c.prim[g] = members[g].size() > 1 ? prims_[p] : model::Prim::Seq;
          c.core_dim[g] = core;
          c.outer[g].assign(dims.size(), 1);
          std::function<bool(size_t)> factors = [&](size_t i) -> bool {
            if (i == dims.size()) return group(g + 1);
            const int64_t extent = core_extent(c, members[g], g, i);
            for (int64_t d : outer_trips(extent)) {
              c.outer[g][i] = d;
              if (!factors(i + 1)) return false;
            }
            return true;
          };
          if (!factors(0)) return false;
        }
      return true;
    };
    // Where each output handed to a later group waits: DRAM or each shared level.
    const std::vector<size_t> handing = levels_.handover.empty() ? std::vector<size_t>{} : handover_ops(c);
    std::function<bool(size_t)> homes = [&](size_t k) -> bool {
      if (k == handing.size()) {
        const std::vector<int> drawn = c.home;
        fit_homes(c);  // Choice's form (empty when all are DRAM)
        const bool go_on = group(0);
        c.home = drawn;
        return go_on;
      }
      c.home.resize(n, 0);
      for (int h = 0; h <= static_cast<int>(levels_.handover.size()); ++h) {
        c.home[handing[k]] = h;
        if (!homes(k + 1)) return false;
      }
      return true;
    };
    if (!homes(0)) return false;
  }
  return true;
}

}  // namespace dfx::mapper

namespace dfx::mapper {

// Per op: a step for each of its own loops at DRAM (where the template has them), its spatial
// choice, its loop order.
size_t Space::op_steps(size_t o) const { return (own_loops_ok_ ? w_.ops[o].dims.size() : 0) + 2; }

std::vector<int64_t> Space::own_trips_options(const Choice& partial, size_t o, size_t i) const {
  const auto g = partial.group_of[o];
  const int64_t extent = private_extent(partial, group_tile(partial, g), group_tile(partial, g, true), o, i);
  return extent > 1 ? divisors(extent) : std::vector<int64_t>{1};
}

void Space::set_own_trips(Choice& c, size_t o, size_t i, int64_t trips, size_t dims) {
  Factors& own = c.own_trips[o];
  if (own.empty()) own.assign(dims, 1);
  own[i] = trips;
  drop_if_none(own);
}

size_t Space::tiling_steps(const Choice& structure) const {
  size_t steps = 0;
  for (size_t o = 0; o < w_.ops.size(); ++o) steps += op_steps(o);
  for (const auto& members : group_members(structure)) steps += 1 + outer_dims(members).size();
  return steps;
}

Choice Space::tiling_start(const Choice& structure) const {
  Choice c;
  c.group_of = structure.group_of;
  c.prim = structure.prim;
  c.may_tile = structure.may_tile;
  c.may_spread = structure.may_spread;
  c.home = structure.home;
  const auto members = group_members(c);
  c.core_dim.assign(members.size(), -1);
  c.outer.clear();
  for (const auto& m : members) c.outer.push_back(Factors(outer_dims(m).size(), 1));
  c.spatial.clear();
  for (const auto& op : w_.ops) c.spatial.push_back(Factors(op.dims.size(), 1));
  c.order.assign(w_.ops.size(), 0);
  c.own_trips.assign(w_.ops.size(), {});
  pin_all(c);
  return c;
}

// The options with the parts fixed by hand kept: a fixed decision has one option.
std::vector<Choice> Space::tiling_options(const Choice& partial, size_t step) const {
  const TilingDecision decision = tiling_decision(partial, step);
  std::vector<Choice> out;
  // Pinning may turn different options into one: the first of each is kept. Found by hash (an
  // ordered set of choices compared them field by field, a quarter of a --polish search's
  // instructions on conv C1 / cloud).
  std::unordered_multimap<uint64_t, size_t> seen;  // hash -> its options in `out`
  for (size_t k = 0; k < decision.size(); ++k) {
    Choice c = partial;
    decision.set(c, k);
    pin_all(c);
    const uint64_t h = c.hash();
    const auto [from, to] = seen.equal_range(h);
    if (std::any_of(from, to, [&](const auto& e) { return out[e.second] == c; })) continue;
    seen.emplace(h, out.size());
    out.push_back(std::move(c));
  }
  return out;
}

Choice Space::draw_tiling_option(const Choice& partial, size_t step, Rng& rng) const {
  const TilingDecision decision = tiling_decision(partial, step);
  Choice c = partial;
  decision.set(c, std::uniform_int_distribution<size_t>(0, decision.size() - 1)(rng));
  pin_all(c);
  return c;
}

void Space::TilingDecision::set(Choice& c, size_t k) const {
  switch (kind) {
    case Kind::CoreSplit: c.core_dim[at] = static_cast<int>(values[k]); break;
    case Kind::Outer: c.outer[at][i] = values[k]; break;
    case Kind::OwnTrips: set_own_trips(c, at, i, values[k], op_dims); break;
    case Kind::Spatial: c.spatial[at] = spatial[k]; break;
    case Kind::Order: c.order[at] = static_cast<int>(values[k]); break;
  }
}

Space::TilingDecision Space::tiling_decision(const Choice& partial, size_t step) const {
  const auto members = group_members(partial);
  TilingDecision d;
  for (size_t g = 0; g < members.size(); ++g) {
    const std::vector<int> dims = outer_dims(members[g]);
    d.at = g;
    if (step == 0) {  // the loop over the cores
      d.kind = TilingDecision::Kind::CoreSplit;
      d.values.push_back(-1);
      for (int k : allowed_splits(partial, members[g], g)) d.values.push_back(k);
      return d;
    }
    if (step <= dims.size()) {  // outer factor i
      d.kind = TilingDecision::Kind::Outer, d.i = step - 1;
      const int64_t extent = core_extent(partial, members[g], g, d.i);
      d.values = may_tile(partial, g, d.i) ? outer_trips(extent) : std::vector<int64_t>{1};
      return d;
    }
    step -= 1 + dims.size();
  }
  size_t o = 0;
  while (step >= op_steps(o)) step -= op_steps(o), ++o;
  d.at = o;
  const size_t own = op_steps(o) - 2;
  if (step < own) {  // an own loop at DRAM
    d.kind = TilingDecision::Kind::OwnTrips, d.i = step, d.op_dims = w_.ops[o].dims.size();
    d.values = own_trips_options(partial, o, step);
    return d;
  }
  step -= own;
  if (step == 0) {  // spatial
    d.kind = TilingDecision::Kind::Spatial;
    const int g = partial.group_of[o];
    d.spatial = *spatial_options(spatial_room(partial, o), op_axes(partial, members[static_cast<size_t>(g)], static_cast<int>(o)));
    // A local step may have padded a dim narrower than the widest chunk (SpatialRoom::drawn):
    // the point itself is one of its options all the same (once: draws weigh every value alike).
    if (std::find(d.spatial.begin(), d.spatial.end(), partial.spatial[o]) == d.spatial.end()) d.spatial.push_back(partial.spatial[o]);
    return d;
  }
  d.kind = TilingDecision::Kind::Order;  // loop order
  for (int r = 0; r < loop_orders(o); ++r) d.values.push_back(r);
  return d;
}

}  // namespace dfx::mapper
