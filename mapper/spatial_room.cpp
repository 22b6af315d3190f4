#include "mapper/spatial_room.h"

#include <algorithm>
#include <utility>

#include "mapper/factors.h"

namespace dfx::mapper {

SpatialRoom::SpatialRoom(std::vector<int64_t> extent, std::vector<char> varies, bool padding)
    : extent_(std::move(extent)), varies_(std::move(varies)), padding_(padding) {}

bool SpatialRoom::may_pad(const std::vector<int64_t>& sp, size_t i) const {
  if (!padding_) return false;
  for (size_t j = 0; j < sp.size(); ++j)
    if (j != i && !regular(j, sp[j])) return false;
  return true;
}

std::vector<int64_t> SpatialRoom::values(const std::vector<int64_t>& sp, size_t i, int64_t at_most) const {
  // Padded, a factor is a chunk size of the extent: each step spreads one chunk (73 rows on 64
  // PEs: 37, as 64 would run anyway), the divisors among them.
  std::vector<int64_t> all = may_pad(sp, i) ? trip_counts(extent_[i]) : varies_[i] ? std::vector<int64_t>{1} : divisors(extent_[i]);
  all.erase(std::upper_bound(all.begin(), all.end(), std::max<int64_t>(at_most, 1)), all.end());
  return all;
}

std::vector<int64_t> SpatialRoom::drawn(const std::vector<int64_t>& sp, size_t i, int64_t at_most) const {
  const bool pad = may_pad(sp, i);
  std::vector<int64_t> some = varies_[i] && !pad ? std::vector<int64_t>{1} : divisors(extent_[i]);
  const int64_t most = std::max<int64_t>(at_most, 1);
  some.erase(std::upper_bound(some.begin(), some.end(), most), some.end());
  if (!pad) return some;
  // Of the padded spreads only the widest that fits, in the fewest steps: drawing every chunk
  // size (about 2·sqrt(extent) of them) spread the search thin, three quarters of its trees padded.
  const int64_t steps = (extent_[i] + most - 1) / most;
  const int64_t widest = (extent_[i] + steps - 1) / steps;
  if (widest > some.back()) some.push_back(widest);
  return some;
}

int64_t SpatialRoom::largest(const std::vector<int64_t>& sp, size_t i, int64_t at_most) const {
  return values(sp, i, at_most).back();
}

bool SpatialRoom::allows(const std::vector<int64_t>& sp) const {
  for (size_t i = 0; i < sp.size(); ++i) {
    const std::vector<int64_t> ok = values(sp, i, sp[i]);
    if (ok.back() != sp[i]) return false;
  }
  return true;
}

int SpatialRoom::irregular(const std::vector<int64_t>& sp) const {
  for (size_t i = 0; i < sp.size(); ++i)
    if (!regular(i, sp[i])) return static_cast<int>(i);
  return -1;
}

}  // namespace dfx::mapper
