#pragma once
// Where each tensor lives along the tile tree: its home, and the nodes that start a buffer of it
// (owners) with the level each one fills from. Shared by the analysis and the test oracle; it
// decides structure only, no counting.
#include <algorithm>
#include <vector>

#include "arch/arch.h"
#include "model/dataflow.h"
#include "model/workload.h"

namespace dfx::model {

struct TensorPlacement {
  int region = 0;             // the root for workload inputs/outputs, the LCA for intermediates
  int home = 0;               // level that holds the tensor at the region root
  std::vector<int> level;     // per node: level holding it there, -1 if the subtree never touches it
  std::vector<bool> owner;    // per node: keeps its own buffer of the tensor (fills from `source`)
  std::vector<int> source;    // per node (owners): the level data comes from and goes back to
  std::vector<bool> writes;   // per node: the subtree contains the producer
};

struct Placement {
  std::vector<TensorPlacement> tensors;
  OpsBelow ops_below;  // per node, per op
};

// Contract: throws InputError when a leaf's operand sits in a level that may not hold its role.
Placement place(const arch::Arch& a, const Workload& w, const Dataflow& f);

// How the ops below `node` index each tensor by `dim`: not at all, only plainly (an index
// position that is exactly `dim`), or otherwise (a window, a stride, a sum of dims). Per tensor.
enum class DimUse { None, Plain, Other };
std::vector<DimUse> dim_uses(const Workload& w, const Placement& p, int node, int dim);

// Whether the instances of a spatial loop over `dim` at `node` that are not all alike may step
// below it (loops after it in its tile or below): where a buffer below fills from a source buffer
// they all share and that multicasts, their transfers merge step by step, and the runs of alike
// instances, walked one after another, must not tell apart what one step's union holds. So every
// such buffer holds a tensor they read without `dim` (a later run needs, at each step, what the
// first run's instances took then: nothing more is sent) or index by `dim` plainly (their
// elements are apart: each run's are its own). Buffers fed each its own copy (`multicast: false`)
// or from buffers of their own may hold anything. `uses`: dim_uses(w, p, node, dim).
bool runs_may_step_below(const arch::Arch& a, const Dataflow& f, const Placement& p, int node, const std::vector<DimUse>& uses);

// Every op box of a subtree shrinks with its loops; a producer fused with its consumers only
// computes what they read. Boxes are per op, per dimension, half-open [lo, hi), stored flat so
// that copying them (once per loop step in the walks) is one allocation.
// A plain struct rather than std::pair: trivially copyable, so box copies are one memcpy.
struct Range {
  int64_t first = 0, second = 0;
  bool operator==(const Range& o) const { return first == o.first && second == o.second; }
  bool operator!=(const Range& o) const { return !(*this == o); }
  bool operator<(const Range& o) const { return first != o.first ? first < o.first : second < o.second; }
};

class OpBoxes {
 public:
  OpBoxes() = default;
  // Every op over the whole problem.
  static OpBoxes whole(const Workload& w) {
    OpBoxes b;
    b.assign_whole(w);
    return b;
  }
  // The same in this one's storage.
  void assign_whole(const Workload& w) {
    dims_ = w.dims.size();
    r_.resize(w.ops.size() * dims_);
    for (size_t o = 0; o < w.ops.size(); ++o)
      for (size_t d = 0; d < dims_; ++d) r_[o * dims_ + d] = {0, w.dims[d].size};
  }
  size_t size() const { return dims_ ? r_.size() / dims_ : 0; }  // number of ops
  void clear() { dims_ = 0, r_.clear(); }  // empty, keeping the storage
  size_t dims() const { return dims_; }
  Range* operator[](size_t op) { return r_.data() + op * dims_; }
  const Range* operator[](size_t op) const { return r_.data() + op * dims_; }
  bool empty() const { return r_.empty(); }
  void fill(Range v) { std::fill(r_.begin(), r_.end(), v); }
  // `like`'s shape, every range {0, 0}, reusing this one's storage.
  void assign_zero(const OpBoxes& like) {
    dims_ = like.dims_;
    r_.assign(like.r_.size(), Range{0, 0});
  }
  // A step's move from `from` to `to` (boxes of one shape) in the starts: to − from, ends 0. The
  // walk keeps moves this way and moves boxes by them, a flat pass each (per loop step).
  void assign_move(const OpBoxes& from, const OpBoxes& to) {
    dims_ = from.dims_;
    r_.resize(from.r_.size());
    for (size_t i = 0; i < r_.size(); ++i) r_[i] = {to.r_[i].first - from.r_[i].first, 0};
  }
  // Op `op`'s ranges moved by `k` times `move`'s starts (a move of this shape).
  void move_op_by(size_t op, const OpBoxes& move, int64_t k) {
    Range* r = (*this)[op];
    const Range* m = move[op];
    for (size_t d = 0; d < dims_; ++d) {
      const int64_t by = k * m[d].first;
      r[d].first += by, r[d].second += by;
    }
  }
  // Every range, likewise.
  void move_by(const OpBoxes& move, int64_t k = 1) {
    Range* __restrict r = r_.data();
    const Range* __restrict m = move.r_.data();
    for (size_t i = 0, n = r_.size(); i < n; ++i) {
      const int64_t by = k * m[i].first;
      r[i].first += by, r[i].second += by;
    }
  }

 private:
  size_t dims_ = 0;
  std::vector<Range> r_;
};

}  // namespace dfx::model
