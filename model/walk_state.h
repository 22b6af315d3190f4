#pragma once
// What a walk (model/walker.h) keeps per buffer and per spatial loop, kept by the thread from one
// walk to the next (walk_kept, model/walk_support.h). Internal to model/.
#include <cstdint>
#include <deque>
#include <tuple>
#include <utility>
#include <vector>

#include "model/dataflow.h"
#include "model/index_set.h"
#include "model/placement.h"
#include "model/walk_replay.h"
#include "model/walk_support.h"

namespace dfx::model {

// One buffer's history: the elements resident after its last activation.
template <class Held>
struct Stream {
  int tensor = 0, level = 0, owner = 0, source = 0;  // owner: the last node to activate it
  bool write = false;
  int64_t instance_weight = 1;
  int inst_ctx = 0;          // the spatial instance (a context id, see Contexts)
  Held resident;
  OpBoxes snapshot;         // the boxes that produced `resident`, to translate it
  Slice cover;              // write streams: every element ever written here, per dimension
  int64_t write_entries = 0;
  int64_t mc_write_entries = 0;  // write entries as the source sees them (instances merged)
  int64_t mc_count = 1;          // instances merged into one source transfer
  std::vector<std::tuple<size_t, int64_t, int64_t>> spreads;  // (axis, step, count) per merged loop
  int spreads_owner = -1;        // the owner node `spreads` was computed for
  StreamOwners owners;  // tile nodes whose activations fill this buffer
  // A later pass of a spatial loop walked in passes (Walker::Passes): the earlier passes'
  // streams of this buffer, whose writes the source counted already.
  std::vector<int> twins;
  bool dropped = false;     // emptied by a Seq sibling since its last activation
  bool finished = false;    // its refills are counted (finish_write_streams)
  // Back to a new stream's state, keeping the storage of its lists and boxes.
  void reset() {
    tensor = level = owner = source = 0;
    write = false;
    instance_weight = 1;
    inst_ctx = 0;
    resident = Held();
    snapshot.clear();
    cover.clear();
    write_entries = mc_write_entries = 0;
    mc_count = 1;
    spreads.clear();
    spreads_owner = -1;
    owners.clear();
    twins.clear();
    dropped = finished = false;
  }
};

// Objects a walk makes by the dozen (its buffers, its recorded steps), kept by the thread from
// walk to walk (each walk starts with none) so that a search's thousands of walks a second reuse
// their storage instead of allocating it anew: add() gives one in a new one's state (T::reset).
// Grows without moving them (references to one are held while others are made). One walk at a
// time per thread runs: Walker::run empties the stores as it starts.
template <class T>
class ThreadStore {
 public:
  size_t size() const { return live_; }
  T& operator[](size_t i) { return all_[i]; }
  const T& operator[](size_t i) const { return all_[i]; }
  T& add() {
    if (live_ == all_.size()) all_.emplace_back();
    else all_[live_].reset();
    return all_[live_++];
  }
  void clear() { live_ = 0; }  // a walk starts (Walker::run)

 private:
  std::deque<T> all_;
  size_t live_ = 0;
};

// How a spatial loop has split its extent so far (Walker::spatial_split_ok).
struct SpatialSplit {
  int64_t extent = 0, chunk = 0;
  bool even = true;             // the extent a multiple of the chunk
  std::vector<int64_t> counts;  // instance counts seen, ascending
  // Per tensor, how the ops below index it by the loop's dim (model::dim_uses), and whether
  // runs of instances not all alike may step below (model::runs_may_step_below): found when
  // first asked.
  std::vector<DimUse> uses;
  int may_step = -1;
};
// Per (node, loop index), the spatial loops a walk has seen so far: one slot per place of the
// tree (its loops, node by node), kept by the thread from walk to walk (start() at a walk's
// start).
class SpatialSplits {
 public:
  void start(const Dataflow& f) {
    at_.assign(f.nodes.size() + 1, 0);
    for (size_t i = 0; i < f.nodes.size(); ++i) at_[i + 1] = at_[i] + f.nodes[i].loops.size();
    if (slots_.size() < at_.back()) slots_.resize(at_.back());
    for (size_t k = 0; k < at_.back(); ++k) slots_[k].present = false;
  }
  SpatialSplit* find(int node, size_t li) {
    Slot& s = slots_[at_[static_cast<size_t>(node)] + li];
    return s.present ? &s.split : nullptr;
  }
  const SpatialSplit* find(int node, size_t li) const {
    const Slot& s = slots_[at_[static_cast<size_t>(node)] + li];
    return s.present ? &s.split : nullptr;
  }
  SpatialSplit& at(int node, size_t li) { return *find(node, li); }
  // The split of (node, li), and whether it was new (then `extent`, `chunk`, `even` as given).
  std::pair<SpatialSplit&, bool> insert(int node, size_t li, int64_t extent, int64_t chunk, bool even) {
    Slot& s = slots_[at_[static_cast<size_t>(node)] + li];
    if (s.present) return {s.split, false};
    s.present = true;
    s.split.extent = extent, s.split.chunk = chunk, s.split.even = even;
    s.split.counts.clear(), s.split.uses.clear(), s.split.may_step = -1;
    return {s.split, true};
  }
  // Every split seen, by node and loop index.
  template <class Visit>
  void each(const Dataflow& f, Visit visit) const {
    for (size_t n = 0; n < f.nodes.size(); ++n)
      for (size_t li = 0; li < at_[n + 1] - at_[n]; ++li)
        if (const Slot& s = slots_[at_[n] + li]; s.present) visit(static_cast<int>(n), li, s.split);
  }

 private:
  struct Slot {
    bool present = false;
    SpatialSplit split;
  };
  std::vector<size_t> at_;  // per node, where its slots start; one more at the end
  std::vector<Slot> slots_;
};
}  // namespace dfx::model
