#pragma once
// The spatial factors an op of the template may take in its group's tiles (mapper/space.h).
// A factor that divides a dimension's extent, the same in every tile of the group, gives alike
// instances in every step. On a unit the tree schedules (PeAxes::geometric) a dimension may also
// be padded: 73 rows as two steps of 37 instances on a 64-wide axis (36 run in the second), or
// spread although the group's partial last tile leaves less of it. Instances then idle in some
// steps, which the model allows for spatial loops that only spatial loops follow in their tile,
// with no loops below (docs/semantics.md): the template's op tiles. A padded factor is a chunk
// size of its extent, on any number of an op's dims.
// A unit that takes whole instructions blocks its tile onto the array itself, padding included,
// so its factors stay divisors of the group's first tile, also where the last tile is shorter
// (197 rows in tiles of 50: its last 47 leave instances idle; before 2026-11-25 such a dim
// stayed temporal, and a ViT's matrix instructions on ascend_like were one row high).
#include <boost/container/small_vector.hpp>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "mapper/factors.h"

namespace dfx::mapper {

// An op's extent per dim (inline: asked for several times a candidate).
using OpExtents = boost::container::small_vector<int64_t, 8>;
// The factors a dim may take (inline up to 16: every draw of a spatial choice lists some).
using FactorValues = boost::container::small_vector<int64_t, 16>;

class SpatialRoom {
 public:
  // Per dim of the op: its extent in the group's first tile.
  SpatialRoom(OpExtents extent, bool padding);

  size_t size() const { return extent_.size(); }
  int64_t extent(size_t i) const { return extent_[i]; }
  bool padding() const { return padding_; }
  // The factors dim i may take, at most `at_most`, ascending (1 first): the divisors of its
  // extent in the first tile, and with padding every chunk size. Local steps move among them.
  FactorValues values(size_t i, int64_t at_most) const;
  // The ones random draws take, and the lists of every option (exhaustive search, polish
  // sweeps) on all but one dim (Space::spatial_options): the divisors and the widest padded chunk.
  FactorValues drawn(size_t i, int64_t at_most) const;
  int64_t largest(size_t i, int64_t at_most) const;
  // Each factor a divisor or, with padding, a chunk size of its extent.
  bool allows(const Factors& sp) const;

 private:
  OpExtents extent_;
  bool padding_ = false;
};

}  // namespace dfx::mapper
