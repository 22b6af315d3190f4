// Space::cycles_floor: model::cycles_floor of a point's tree, from the point itself.
#include <algorithm>

#include "mapper/space.h"
#include "model/cycles_floor.h"

namespace dfx::mapper {

// The template's tree (space_build.cpp) fixes where the floor's divisions fall: an op's work over
// its own tile's spatial loops, its group's ops one after another (Seq, Shar) or beside one
// another (Para, Pipe), the group over its loops across the cores, the groups in turn. The other
// tiles have no spatial loops and one child each, so they change nothing; the operations below
// are model::cycles_floor's, in its order, so the two agree to the bit (tests/unit/space_floor_test.cpp).
double Space::cycles_floor(const Choice& c) const {
  if (a_.instruction_timed()) return 0;
  double total = 0;
  // Groups are runs of ops (group_members), visited in place: asked for every candidate.
  for (size_t first = 0; first < c.group_of.size();) {
    const auto g = static_cast<size_t>(c.group_of[first]);
    size_t end = first;
    while (end < c.group_of.size() && c.group_of[end] == c.group_of[first]) ++end;
    const bool beside = c.prim[g] == model::Prim::Para || c.prim[g] == model::Prim::Pipe;
    double kids = 0;
    for (size_t op = first; op < end; ++op) {
      double k = 0;
      if (computed_in_full_[op]) {
        k = static_cast<double>(w_.ops[op].ops_per_point);
        for (int d : w_.ops[op].dims) k *= static_cast<double>(w_.dims[static_cast<size_t>(d)].size);
        double spatial = 1;
        for (int64_t f : c.spatial[op])
          if (f > 1) spatial *= static_cast<double>(f);
        k /= spatial;
      }
      kids = beside ? std::max(kids, k) : kids + k;
    }
    double cores = 1;
    if (c.core_dim[g] >= 0) {
      const CoreSplit& s = run_splits_[first][end - first - 1][static_cast<size_t>(c.core_dim[g])];
      cores *= static_cast<double>(s.cores[0]);
      if (s.cores[1] > 1) cores *= static_cast<double>(s.cores[1]);
    }
    total += kids / cores;
    first = end;
  }
  return total;
}

}  // namespace dfx::mapper
