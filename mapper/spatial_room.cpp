#include "mapper/spatial_room.h"

#include <algorithm>
#include <utility>

#include "mapper/factors.h"

namespace dfx::mapper {

SpatialRoom::SpatialRoom(OpExtents extent, bool padding) : extent_(std::move(extent)), padding_(padding) {}

namespace {

FactorValues up_to(const std::vector<int64_t>& ascending, int64_t at_most) {
  return {ascending.begin(), std::upper_bound(ascending.begin(), ascending.end(), std::max<int64_t>(at_most, 1))};
}

}  // namespace

FactorValues SpatialRoom::values(size_t i, int64_t at_most) const {
  // Padded, a factor is a chunk size of the extent: each step spreads one chunk (73 rows on 64
  // PEs: 37, as 64 would run anyway), the divisors among them.
  if (padding_) return up_to(trip_counts(extent_[i]), at_most);
  return up_to(divisors(extent_[i]), at_most);
}

FactorValues SpatialRoom::drawn(size_t i, int64_t at_most) const {
  // The divisors (values() without padding); of the padded spreads only the widest that fits, in
  // the fewest steps: drawing every chunk size (about 2·sqrt(extent) of them) spread the search
  // thin, three quarters of its trees padded (and see Space::spatial_options for the lists of
  // every option). One list returned (not moved: GCC 12 misreads the move of an inline one).
  FactorValues some = up_to(divisors(extent_[i]), at_most);
  if (padding_) {
    const int64_t widest = widest_spread(extent_[i], at_most);
    if (widest > some.back()) some.push_back(widest);
  }
  return some;
}

int64_t SpatialRoom::largest(size_t i, int64_t at_most) const {
  return padding_ ? widest_spread(extent_[i], at_most) : values(i, at_most).back();
}

bool SpatialRoom::allows(const Factors& sp) const {
  for (size_t i = 0; i < sp.size(); ++i)
    if (largest(i, sp[i]) != sp[i]) return false;
  return true;
}

}  // namespace dfx::mapper
