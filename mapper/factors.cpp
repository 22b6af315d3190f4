#include "mapper/factors.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace dfx::mapper {

namespace {

// Lists a search asks for again and again (each draw of a spatial choice lists its dims' divisors
// or trip counts, a few hundred instructions each): kept by the thread for the whole run and
// handed out by reference (copies were ~5% of a search's allocations). A search asks for the
// lists of a few hundred extents (its dims cut by their chunks), so none is ever dropped, and a
// reference stays good (the map's nodes do not move).
template <int Which, class Make>
const std::vector<int64_t>& kept_list(int64_t n, Make make) {
  thread_local std::unordered_map<int64_t, std::vector<int64_t>> kept;
  auto at = kept.find(n);
  if (at == kept.end()) at = kept.emplace(n, make(n)).first;
  return at->second;
}

std::vector<int64_t> list_divisors(int64_t n) {
  std::vector<int64_t> out;
  out.reserve(64);  // enough for the sizes of workloads (a dim of 10^6 has at most 240); a hint only
  for (int64_t d = 1; d * d <= n; ++d)
    if (n % d == 0) {
      out.push_back(d);
      if (d != n / d) out.push_back(n / d);
    }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

const std::vector<int64_t>& divisors(int64_t n) { return kept_list<0>(n, list_divisors); }

int64_t widest_spread(int64_t n, int64_t at_most) {
  return ceil_div(n, ceil_div(n, std::max<int64_t>(at_most, 1)));
}

int64_t trips_of(int64_t n, int64_t factor) {
  if (factor <= 1 || n <= 1) return 1;
  return ceil_div(n, ceil_div(n, factor));
}

namespace {

std::vector<int64_t> list_trip_counts(int64_t n) {
  // One trip count per chunk size: chunks below sqrt(n) give trip counts above it and the
  // reverse, so both halves are found in O(sqrt n).
  std::vector<int64_t> out;
  out.reserve(2 * static_cast<size_t>(std::sqrt(static_cast<double>(n))) + 4);
  for (int64_t chunk = 1; chunk <= n && (chunk - 1) * (chunk - 1) <= n; ++chunk) {
    out.push_back(trips_of(n, (n + chunk - 1) / chunk));
    out.push_back(trips_of(n, chunk));
  }
  if (out.empty()) out.push_back(1);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

const std::vector<int64_t>& trip_counts(int64_t n) { return kept_list<1>(n, list_trip_counts); }

int64_t pick_trips(int64_t n, Rng& rng, bool divisors_only) {
  const std::vector<int64_t>& ds = divisors(n);
  if (divisors_only || ds.size() > 4 || chance(rng, 0.5)) return pick(ds, rng);
  return pick(trip_counts(n), rng);
}

int64_t adjacent_trips(int64_t n, int64_t f, Rng& rng, bool divisors_only) {
  if (divisors_only || (n % f == 0 && std::uniform_int_distribution<int>(0, 3)(rng) > 0)) return neighbour(divisors(n), f, n, rng);
  return neighbour(trip_counts(n), f, n, rng);
}

}  // namespace dfx::mapper
