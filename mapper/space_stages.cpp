// The climb's aimed steps (mapper/space.h). Space::widen_slowest: a fused group's slowest ops get
// more of their unit. A Pipe (or Para) group costs its slowest stage, and stages tiled to the
// same time make a plateau that no single random step leaves: speeding up one of three equally
// slow stages changes nothing. Attention G1 / edge with L1 at 256 KB showed it: Fused (Pipe) kept
// qk, sum and div at 2,048 cycles a tile, 1.7x its best, after its share of the search.
// Space::reshape_slowest: a slowest stage its transfers pace spreads anew, from the point's
// analysis (the ops' own cycles); attention G8 / edge showed it (docs/mapper.md).
#include <algorithm>
#include <map>

#include "mapper/space.h"

namespace dfx::mapper {

double Space::compute_estimate(const model::OpBoxes& tile, size_t op, const Factors& sp) const {
  return compute_estimate(op_extents(tile, op), op, sp);
}

namespace {

// The steps `factor` instances take over `extent` (a padded spread's last step runs fewer).
double steps_over(int64_t extent, int64_t factor) { return static_cast<double>((extent + factor - 1) / factor); }

}  // namespace

double Space::compute_estimate(const OpExtents& extent, size_t op, const Factors& sp) const {
  // One tile of the group on the op's instances: the leaf's steps times its work per point, the
  // latency the model gives an op's compute (transfers and instruction costs left out).
  double steps = 1;
  for (size_t i = 0; i < extent.size(); ++i) steps *= steps_over(extent[i], sp[i]);
  return steps * static_cast<double>(w_.ops[op].ops_per_point);
}

Space::TimedSpreads Space::timed_spreads(const model::OpBoxes& tile, size_t op, const SpatialRoom& room, const PeAxes& axes) const {
  const OpExtents extent = op_extents(tile, op);
  TimedSpreads out;
  out.options = spatial_options(room, axes);
  // A climb times the same op's options in the same tile again and again (hundreds of options,
  // ~30 k instructions a list): the lists are kept per thread by everything they depend on —
  // the options (spatial_options' key), the op's extents and its operations per point (not the
  // op's index: the thread may search other workloads) — up to 32 k times in all.
  constexpr size_t kMostKept = size_t{1} << 15;
  thread_local std::map<std::vector<int64_t>, std::shared_ptr<const std::vector<double>>> kept;
  thread_local size_t kept_times = 0;
  std::vector<int64_t> key = options_key(room, axes);
  key.push_back(w_.ops[op].ops_per_point);
  key.insert(key.end(), extent.begin(), extent.end());
  if (auto at = kept.find(key); at != kept.end()) {
    out.times = at->second;
    return out;
  }
  if (kept_times >= kMostKept) kept.clear(), kept_times = 0;
  auto time = std::make_shared<std::vector<double>>();
  time->reserve(out.options->size());
  // compute_estimate per option, its divisions kept per dim: options come in nested order, so
  // most share a dim's factor with the one before (an op has hundreds of them).
  std::vector<int64_t> last_factor(extent.size(), 0);
  std::vector<double> last_steps(extent.size(), 0);
  const double per_point = static_cast<double>(w_.ops[op].ops_per_point);
  for (const auto& sp : *out.options) {
    double steps = 1;
    for (size_t i = 0; i < extent.size(); ++i) {
      if (sp[i] != last_factor[i]) last_factor[i] = sp[i], last_steps[i] = steps_over(extent[i], sp[i]);
      steps *= last_steps[i];
    }
    time->push_back(steps * per_point);
  }
  kept_times += time->size();
  out.times = time;
  kept.emplace(std::move(key), std::move(time));
  return out;
}

Choice Space::widen_slowest(const Choice& in, Rng& rng) const {
  const auto members = group_members(in);
  std::vector<size_t> fused;
  for (size_t g = 0; g < members.size(); ++g)
    if (members[g].size() > 1) fused.push_back(g);
  if (fused.empty()) return in;
  const size_t g = pick(fused, rng);
  Choice c = in;
  const model::OpBoxes first = group_tile(c, static_cast<int>(g));
  std::vector<double> time;
  // Per group tile: an op with loops of its own at DRAM computes its tile that many times.
  auto own_steps = [&](size_t o) {
    double n = 1;
    for (int64_t t : c.own_trips[o]) n *= static_cast<double>(t);
    return n;
  };
  for (int o : members[g]) {
    const auto op = static_cast<size_t>(o);
    time.push_back(compute_estimate(op_tile(first, c, op), op, c.spatial[op]) * own_steps(op));
  }
  const double slowest = *std::max_element(time.begin(), time.end());
  // Every op within a hair of the slowest moves: the plateau is left in one step.
  constexpr double kTie = 0.01;
  for (size_t k = 0; k < time.size(); ++k) {
    if (time[k] < slowest * (1 - kTie)) continue;
    const auto o = static_cast<size_t>(members[g][k]);
    const model::OpBoxes mine = op_tile(first, c, o);
    const SpatialRoom room = spatial_room(mine, o);
    const PeAxes& axes = op_axes(c, members[g], static_cast<int>(o));
    const Factors before = c.spatial[o];
    widen_spatial(c, o, room, axes, rng);
    if (c.spatial[o] != before) continue;
    // No factor can grow where it is: another set of spread dims may still compute faster
    // (attention G8 / edge: qk at m:26 x l:16 has no room on a 512-PE array, l:15 x k:32 does).
    const TimedSpreads spreads = timed_spreads(mine, o, room, axes);
    std::vector<size_t> faster;
    for (size_t i = 0; i < spreads.size(); ++i)
      if (spreads.time(i) * own_steps(o) < time[k]) faster.push_back(i);
    if (faster.empty()) continue;
    // Half the time the least step down in time (a neighbour), else any faster choice.
    const auto nearest = std::max_element(faster.begin(), faster.end(), [&](size_t x, size_t y) { return spreads.time(x) < spreads.time(y); });
    c.spatial[o] = spreads.spread(chance(rng, 0.5) ? *nearest : pick(faster, rng));
  }
  pin_ops(c);
  return c;
}

Choice Space::reshape_slowest(const Choice& in, const model::Report& r, Rng& rng) const {
  if (r.ops.size() != w_.ops.size()) return in;
  const auto members = group_members(in);
  double slowest = 0;
  for (const auto& group : members)
    for (int o : group)
      if (group.size() > 1 && r.ops[static_cast<size_t>(o)].own_cycles) slowest = std::max(slowest, *r.ops[static_cast<size_t>(o)].own_cycles);
  // Stages within a hair of the slowest tie (a Pipe waits for each of them): one of them moves.
  // Transfers under a twentieth of its time are the pipeline's fill, not what paces it.
  constexpr double kTie = 0.01, kTransferShare = 0.05;
  std::vector<std::pair<int, size_t>> paced;  // (op, its group)
  for (size_t g = 0; g < members.size(); ++g)
    for (int o : members[g]) {
      const model::OpReport& op = r.ops[static_cast<size_t>(o)];
      if (members[g].size() > 1 && op.own_cycles && *op.own_cycles >= slowest * (1 - kTie) &&
          *op.own_cycles > op.compute_cycles * (1 + kTransferShare))
        paced.push_back({o, g});
    }
  if (slowest <= 0 || paced.empty()) return in;
  const auto [slow, g] = pick(paced, rng);
  Choice c = in;
  const auto o = static_cast<size_t>(slow);
  const model::OpBoxes first = op_tile(group_tile(c, static_cast<int>(g)), c, o);
  const SpatialRoom room = spatial_room(first, o);
  const PeAxes& axes = op_axes(c, members[g], slow);
  // Half the time another spread that computes no slower, so that only what the stage moves
  // changes (qk of attention G8 / edge at l:30 x k:16 waits 2.1 K cycles for its data, at
  // l:15 x k:32 0.9 K); a quarter a neighbour, a quarter any draw.
  const double compute = compute_estimate(first, o, c.spatial[o]);
  const TimedSpreads spreads = timed_spreads(first, o, room, axes);
  std::vector<size_t> alike;
  for (size_t i = 0; i < spreads.size(); ++i)
    if (spreads.time(i) <= compute && spreads.spread(i) != c.spatial[o]) alike.push_back(i);
  const double draw = canonical(rng);
  if (!alike.empty() && draw < 0.5) c.spatial[o] = spreads.spread(pick(alike, rng));
  else if (draw < 0.75) nudge_spatial(c, o, room, axes, rng);
  else pick_spatial(c, o, room, axes, rng);
  if (chance(rng, 0.5)) c.order[o] = pick_order(o, rng);
  pin_ops(c);
  return c;
}

void Space::widen_spatial(Choice& c, size_t op, const SpatialRoom& room, const PeAxes& axes, Rng& rng) const {
  Factors& sp = c.spatial[op];
  // Per dim, the values above its factor that fit beside the others (none once the unit has no
  // way left for a dim not yet spread).
  std::vector<std::pair<size_t, std::vector<int64_t>>> wider;
  for (size_t i = 0; i < sp.size(); ++i) {
    const FactorValues values = room.values(i, axes.room(sp, i));
    const auto above = std::upper_bound(values.begin(), values.end(), sp[i]);
    if (above != values.end()) wider.push_back({i, std::vector<int64_t>(above, values.end())});
  }
  if (wider.empty()) return;
  const auto& [i, values] = pick(wider, rng);
  // Half the time the next value up (a climb's small step), else any larger one.
  sp[i] = chance(rng, 0.5) ? values.front() : pick(values, rng);
}

}  // namespace dfx::mapper
