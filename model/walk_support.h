#pragma once
// Pieces of the fast walk (walk.cpp) that stand on their own. Internal to model/.
#include <algorithm>
#include <boost/container/small_vector.hpp>
#include <cstdint>
#include <tuple>
#include <vector>

#include "model/dataflow.h"
#include "model/divide.h"
#include "model/index_set.h"
#include "model/placement.h"
#include "model/tile_index.h"
#include "model/workload.h"

namespace dfx::model {

// Paths of choices (spatial loops taken, Para/Pipe children taken) interned as small ids, so that
// a buffer is found by a few integers rather than by comparing paths.
class Contexts {
 public:
  int enter(int ctx, int64_t value);
  bool within(int ctx, int ancestor) const;  // ctx is `ancestor` or below it
  void reset() { parent_.assign(1, -1), depth_.assign(1, 0), kids_[0].clear(); }  // the root alone (lists keep their storage)

 private:
  std::vector<int> parent_{-1}, depth_{0};
  // Per context, the contexts entered from it: (value, id). A context has a few (one per spatial
  // loop, pass or split child below it), found by a short scan.
  std::vector<boost::container::small_vector<std::pair<int64_t, int>, 4>> kids_{1};
};

// This thread's T for the walks it runs — one at a time per thread (walk_tree) — so that what a
// walk builds by the dozen keeps its storage for the next: a search runs thousands of walks a
// second. Each walk resets what it takes (Walker::run). `Which` tells two of one type apart.
template <class T, int Which = 0>
T& walk_kept() {
  thread_local T kept;
  return kept;
}

// Box buffers reused across the walk's loop steps: each step's boxes are its parent's, restricted,
// and leasing the copy from a free list keeps the walk from allocating once per step.
class BoxPool {
 public:
  class Lease {
   public:
    Lease(BoxPool& pool, const OpBoxes& from) : pool_(pool) {
      if (!pool.free_.empty()) boxes_ = std::move(pool.free_.back()), pool.free_.pop_back();
      boxes_ = from;  // reuses the leased buffer's capacity
    }
    Lease(Lease&& o) noexcept : pool_(o.pool_), boxes_(std::move(o.boxes_)), live_(o.live_) { o.live_ = false; }
    ~Lease() {
      if (live_) pool_.free_.push_back(std::move(boxes_));
    }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    OpBoxes& operator*() { return boxes_; }

   private:
    BoxPool& pool_;
    OpBoxes boxes_;
    bool live_ = true;
  };

 private:
  std::vector<OpBoxes> free_;
};

// How a loop cuts the extent it sees: `trips` steps of `chunk`, the last `last` long.
struct Cut {
  int64_t chunk, trips, last;
};
inline Cut cut(int64_t extent, int64_t factor) {
  const int64_t chunk = divide(extent + factor - 1, factor);
  // ceil(extent / chunk): `factor` itself wherever factor - 1 chunks fall short of the extent (as
  // chunk >= extent / factor, factor chunks cover it), else fewer, found by a second division.
  const int64_t trips = (factor - 1) * chunk < extent ? factor : divide(extent + chunk - 1, chunk);
  return {chunk, trips, extent - (trips - 1) * chunk};
}

// Per node: one past the last node of its subtree (nodes are in pre-order).
std::vector<int> subtree_ends(const Dataflow& f);
// Per node: the op whose own tiles start there (the topmost node with that op's leaf alone below
// it), or -1; see WalkResult::op_cycles.
std::vector<int> own_ops(const Dataflow& f);

// For each owner and tensor: how many of the spatial loops around it also surround the buffer it
// fills from. The others split one source buffer among instances, which then share transfers.
// Worked out per tree from `anchors`, where each owner's source sits (source_anchors: from the
// placement alone, kept with the tree's shape): [node * tensors + tensor].
std::vector<int> source_prefixes(const Dataflow& f, const std::vector<int>& anchors);
// Per [node * tensors + tensor]: the nearest owner above an owner (its source buffer; the spatial
// loops of its strict ancestors count), or -2 - region for an intermediate's owner that fills
// from the tensor's home at its region (the region's own spatial loops count too), or -1 (none).
std::vector<int> source_anchors(const Workload& w, const Dataflow& f, const Placement& p);

// How merged instances' slices lie next to the representative's: per spatial loop, the tensor
// dimension it moves, by how much, and how many instances.
using Spreads = std::vector<std::tuple<size_t, int64_t, int64_t>>;  // (axis, step, count)

// A write stream's cover is a set per dimension: `into` grows by `part` dimension by dimension
// (most parts are in already: partial sums written back again).
void unite_per_dim(Slice& into, const Slice& part);
// The same, kept per stream in a flat list of (stream, cover) (few streams per step).
void unite_by_stream(std::vector<std::pair<int, Slice>>& covers, int id, const Slice& part);

// |union over the merged instances of what each newly holds|.
int64_t merged_fresh(const MultiSlice& now, const MultiSlice& before, int64_t fresh, const Spreads& spreads);

// What a buffer at a tile holds: per tile and tensor, the accesses of the tensor by the ops below
// the tile, in op order (outputs before inputs). Tabulated once per tree: the walk slices buffers
// on every activation and loop step, where scanning every op showed in profiles.
class BufferAccesses {
 public:
  struct Access {
    int op;
    const TensorAccess* access;
  };
  struct Accesses {
    const Access* from;
    const Access* to;
    const Access* begin() const { return from; }
    const Access* end() const { return to; }
  };
  BufferAccesses(const Workload& w, const Dataflow& f, const Placement& p);
  Accesses of(int node, int tensor) const {
    const size_t k = static_cast<size_t>(node) * tensors_ + static_cast<size_t>(tensor);
    return {table_.data() + at_[k], table_.data() + at_[k + 1]};
  }
  // The elements of `tensor` the ops below `node` touch in `boxes`: a buffer's slice.
  MultiSlice slice(int node, int tensor, const OpBoxes& boxes) const;
  // Whether some tensor is accessed by two index expressions that differ (A[m,k] and A[n,k],
  // O1[c,p] and O1[c,q+s]): only then can a move take a tensor's accesses apart.
  bool some_tensor_read_two_ways() const { return !read_two_ways_.empty(); }
  bool read_two_ways(int tensor) const {
    return std::find(read_two_ways_.begin(), read_two_ways_.end(), tensor) != read_two_ways_.end();
  }
  const std::vector<int>& tensors_read_two_ways() const { return read_two_ways_; }

 private:
  size_t tensors_;
  std::vector<int> read_two_ways_;  // the tensors some_tensor_read_two_ways() finds
  // Every (node, tensor)'s accesses in one array (built per analysed tree: one vector per pair
  // cost ~100 allocations a tree).
  std::vector<Access> table_;
  std::vector<uint32_t> at_;  // [node * tensors + tensor]: where its accesses start in table_
};

// True if boxes step by the same offset from `first` to `second` and on to `last`, `steps`
// steps after `first` (then every step in between is on that line too).
bool evenly_spaced(const OpBoxes& first, const OpBoxes& second, const OpBoxes& last, int64_t steps);

// The points of op `o` in its box: what its leaf computes in one visit.
int64_t box_points(const Workload& w, int o, const OpBoxes& boxes);

// Whether the children of `node` run as phases, each drained before the next starts: a Seq of
// several whose children hand an intermediate fused there over through a level no program
// addresses (DRAM). `fused`: TreeShape::fused.
bool runs_in_phases(const arch::Arch& a, const Dataflow& f, const Placement& p, const std::vector<std::vector<int>>& fused, int node);

}  // namespace dfx::model
