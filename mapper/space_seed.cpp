// Space::fused_at: a point of the template written from tiles chosen outside the search (the
// chain solver's closed form), so that the search can start from it.
#include <algorithm>

#include "mapper/space.h"

namespace dfx::mapper {

std::optional<Choice> Space::fused_at(model::Prim prim, int core_dim, int64_t cores, const std::vector<int64_t>& tile,
                                      const std::vector<std::vector<int64_t>>& own_trips) const {
  if (tile.size() != w_.dims.size()) return std::nullopt;
  Choice c;
  c.group_of.assign(w_.ops.size(), 0);
  c.prim = {prim};
  if ((!fixed_groups_.empty() && fixed_groups_ != c.group_of) || std::find(prims_.begin(), prims_.end(), prim) == prims_.end())
    return std::nullopt;
  const std::vector<int> members = group_members(c).front();
  const std::vector<int>& dims = outer_dims(members);
  c.core_dim = {-1};
  if (core_dim >= 0) {
    const std::vector<CoreSplit>& splits = core_splits(members);
    for (int k : allowed_splits(c, members, 0)) {
      const CoreSplit& s = splits[static_cast<size_t>(k)];
      if (s.cores[1] == 1 && s.cores[0] == cores && dims[s.dim[0]] == core_dim) c.core_dim[0] = k;
    }
    if (c.core_dim[0] < 0) return std::nullopt;
  }
  c.outer = {Factors(dims.size(), 1)};
  for (size_t d = 0; d < w_.dims.size(); ++d) {
    const auto at = std::find(dims.begin(), dims.end(), static_cast<int>(d));
    if (at == dims.end()) {  // the group cannot loop over it: only whole
      if (tile[d] < w_.dims[d].size) return std::nullopt;
      continue;
    }
    const auto i = static_cast<size_t>(at - dims.begin());
    const int64_t extent = core_extent(c, members, 0, i);
    // A tile with a partial last step is a trip count's chunk (73 rows: 15 is, 16 is not).
    if (tile[d] < 1 || tile[d] > extent || ceil_div(extent, ceil_div(extent, tile[d])) != tile[d]) return std::nullopt;
    c.outer[0][i] = ceil_div(extent, tile[d]);
  }
  const model::OpBoxes first = group_tile(c, 0), last = group_tile(c, 0, true);
  c.own_trips.assign(w_.ops.size(), {});
  for (size_t o = 0; o < w_.ops.size(); ++o) {
    if (o >= own_trips.size() || own_trips[o].empty()) continue;
    for (size_t i = 0; i < own_trips[o].size(); ++i) {
      const int64_t extent = private_extent(c, first, last, o, i);
      if (own_trips[o][i] > 1 && (extent == 0 || extent % own_trips[o][i] != 0)) return std::nullopt;
    }
    c.own_trips[o].assign(own_trips[o].begin(), own_trips[o].end());
    drop_if_none(c.own_trips[o]);
  }
  c.spatial.assign(w_.ops.size(), {});
  c.order.assign(w_.ops.size(), 0);
  for (int o : members) {
    const auto op = static_cast<size_t>(o);
    const model::OpBoxes tile_first = op_tile(first, c, op);
    const auto spreads = timed_spreads(tile_first, op, spatial_room(tile_first, op), op_axes(c, members, o));
    const std::vector<double>& time = *spreads.times;
    if (time.empty()) return std::nullopt;
    c.spatial[op] = spreads.spread(static_cast<size_t>(std::min_element(time.begin(), time.end()) - time.begin()));
  }
  return c;
}

}  // namespace dfx::mapper
