#pragma once
// What a buffer holds, as the walk (model/walker.h) keeps it: general sets (MultiSlice: strided
// windows, anything an access can touch), or, where every access is an interval per index, a
// union of a few boxes (Boxes: the same elements, kept as plain ranges, at a fraction of the
// cost). The walk is written once over these functions; walk_tree picks the kind. Internal to
// model/.
#include <cstdint>
#include <optional>
#include <vector>

#include "model/index_set.h"
#include "model/walk_support.h"

namespace dfx::model {

constexpr int kMaxBoxRank = 6;

// A product of intervals, one per tensor dimension: what one access of a tile touches.
struct Box {
  int rank = 0;
  Range r[kMaxBoxRank];
  int64_t size() const {
    int64_t n = 1;
    for (int j = 0; j < rank; ++j) n *= r[j].second - r[j].first;
    return n;
  }
  bool operator==(const Box& o) const {
    if (rank != o.rank) return false;
    for (int j = 0; j < rank; ++j)
      if (r[j] != o.r[j]) return false;
    return true;
  }
  Slice slice() const;  // as sets
};

// A union of boxes: MultiSlice's parts (none empty, none twice, in the accesses' order) as boxes.
struct Boxes {
  static constexpr int kMaxParts = 4;
  int n = 0;
  Box part[kMaxParts];
  bool empty() const { return n == 0; }
  int64_t size() const;                         // |union|
  int64_t minus_size(const Boxes& older) const;  // |this − older|
  void shift(const std::vector<int64_t>& per_dim);
  MultiSlice multi_slice() const;
};

// More parts than Boxes keeps (a tensor accessed by five ops in one tile): walk with sets.
struct TooManyBoxes {};

// Whether every access of `w` is an interval per index (each index a sum of distinct dims with
// coefficient 1, or a constant) of at most kMaxBoxRank dimensions: then its buffers can be Boxes.
bool accesses_are_boxes(const Workload& w);
// Whether they are boxes and every index is moreover one dim with no offset, or a constant (the
// closed form's accesses, model/template_plan.h).
bool accesses_are_plain_boxes(const Workload& w);

// |the box and its copies moved by each spread|, each axis spread at most once.
int64_t spread_size(const Box& box, const Spreads& spreads);

// A box spread along some of its axes, each at most once: what the instances of spatial loops
// newly hold together when the representative's new slice is one box apart from what it held.
// The runs of a spatial loop's instances send such sets; kept so where they can be, they are
// compared without building regions.
struct SpreadBox {
  Box box;
  Spreads spreads;
  int64_t size() const;
  bool apart_from(const SpreadBox& o) const;  // their bounds do not meet
  bool operator==(const SpreadBox& o) const { return box == o.box && spreads == o.spreads; }
  Region region() const;
};
// now − before spread (with `spread`: by `spreads`), as a SpreadBox where it is one.
std::optional<SpreadBox> spread_apart(const Boxes& now, const Boxes& before, const Spreads& spreads, bool spread);

// The walk's operations on what a buffer holds, for either kind.
// The elements of the accesses `by` touch in `boxes` (a buffer's slice).
void take_slice(MultiSlice& out, BufferAccesses::Accesses by, const OpBoxes& boxes);
void take_slice(Boxes& out, BufferAccesses::Accesses by, const OpBoxes& boxes);  // throws TooManyBoxes
inline size_t parts_of(const MultiSlice& h) { return h.parts.size(); }
inline size_t parts_of(const Boxes& h) { return static_cast<size_t>(h.n); }
inline size_t part_rank(const MultiSlice& h, size_t p) { return h.parts[p].size(); }
inline size_t part_rank(const Boxes& h, size_t p) { return static_cast<size_t>(h.part[p].rank); }
inline int64_t part_lo(const MultiSlice& h, size_t p, size_t j) { return h.parts[p][j].lo(); }
inline int64_t part_lo(const Boxes& h, size_t p, size_t j) { return h.part[p].r[j].first; }
// The first part as sets (what a write stream's cover grows by). Contract: not empty.
inline const Slice& first_part(const MultiSlice& h) { return h.parts.front(); }
inline Slice first_part(const Boxes& h) { return h.part[0].slice(); }
// The first part's innermost dimension (a transfer's rows), 1 where there is none.
int64_t row_of(const MultiSlice& h);
int64_t row_of(const Boxes& h);
// now − before as disjoint pieces (what runs of instances send together).
inline Region difference(const MultiSlice& now, const MultiSlice& before) { return Region::difference(now, before); }
inline Region difference(const Boxes& now, const Boxes& before) { return Region::difference(now.multi_slice(), before.multi_slice()); }
// |union over the merged instances of what each newly holds| (walk_support.h's, for boxes).
int64_t merged_fresh(const Boxes& now, const Boxes& before, int64_t fresh, const Spreads& spreads);

}  // namespace dfx::model
