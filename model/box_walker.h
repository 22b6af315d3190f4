#pragma once
// The box walk's state and steps (model/box_walk.h). It follows model/walker.h step for step —
// the same visits in the same order, the same sums in the same order, so the same bits — with
// buffers held as boxes. model/box_walk.cpp walks the tree, model/box_walk_buffers.cpp keeps the
// buffers. Internal to model/.
#include <cstdint>
#include <deque>
#include <map>
#include <tuple>
#include <optional>
#include <unordered_map>
#include <vector>

#include "model/box_walk.h"
#include "model/index_set.h"
#include "model/walk_replay.h"
#include "model/walk_scan.h"
#include "model/walk_support.h"

namespace dfx::model {

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
  Slice slice() const;  // as the walk's sets
};

// A union of boxes (MultiSlice's parts: none empty, none twice, in the accesses' order).
struct Boxes {
  static constexpr int kMaxParts = 4;
  int n = 0;
  Box part[kMaxParts];
  bool empty() const { return n == 0; }
  int64_t size() const;                         // |union|
  int64_t minus_size(const Boxes& older) const;  // |this − older|
  MultiSlice multi_slice() const;
};

// One buffer's history (model/walker.h's Stream, with boxes).
struct BoxStream {
  int tensor = 0, level = 0, owner = 0, source = 0;
  bool write = false;
  int64_t instance_weight = 1;
  int inst_ctx = 0;
  Boxes resident;
  OpBoxes snapshot;
  Slice cover;
  int64_t write_entries = 0, mc_write_entries = 0, mc_count = 1;
  Spreads spreads;
  int spreads_owner = -1;
  std::vector<int> owners;
  std::vector<int> twins;  // a later pass's: the earlier passes' streams of this buffer
  bool dropped = false, finished = false;
};

// What a representative step did (model/walk_replay.h's StepRecording, with boxes), to replay
// it under an enclosing loop's later steps.
struct BoxRecording {
  bool valid = false;
  OpBoxes boxes;
  int64_t weight = 0, instance_weight = 0;
  double repeat = 0;
  int inst_ctx = 0, part_ctx = 0, partial = 0;
  size_t spatial_depth = 0;
  double time = 0;
  Tally before;
  TallyDelta delta;  // counts only: op cycles are in `own_times`
  // Each own-op time added in the step: (op, latency, repeat at the time / the step's repeat).
  // Repeats are products of trip counts, exact in a double, so the replay adds the very same
  // products in the same order as a walk.
  std::vector<std::tuple<int, double, double>> own_times;
  struct Change {
    int id = 0, owner = 0;
    bool dropped = false;
    OpBoxes snapshot;
    int64_t write_entries = 0, mc_write_entries = 0;  // at the start; deltas once finished
    int end_owner = 0;
    bool end_dropped = false;
    Boxes end_resident;
    OpBoxes end_snapshot;
    std::vector<int> end_owners, end_twins;
    int64_t mc_count = 1;
    Spreads spreads;
    int spreads_owner = -1;
  };
  // The first `changed` of `changes` are this recording's: the rest keep their storage for the
  // next (a step is recorded again whenever its replay does not start alike).
  std::vector<Change> changes;
  size_t changed = 0;
  std::vector<std::pair<int, Slice>> covers;
  std::vector<StepRecording::Occupancy> occupancy;
  int64_t stores = 0, entangles = 0;
  double last_store = 0;
};

class BoxWalker {
 public:
  // The box walk leaves this tree to the walk.
  struct Uncovered {};

  BoxWalker(const arch::Arch& a, const Workload& w, const Dataflow& f, const Placement& p, PhaseCache* phases);
  // Throws Uncovered.
  WalkResult run();
  bool must_walk_again() const { return entangled_ && used_cache_; }

 private:
  const arch::Arch& a_;
  const Workload& w_;
  const Dataflow& f_;
  const Placement& p_;
  WalkResult r_;
  Contexts contexts_;
  TileIndex index_;
  BufferAccesses accesses_;
  BoxPool pool_;
  int inst_ctx_ = 0, part_ctx_ = 0;
  struct SpatialLevel {
    int64_t count = 1;
    OpBoxes delta;
  };
  std::vector<SpatialLevel> spatial_stack_;
  size_t spatial_depth_ = 0;
  int partial_ = 0;  // loops whose partial last step encloses the current position
  int untimed_ = 0;  // inside a spatial loop's later run, whose time the first run's stands for
  // Spatial loops whose instances are not all alike, in runs (Walker::Passes, SpatialSplit,
  // SteppingRun: the same bookkeeping).
  struct Passes {
    int node = 0;
    size_t level = 0;
    struct Sent {
      int node = 0, tensor = 0;
      std::vector<int> streams;
      Region region;
    };
    std::vector<Sent> sent;
  };
  std::optional<Passes> passes_;
  struct SpatialSplit {
    int64_t extent = 0, chunk = 0;
    bool even = true;
    std::vector<int64_t> counts;
    std::vector<DimUse> uses;
    int may_step = -1;
  };
  std::map<std::pair<int, size_t>, SpatialSplit> spatial_splits_;
  struct SteppingRun {
    size_t level = 0;
    const std::vector<DimUse>* uses = nullptr;
    int64_t run = 0;
  };
  std::vector<SteppingRun> stepping_runs_;
  InstanceScan scan_;
  InstanceCounts classes_;  // what the scans found
  static constexpr int64_t kMaxPasses = 16;
  struct Runs {
    std::pair<int64_t, int64_t> run[kMaxPasses];
    size_t size = 0;
  };
  std::vector<int> mc_prefix_;
  std::unordered_map<uint64_t, int> stream_ids_;
  std::vector<BoxStream> streams_;
  int representing_ = 0;
  std::vector<int> touched_;
  std::vector<std::pair<int, Slice>> cover_log_;
  std::vector<int> translate_ids_;
  std::vector<std::pair<int, Slice>> written_;
  std::vector<int64_t> shift_;
  std::unordered_map<uint64_t, int64_t> occupancy_, level_occupancy_;
  int64_t instance_weight_ = 1;
  std::vector<int> subtree_end_;
  std::vector<int> own_op_;
  double repeat_ = 1;
  bool computed_ = false;
  double first_loads_ = 0, last_store_ = 0;
  PhaseCache* phase_cache_ = nullptr;
  static constexpr size_t kNotRecording = ~size_t{0};
  size_t recording_from_ = kNotRecording;
  bool entangled_ = false, used_cache_ = false;
  std::vector<std::pair<int, int64_t>> homes_;  // children(): intermediates at home, (tensor, elements)

