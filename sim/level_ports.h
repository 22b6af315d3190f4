#pragma once
// The read and write ports of on-chip memories: every access streams its bytes through the
// level's port at the level's bandwidth (read_bw, write_bw), first come first served, so pipes
// that use the same port at the same time slow each other down. DRAM has its own port, shared
// by the cores (dram_port.h).
#include <array>
#include <vector>

#include "arch/arch.h"
#include "arch/isa.h"

namespace dfx::sim {

// The share of a level's bandwidth a block gets: the fraction of its banks that its first
// `banks` elements fall in (1 for a contiguous block; 1/banks when every element hits one bank).
double bank_share(const arch::MemRef& r, int64_t banks);

class LevelPorts {
 public:
  explicit LevelPorts(const arch::Arch& a) : a_(a), free_at_(a.levels.size(), {0.0, 0.0}) {}
  // Reserves `bytes` on the level's read or write port from cycle `start`, at `share` of its
  // bandwidth (the banks the access touches); returns the (fractional) cycle at which the access
  // has streamed through.
  double reserve(int level, bool write, double bytes, double start, double share = 1.0);

 private:
  const arch::Arch& a_;
  std::vector<std::array<double, 2>> free_at_;
};

}  // namespace dfx::sim
