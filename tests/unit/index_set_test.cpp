#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <set>

#include "model/index_set.h"
#include "model/walk_support.h"

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

// contains() against element-by-element sets, on random unions of intervals (more than the two
// a SpanList keeps inline, so both of its storages are exercised).
TEST(IndexSet, ContainsAndUnitedAgreeWithElementSets) {
  std::mt19937 rng(3);
  auto random_set = [&](std::set<int64_t>& elems) {
    IndexSet s;
    const int pieces = std::uniform_int_distribution<int>(0, 5)(rng);
    for (int i = 0; i < pieces; ++i) {
      const int64_t lo = std::uniform_int_distribution<int64_t>(0, 40)(rng);
      const int64_t hi = lo + std::uniform_int_distribution<int64_t>(1, 8)(rng);
      s = s.united(IndexSet::interval(lo, hi));
      for (int64_t v = lo; v < hi; ++v) elems.insert(v);
    }
    return s;
  };
  int contained = 0;
  for (int round = 0; round < 2000; ++round) {
    std::set<int64_t> ea, eb;
    const IndexSet a = random_set(ea), b = random_set(eb);
    bool subset = true;
    for (int64_t v : eb) subset = subset && ea.count(v);
    ASSERT_EQ(a.contains(b), subset);
    contained += subset;
    std::set<int64_t> eu = ea;
    eu.insert(eb.begin(), eb.end());
    ASSERT_EQ(a.united(b).size(), static_cast<int64_t>(eu.size()));
  }
  EXPECT_GT(contained, 100);  // both answers are exercised
}

// add_translates (in place where one span covers its step) against its definition, element by
// element: the set united with its copies moved 1..count steps, forwards and backwards.
TEST(IndexSet, AddTranslatesIsTheUnionOfTheCopies) {
  std::mt19937 rng(5);
  int in_place = 0, in_order = 0;
  for (int round = 0; round < 3000; ++round) {
    IndexSet s;
    std::set<int64_t> elems;
    const int pieces = std::uniform_int_distribution<int>(1, 3)(rng);
    for (int i = 0; i < pieces; ++i) {
      const int64_t lo = std::uniform_int_distribution<int64_t>(-20, 20)(rng);
      const int64_t hi = lo + std::uniform_int_distribution<int64_t>(1, 10)(rng);
      s = s.united(IndexSet::interval(lo, hi));
    }
    for (const Range& r : s.spans())
      for (int64_t v = r.first; v < r.second; ++v) elems.insert(v);
    const int64_t step = std::uniform_int_distribution<int64_t>(-12, 12)(rng);
    const int64_t count = std::uniform_int_distribution<int64_t>(0, 4)(rng);
    std::set<int64_t> want = elems;
    for (int64_t k = 1; k <= count; ++k)
      for (int64_t v : elems) want.insert(v + k * step);
    const bool one_wide_span = s.spans().size() == 1 && s.spans()[0].second - s.spans()[0].first >= std::abs(step);
    in_place += one_wide_span && count > 0 && step != 0;
    in_order += !one_wide_span && s.hi() - s.lo() <= std::abs(step) && count > 0 && step != 0;
    IndexSet grown = s;
    grown.add_translates(step, count);
    std::set<int64_t> got;
    for (const Range& r : grown.spans())
      for (int64_t v = r.first; v < r.second; ++v) got.insert(v);
    ASSERT_EQ(got, want) << "step " << step << " count " << count;
    ASSERT_EQ(grown, s.united(s.with_translates(step, 1, count)));
  }
  EXPECT_GT(in_place, 300);  // the in-place path is exercised
  EXPECT_GT(in_order, 300);  // and the one for a set that fits in one step (copies listed in order)
}

