#pragma once
// What a representative step of a loop did to the walk (model/walk_replay.cpp), kept so that the
// same step under a later step of an enclosing loop can be replayed instead of walked.
//
// The walk visits a loop's first step, then one step standing for the middle ones. Under an
// enclosing loop's representative step, the inner loop's first step sees what the enclosing
// loop's previous step left (walked again), but its representative step starts from the state
// its own first step left: the same, relative to the boxes, as under the enclosing loop's first
// step. Without replay a nest of d loops visits its innermost body 2^d times; with it, d + 1.
// Internal to model/.
#include <boost/container/small_vector.hpp>
#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

#include "model/index_set.h"
#include "model/placement.h"
#include "model/walk.h"
#include "model/walk_support.h"
#include "model/walk_time.h"

namespace dfx::model {

// The counters of a WalkResult that grow in proportion to a visit's weight (traffic, work, feeds)
// or its repeat (cycles per op), flattened: a step's share is the difference of two tallies,
// kept as the entries that changed.
struct Tally {
  std::vector<int64_t> counts;
  std::vector<double> cycles;
  void take(const WalkResult& r);  // reuses the storage
};
struct TallyDelta {
  std::vector<std::pair<size_t, int64_t>> counts;
  std::vector<std::pair<size_t, double>> cycles;
  void between(const Tally& before, const Tally& after);
  // r += this * k (counts), * kd (cycles), in Tally's order.
  void add_to(WalkResult& r, int64_t k, double kd) const;
};

// Where representative steps are recorded and replayed: a place per node and loop index
// 0..loops (one flat table: places are made for every tree a search analyses), replayed where a
// temporal loop of more than one step runs from there down (else a step is one visit of each node
// below, no cheaper to replay than to walk) and one runs around the loop they are steps of (else
// no later step would replay them); or `everywhere` (tests).
struct ReplayPlaces {
  std::vector<uint32_t> at;  // per node, where its places start; one more at the end
  std::vector<char> replay;  // per place
  size_t place(int node, size_t li) const { return at[static_cast<size_t>(node)] + li; }
};
void replay_places(const Dataflow& f, bool everywhere, ReplayPlaces& out);

// `now` is `then` with the boxes of the ops that access a buffer (what its slice is made of)
// moved by `delta` (starts in delta[o][d].first).
bool moved_by(const OpBoxes& now, const OpBoxes& then, const OpBoxes& delta, BufferAccesses::Accesses by);

// An occupancy key a recorded step moved: the value before, the highest, and the value after.
struct OccupancyChange {
  uint64_t key = 0;
  int level = 0, tensor = -1;  // tensor -1: the level's total
  int64_t start = 0, high = 0, end = 0;
};

// The tile nodes whose activations fill a buffer: one or two nearly always, kept inline (a walk
// makes a buffer per tensor and instance, thousands per search's second).
using StreamOwners = boost::container::small_vector<int, 2>;

// `Held`: what a buffer holds (model/held.h).
template <class Held>
struct StepRecording {
  bool valid = false;
  // A new recording's state: nothing recorded (start_recording sets the rest; the lists keep
  // their storage).
  void reset() { valid = false; }
  // The call: loops(node, li, boxes, weight) with repeat_ at `repeat`, in these contexts.
  OpBoxes boxes;
  int64_t weight = 0, instance_weight = 0;
  double repeat = 0;
  int inst_ctx = 0, part_ctx = 0, partial = 0;
  // Walker::past_first_ at the start, and the dims that do not index a buffer the step wrote
  // (activate): a replay needs the same bits of the one in the other, for each such buffer takes
  // its partial sums back, or not, as the recorded step's did.
  uint64_t past_first = 0, unindexing_written = 0;
  size_t spatial_depth = 0;
  Time time;
  Tally before;  // at the start (scratch while recording)
  TallyDelta delta;  // op cycles (not instruction cycles) replay from own_times
  // Each own-op time added in the step: (op, latency, repeat at the time / the step's repeat).
  // Repeats are products of trip counts, exact in a double, so a replay adds the very products a
  // walk adds, in its order: op cycles are the same to the bit.
  std::vector<std::tuple<int, double, double>> own_times;
  // A buffer the step changed: its state before (to check the replay starts alike) and after.
  struct Change {
    int id = 0;
    int owner = 0;
    bool dropped = false;
    OpBoxes snapshot;
    int64_t write_entries = 0, mc_write_entries = 0;  // at the start; deltas once finished
    int end_owner = 0;
    bool end_dropped = false;
    Held end_resident;
    OpBoxes end_snapshot;
    StreamOwners end_owners;
    std::vector<int> end_twins;
    int64_t mc_count = 1;
    Spreads spreads;
    int spreads_owner = -1;
  };
  // The first `changed` of `changes` are this recording's; the rest keep their storage for the
  // next (a step is recorded again whenever its replay does not start alike).
  std::vector<Change> changes;
  size_t changed = 0;
  std::vector<std::pair<int, Slice>> covers;  // what write streams covered, one entry per stream
  std::vector<OccupancyChange> occupancy;
  // Event counters at the start, then how many happened in the step.
  int64_t load_resets = 0, stores = 0, entangles = 0;
  double after_last_load = 0, after_last_load_end = 0, last_store = 0, last_store_port = 0;
};

}  // namespace dfx::model
