#pragma once
// Integer division on the divider that is fastest for its operands.
#include <cstdint>

namespace dfx::model {

// n / d, on the 32-bit divider where both are in [0, 2^32): the same quotient, several times
// sooner than the 64-bit one on the x86 cores this runs on (the analysis divides at every loop it
// cuts and every buffer it fills, the mapper at every spread it sizes; perf put one 64-bit
// division at 7% of an activation, two at 1% of a search).
inline int64_t divide(int64_t n, int64_t d) {
  if (((n | d) >> 32) == 0) return static_cast<int64_t>(static_cast<uint32_t>(n) / static_cast<uint32_t>(d));
  return n / d;
}

// n % d, likewise.
inline int64_t remainder(int64_t n, int64_t d) {
  if (((n | d) >> 32) == 0) return static_cast<int64_t>(static_cast<uint32_t>(n) % static_cast<uint32_t>(d));
  return n % d;
}

}  // namespace dfx::model
