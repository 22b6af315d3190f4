#include <gtest/gtest.h>

#include "model/index_set.h"

namespace dfx::model {
namespace {

AffineIndex affine(std::vector<std::pair<int, int64_t>> terms, int64_t offset) {
  AffineIndex ix;
  for (auto [d, c] : terms) ix.terms.push_back({d, c});
  ix.offset = offset;
  return ix;
}

TEST(IndexSet, StridedWindowIsContiguousWhenTheWindowCoversTheStride) {
  // h*2 + r, h in [0,4), r in [0,3): 0..8
  const Range box[] = {{0, 4}, {0, 3}};
  IndexSet s = IndexSet::of_affine(affine({{0, 2}, {1, 1}}, 0), box);
  EXPECT_EQ(s.size(), 9);
  EXPECT_EQ(s.spans().size(), 1u);
}

TEST(IndexSet, StridedWithoutWindowLeavesGaps) {
  const Range box[] = {{1, 4}};
  IndexSet s = IndexSet::of_affine(affine({{0, 2}}, 1), box);  // {3, 5, 7}
  EXPECT_EQ(s.size(), 3);
  EXPECT_EQ(s.spans().size(), 3u);
  EXPECT_EQ(s.intersect_size(IndexSet::interval(4, 8)), 2);
}

TEST(IndexSet, SliceDifferenceByOverlap) {
  MultiSlice a, b;
  a.add({IndexSet::interval(0, 4), IndexSet::interval(0, 4)});
  b.add({IndexSet::interval(2, 6), IndexSet::interval(0, 4)});
  EXPECT_EQ(a.minus_size(b), 8);
  MultiSlice u = a;
  u.add({IndexSet::interval(0, 2), IndexSet::interval(4, 6)});
  EXPECT_EQ(u.size(), 20);
  EXPECT_EQ(u.minus_size(b), 12);
}

TEST(Region, SpreadCountsTheUnionOfTranslates) {
  MultiSlice now, before;
  now.add({IndexSet::interval(0, 2), IndexSet::interval(0, 3)});
  Region r = Region::difference(now, before);
  EXPECT_EQ(r.size(), 6);
  r.spread(0, 1, 4);  // overlapping copies along dimension 0: rows 0..4
  EXPECT_EQ(r.size(), 15);
  r.spread(1, 10, 2);  // disjoint copies along dimension 1
  EXPECT_EQ(r.size(), 30);
}

TEST(Region, DifferenceRemovesWhatWasHeld) {
  MultiSlice now, before;
  now.add({IndexSet::interval(0, 4), IndexSet::interval(0, 4)});
  before.add({IndexSet::interval(1, 3), IndexSet::interval(1, 3)});
  EXPECT_EQ(Region::difference(now, before).size(), 12);
}

}  // namespace
}  // namespace dfx::model
