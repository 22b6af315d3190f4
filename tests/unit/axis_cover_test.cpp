// AxisCover (model/axis_cover.h) against IndexSet, the set it stands for: random intervals,
// unions and translates as a write buffer's cover takes them, the same elements every time.
#include <gtest/gtest.h>

#include <random>

#include "model/axis_cover.h"

namespace dfx::model {
namespace {

TEST(AxisCover, SameElementsAsIndexSetOnRandomChanges) {
  std::mt19937_64 rng(11);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  int runs_kept = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    AxisCover cover, other;
    IndexSet want, other_want;
    // Lengths and spacings from a few values, as tiles make them, so that runs form and meet.
    const int64_t unit = pick(1, 4);
    auto interval = [&](AxisCover& c, IndexSet& s) {
      const int64_t lo = unit * pick(-4, 24), len = unit * pick(1, 3);
      c.add_interval(lo, lo + len);
      s.unite(IndexSet::interval(lo, lo + len));
    };
    for (int step = 0; step < 6; ++step) {
      switch (pick(0, 3)) {
        case 0:
          interval(cover, want);
          break;
        case 1: {
          const int64_t by = unit * pick(-6, 12), count = pick(1, 5);
          cover.add_translates(by, count);
          want.add_translates(by, count);
          break;
        }
        case 2:
          interval(other, other_want);
          if (pick(0, 1)) other.add_translates(unit * pick(1, 8), pick(1, 4)), other_want = other.set();
          cover.add(other);
          want = want.united(other_want);
          break;
        default: {
          const int64_t lo = unit * pick(0, 8), len = unit * pick(1, 2), by = unit * pick(1, 8), count = pick(1, 6);
          AxisCover run;
          run.add_interval(lo, lo + len);
          run.add_translates(by, count);
          IndexSet run_set = IndexSet::interval(lo, lo + len);
          run_set.add_translates(by, count);
          ASSERT_EQ(run.set(), run_set);
          cover.add(run);
          want = want.united(run_set);
        }
      }
      ASSERT_EQ(cover.set(), want) << "trial " << trial << " step " << step;
      ASSERT_EQ(cover.size(), want.size()) << "trial " << trial << " step " << step;
    }
    runs_kept += cover.set().spans().size() > 1;
  }
  // The runs are exercised: many covers end as more than one interval.
  EXPECT_GT(runs_kept, 300);
}

}  // namespace
}  // namespace dfx::model
