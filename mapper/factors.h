#pragma once
// The factors a loop of the template may take. Spatial factors divide their extent (instances
// are hardware and must do the same work); a temporal loop over a group's tile may also leave a
// partial last step (73 rows in five steps of 15), which helps where an extent has few divisors.
#include <algorithm>
#include <boost/container/small_vector.hpp>
#include <cstdint>
#include <random>
#include <vector>

#include "mapper/rng.h"
#include "model/divide.h"

namespace dfx::mapper {

// A row of factors (per outer dim of a group, per dim of an op, a spatial choice): inline, since
// a climb copies whole points by the thousand a second and each holds a row per group and two
// per op.
using Factors = boost::container::small_vector<int64_t, 6>;

// One entry of a non-empty list (a std::vector or a small_vector), drawn uniformly.
template <class List>
const typename List::value_type& pick(const List& v, Rng& rng) {
  return v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng)];
}

// The list is the thread's, kept for its whole life: a reference to it stays good.
const std::vector<int64_t>& divisors(int64_t n);

// n / d rounded up (n ≥ 0, d ≥ 1): the steps of chunks of d that cover n.
inline int64_t ceil_div(int64_t n, int64_t d) { return model::divide(n + d - 1, d); }

// Every trip count a temporal loop over n elements can have: the F with F = ceil(n / ceil(n/F)),
// one per chunk size (others name the same loop: 36 trips over 73 rows run in chunks of 3, so 25
// trips). Ascending; about 2·sqrt(n) of them, the divisors among them.
const std::vector<int64_t>& trip_counts(int64_t n);  // kept as divisors()

// The most instances n elements spread over in even chunks, at most `at_most` of them, in the
// fewest steps: ceil(n / steps) with steps = ceil(n / at_most) (73 rows on 64 PEs: 37 in two
// steps; 197 tokens on 4 cores: 4 chunks of 50, the last 47).
int64_t widest_spread(int64_t n, int64_t at_most);

// The trip count a loop of `factor` trips over n elements really runs.
int64_t trips_of(int64_t n, int64_t factor);

// The neighbour of d in the ascending list `ds` (up or down at random, at most `at_most`), or d
// when it has none that way (or is not in the list).
template <class List>
int64_t neighbour(const List& ds, int64_t d, int64_t at_most, Rng& rng) {
  const auto at = std::find(ds.begin(), ds.end(), d);
  if (at == ds.end()) return d;
  const bool up = chance(rng, 0.5);
  if (up && at + 1 != ds.end() && *(at + 1) <= at_most) return *(at + 1);
  if (!up && at != ds.begin()) return *(at - 1);
  return d;
}

// A temporal factor over n drawn at random: a divisor (they keep spatial loops below possible and
// tiles alike), or, half the time where n has four divisors or fewer, any trip count. Drawing
// them everywhere spread the search thin: attention G3 / cloud ended 14–49% higher on two of
// three seeds.
// With `divisors_only`, always a divisor.
int64_t pick_trips(int64_t n, Rng& rng, bool divisors_only = false);
// A local step: to the next larger or smaller divisor, or (a quarter of the time, and always when
// `f` is not a divisor) to the next trip count — where a climb refines a tile to fill a buffer.
// Small steps let a climb walk a factor towards its best value instead of jumping at random.
int64_t adjacent_trips(int64_t n, int64_t f, Rng& rng, bool divisors_only = false);

}  // namespace dfx::mapper