  // Replayed steps (box_walk_replay.cpp), as the walk's (model/walk_replay.h).
  ReplayPlaces replay_places_;
  std::vector<int> recording_slot_;       // 2 * place + last: its recording in recordings_, -1: none yet
  std::deque<BoxRecording> recordings_;   // grows without moving the ones being recorded
  std::vector<BoxRecording*> recorders_;  // steps being recorded, outermost first
  int64_t stores_ = 0, entangles_ = 0;    // events a recording counts
  Tally tally_scratch_;
  OpBoxes replay_delta_;
  std::vector<std::vector<int64_t>> replay_shifts_;
  std::vector<char> replay_uniform_;
  double step(int node, size_t li, const OpBoxes& boxes, int64_t weight, bool last = false);
  bool replay(const BoxRecording& rec, const OpBoxes& boxes, int64_t weight, double& out);
  void start_recording(BoxRecording& rec, const OpBoxes& boxes, int64_t weight);
  void finish_recording(BoxRecording& rec, double t);
  void note_change(int id);
  void note_occupancy(uint64_t key, int level, int tensor, int64_t before, int64_t after);
  void note_own_time(int op, double t, double repeat);

  bool inside(int node, int root) const { return node >= root && node < subtree_end_[static_cast<size_t>(root)]; }
  WalkResult empty_result() const;
  double cycles_of(double latency) const { return latency + first_loads_ + last_store_; }

  // Tree (box_walk.cpp).
  double visit(int node, const OpBoxes& boxes, int64_t weight);
  double visit_node(int node, const OpBoxes& boxes, int64_t weight);
  double visit_leaf(int node, const OpBoxes& boxes, int64_t weight);
  double children(int node, const OpBoxes& boxes, int64_t weight);
  double phase(int child, const OpBoxes& boxes, int64_t weight);
  double cached_phase(int child, const OpBoxes& boxes, int64_t weight);
  bool on_chip_empty() const;
  void add_phase(const WalkResult& r);
  double loops(int node, size_t li, const OpBoxes& boxes, int64_t weight);
  double instances(int node, size_t li, int64_t weight, int64_t count, int64_t ctx_key, const OpBoxes& first,
                   const OpBoxes* next);
  // Spatial loops (box_walk_spatial.cpp), as Walker's.
  template <class At>
  double spatial(int node, size_t li, int64_t weight, int64_t trips, bool uneven, At at);
  void check_split(int node, size_t li, int64_t extent, const Cut& steps);
  bool nothing_steps_below(int node, size_t li) const;
  SpatialSplit& split_with_uses(int node, size_t li);
  bool sent_by_an_earlier_run(int tensor, size_t prefix) const;
  Runs instance_runs(int node, size_t li, int64_t trips, bool uneven) const;
  int64_t sent_over_passes(int node, int tensor, int id, const Boxes& now, int64_t merged);
  BoxPool::Lease step_boxes(int node, int dim, int64_t chunk, int64_t i, const OpBoxes& boxes) {
    BoxPool::Lease b(pool_, boxes);
    index_.restrict(node, dim, i * chunk, i * chunk + chunk, *b);
    return b;
  }

  // Buffers (box_walk_buffers.cpp).
  Boxes slice_of(int node, int tensor, const OpBoxes& boxes) const;
  int stream_for(int node, int tensor);
  struct Moved {
    double load = 0, store = 0;
  };
  Moved activate(int node, int tensor, const OpBoxes& boxes, int64_t weight);
  int64_t merged_fresh(const Boxes& now, const Boxes& before, int64_t fresh, const Spreads& spreads) const;
  void spreads_for(int node, int tensor, const OpBoxes& boxes, const Boxes& now, size_t prefix, Spreads& spreads);
  void add_occupancy(int level, int tensor, int inst, int64_t delta);
  void charge_source(int tensor, int source, int level, bool write, int64_t n);
  std::vector<std::vector<int>> staging_;  // [from * levels + to]: arch::Arch::staging_levels
  std::vector<char> staging_known_;
  void add_cover(int id, const Slice& part);
  void drop_for_sibling(int seq_node, int next_child);
  void translate_since(size_t mark, size_t cover_mark, const OpBoxes& delta, int64_t extra);
  bool uniform_shift(int node, int tensor, const OpBoxes& delta, int64_t k, std::vector<int64_t>& shift) const;
  void extend_cover(BoxStream& s, int id, const Slice& wrote, const OpBoxes& delta, int64_t extra);
  void move_snapshot(BoxStream& s, const OpBoxes& delta, int64_t k) const;
  void finish_write_streams(size_t from = 0);
};

}  // namespace dfx::model
