#pragma once
// The spatial factors an op of the template may take in its group's tiles (mapper/space.h).
// A factor that divides a dimension's extent, the same in every tile of the group, gives alike
// instances in every step. On a unit the tree schedules (PeAxes::geometric) a dimension may also
// be padded: 73 rows as two steps of 37 instances on a 64-wide axis (36 run in the second), or
// spread although the group's partial last tile leaves less of it. Instances then idle in some
// steps, which the model allows for one spatial loop of a tile, its innermost
// (docs/semantics.md): one such factor per op, a chunk size of its extent.
// A unit that takes whole instructions blocks its tile onto the array itself, padding included,
// so its factors stay divisors.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace dfx::mapper {

class SpatialRoom {
 public:
  // Per dim of the op: its extent in the group's first tile and whether the last tile's differs.
  SpatialRoom(std::vector<int64_t> extent, std::vector<char> varies, bool padding);

  size_t size() const { return extent_.size(); }
  int64_t extent(size_t i) const { return extent_[i]; }
  // The factors dim i may take, at most `at_most`, ascending (1 first), given the others' in `sp`:
  // only regular ones when another dim has the op's irregular factor.
  std::vector<int64_t> values(const std::vector<int64_t>& sp, size_t i, int64_t at_most) const;
  // The ones a random draw takes: the regular ones and the widest padded one.
  std::vector<int64_t> drawn(const std::vector<int64_t>& sp, size_t i, int64_t at_most) const;
  int64_t largest(const std::vector<int64_t>& sp, size_t i, int64_t at_most) const;
  // Each factor one that values() allows with the others kept: at most one irregular.
  bool allows(const std::vector<int64_t>& sp) const;
  // The dim with an irregular factor (its loop goes innermost), or -1.
  int irregular(const std::vector<int64_t>& sp) const;

 private:
  bool may_pad(const std::vector<int64_t>& sp, size_t i) const;  // padding on, no other dim irregular
  bool regular(size_t i, int64_t f) const { return f == 1 || (!varies_[i] && extent_[i] % f == 0); }
  std::vector<int64_t> extent_;
  std::vector<char> varies_;
  bool padding_ = false;
};

}  // namespace dfx::mapper
