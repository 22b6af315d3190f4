#pragma once
// Where an op's spatial loops may go on one core. A unit the tile tree schedules (TileFlow's
// assumption: its spatial loops place the work on the PEs) has axes — a PE array's rows and
// cols, or a vector unit's lanes, and the core's sub-cores where it has several — and each
// spatial loop takes one axis: m:8 × n:64 does not run on a 32 × 32 array, although its 512
// PEs would. A unit that takes whole instructions blocks each onto its array itself, so its
// tree's spatial loops only bound the tile: there only the count of PEs is kept.
#include <boost/container/small_vector.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "mapper/factors.h"

namespace dfx::mapper {

class PeAxes {
 public:
  // Each spatial loop on one axis: one of the unit's (rows and cols, or lanes), or the
  // `sub_cores` arrays of one core when there are more than one.
  static PeAxes geometric(std::vector<int64_t> unit_axes, int64_t sub_cores);
  // Up to `ways` spatial loops whose factors multiply to at most `pes`.
  static PeAxes count(int ways, int64_t pes);

  int ways() const { return ways_; }
  bool geometric() const { return !sizes_.empty(); }  // by axes, not by count
  // The factors (1: not spatial) fit: each of the others on an axis of its own (or, by count,
  // few enough and within the PEs).
  bool fits(const Factors& factors) const;
  // The largest factor `factors[i]` may take with the others kept (1 when they leave no axis).
  int64_t room(const Factors& factors, size_t i) const;
  // The same unit shared by `sharing` ops side by side (a Pipe or Para group): each takes an
  // equal part of the sub-cores when there are enough of them, else of the first axis (rows,
  // lanes); by count, of the PEs.
  PeAxes shared_by(int sharing) const;
  // For messages: "axes 32 × 32 (one spatial loop on each, up to its size)", "4096 PEs (at most
  // 2 spatial loops)".
  std::string describe() const;
  // Everything that tells two apart, as integers (a memo's key).
  std::vector<int64_t> key() const;

 private:
  std::vector<int64_t> sizes_;  // the unit's axes, then the sub-cores' (if any); empty: by count
  int64_t sub_cores_ = 1;
  int ways_ = 0;
  int64_t pes_ = 1;  // by count
  // The axes left once every factor but `skip` has one (largest factors on the largest axes),
  // or false when they do not fit. A unit has a few axes: kept inline (a climb asks this for
  // every spatial option it weighs).
  using Axes = boost::container::small_vector<int64_t, 8>;
  bool place(const Factors& factors, size_t skip, Axes& free_axes) const;
};

}  // namespace dfx::mapper