// unite() (in place where the other set starts at or after the last span) and contains() on long
// lists (searched for their first span) against united() and element-by-element sets.
TEST(IndexSet, UniteInPlaceAndContainsOnLongLists) {
  std::mt19937 rng(7);
  int appended = 0, long_lists = 0;
  for (int round = 0; round < 3000; ++round) {
    IndexSet a, b;
    std::set<int64_t> ea, eb;
    auto grow = [&](IndexSet& s, std::set<int64_t>& elems, int pieces, int64_t from) {
      for (int i = 0; i < pieces; ++i) {
        const int64_t lo = from + std::uniform_int_distribution<int64_t>(0, 60)(rng);
        const int64_t hi = lo + std::uniform_int_distribution<int64_t>(1, 4)(rng);
        s = s.united(IndexSet::interval(lo, hi));
        for (int64_t v = lo; v < hi; ++v) elems.insert(v);
      }
    };
    grow(a, ea, std::uniform_int_distribution<int>(0, 20)(rng), 0);
    grow(b, eb, std::uniform_int_distribution<int>(0, 4)(rng), std::uniform_int_distribution<int64_t>(0, 70)(rng));
    appended += !a.empty() && !b.empty() && b.spans().front().first >= a.spans().back().first;
    long_lists += a.spans().size() > 8;
    bool subset = true;
    for (int64_t v : eb) subset = subset && ea.count(v);
    ASSERT_EQ(a.contains(b), subset);
    IndexSet u = a;
    u.unite(b);
    ASSERT_EQ(u, a.united(b));
  }
  EXPECT_GT(appended, 300);
  EXPECT_GT(long_lists, 300);
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

TEST(IndexSet, MinusCutsEverySpanOut) {
  IndexSet a = IndexSet::interval(0, 10).united(IndexSet::interval(20, 30));
  IndexSet b = IndexSet::interval(2, 4).united(IndexSet::interval(8, 22)).united(IndexSet::interval(25, 26));
  IndexSet d = a.minus(b);  // {0,1} {4..7} {22..24} {26..29}
  EXPECT_EQ(d.size(), 2 + 4 + 3 + 4);
  EXPECT_EQ(d.spans().size(), 4u);
  EXPECT_EQ(d.intersect_size(b), 0);
  EXPECT_EQ(a.minus(IndexSet()).size(), a.size());
  EXPECT_TRUE(b.minus(IndexSet::interval(-5, 40)).empty());
}

// A small random set of the integers [0, 12): a few intervals.
IndexSet random_set(std::mt19937& rng) {
  IndexSet s;
  std::uniform_int_distribution<int64_t> at(0, 11), len(1, 4), pieces(1, 3);
  for (int64_t k = pieces(rng); k > 0; --k) {
    const int64_t lo = at(rng);
    s = s.united(IndexSet::interval(lo, lo + len(rng)));
  }
  return s;
}

std::set<std::vector<int64_t>> points_of(const Slice& s) {
  std::set<std::vector<int64_t>> out{{}};
  for (const IndexSet& d : s) {
    std::set<std::vector<int64_t>> next;
    for (const auto& p : out)
      for (const auto& r : d.spans())
        for (int64_t v = r.first; v < r.second; ++v) {
          auto q = p;
          q.push_back(v);
          next.insert(q);
        }
    out = next;
  }
  return out;
}

// What multicast instances fetch together, checked element by element: the union over every
// spread copy of (now − before).
TEST(MergedFresh, EqualsTheUnionOfTranslatedDifferencesElementByElement) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    const size_t rank = 1 + trial % 3;
    Slice a, b;
    for (size_t j = 0; j < rank; ++j) {
      const IndexSet x = random_set(rng), y = random_set(rng);  // copies: GCC 12 misreads moves of small_vector
      a.push_back(x);
      b.push_back(y);
    }
    Spreads spreads;
    std::uniform_int_distribution<int64_t> step(-5, 5), count(2, 3);
    for (int k = trial % 3; k > 0; --k) spreads.emplace_back(static_cast<size_t>(rng() % rank), step(rng), count(rng));
    std::set<std::vector<int64_t>> want;
    const auto held = points_of(b);
    for (const auto& p : points_of(a)) {
      if (held.count(p)) continue;
      // every combination of the spread copies
      std::vector<std::vector<int64_t>> copies{p};
      for (const auto& [axis, st, n] : spreads) {
        std::vector<std::vector<int64_t>> next;
        for (const auto& c : copies)
          for (int64_t i = 0; i < n; ++i) {
            auto q = c;
            q[axis] += i * st;
            next.push_back(q);
          }
        copies = next;
      }
      want.insert(copies.begin(), copies.end());
    }
    MultiSlice now, before;
    now.add(a);
    before.add(b);
    const int64_t fresh = now.minus_size(before);
    if (spreads.empty()) {
      EXPECT_EQ(merged_fresh(now, before, fresh, spreads), fresh);
      continue;
    }
    EXPECT_EQ(merged_fresh(now, before, fresh, spreads), static_cast<int64_t>(want.size())) << "trial " << trial;
    Region r = Region::difference(now, before);
    for (const auto& [axis, st, n] : spreads) r.spread(axis, st, n);
    EXPECT_EQ(r.size(), static_cast<int64_t>(want.size())) << "trial " << trial;
  }
}

}  // namespace
}  // namespace dfx::model
