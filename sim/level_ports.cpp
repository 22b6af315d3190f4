// On-chip ports (see level_ports.h).
#include "sim/level_ports.h"

#include <algorithm>
#include <vector>

namespace dfx::sim {

double bank_share(const arch::MemRef& r, int64_t banks) {
  if (banks <= 1) return 1.0;
  // Row-major walk over the block's first `banks` elements (loop offsets do not change which
  // banks a block spreads over, only where it starts).
  std::vector<char> hit(static_cast<size_t>(banks), 0);
  std::vector<int64_t> index(r.sizes.size(), 0);
  int64_t distinct = 0;
  for (int64_t n = 0; n < banks && n < r.elements(); ++n) {
    int64_t address = 0;
    for (size_t d = 0; d < index.size(); ++d) address += index[d] * r.strides[d];
    const auto bank = static_cast<size_t>(((address % banks) + banks) % banks);
    if (!hit[bank]) hit[bank] = 1, ++distinct;
    for (size_t d = index.size(); d-- > 0;) {
      if (++index[d] < r.sizes[d]) break;
      index[d] = 0;
    }
  }
  const int64_t wanted = std::min(banks, r.elements());
  return static_cast<double>(distinct) / static_cast<double>(wanted);
}

double LevelPorts::reserve(int level, bool write, double bytes, double start, double share) {
  const auto& lv = a_.levels[static_cast<size_t>(level)];
  double& free = free_at_[static_cast<size_t>(level)][write ? 1 : 0];
  free = std::max(free, start) + bytes / ((write ? lv.write_bw : lv.read_bw) * share);
  return free;
}

}  // namespace dfx::sim
