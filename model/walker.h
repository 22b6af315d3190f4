#pragma once
// The fast walk behind walk_tree(): its state and steps. model/walk.cpp walks the tree (loops,
// children, timing); model/walk_streams.cpp keeps the buffers (what each holds, what moves).
// Internal to model/.
#include <algorithm>
#include <array>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "model/held.h"
#include "model/index_set.h"
#include "model/instruction_time.h"
#include "model/nest_plan.h"
#include "model/phase_cache.h"
#include "model/tree_shape.h"
#include "model/walk.h"
#include "model/walk_replay.h"
#include "model/walk_scan.h"
#include "model/walk_state.h"
#include "model/walk_support.h"
#include "model/walk_time.h"

namespace dfx::model {

// `Held`: how buffers keep what they hold (model/held.h): MultiSlice for any access, Boxes
// where every access is an interval. The same walk either way, to the bit.
template <class Held>
class Walker {
 public:
  // A spatial loop's instance counts, per (node, loop index), ascending: where a loop runs
  // different numbers of instances in different steps (a partial tile above it), its instances
  // are walked in classes (see Passes). scan_classes() finds them before the walk; `classes`
  // gives them instead.
  using InstanceCounts = model::InstanceCounts;

  // With `phases`, the root's children that are phases of their own are looked up there, or
  // walked and kept (see cached_phase).
  // `replay`: whether representative steps under an enclosing loop's later steps are replayed
  // from their first walk (model/walk_replay.h); the result is the same.
  // `give_up`: see CyclesBar (model/walk.h); the walk throws AboveBar where it gives up.
  Walker(const arch::Arch& a, const Workload& w, const Dataflow& f, const TreeShape& shape, PhaseCache* phases = nullptr,
         const InstanceCounts* classes = nullptr, StepReplay replay = StepReplay::Worthwhile, CyclesBar give_up = {})
      : a_(a), w_(w), f_(f), p_(shape.placement), index_(shape.index), accesses_(shape.accesses),
        scan_(w, f, index_, shape.buffers_below, shape.scan_basis), subtree_end_(shape.subtree_end), own_op_(shape.own_op), owned_(shape.owned), fused_(shape.fused), buffer_class_(shape.buffer_class), buffer_classes_(shape.buffer_classes), instructions_(a, w, f),
        replay_(replay != StepReplay::Off) {
    classes_ = classes, given_classes_ = classes != nullptr;
    give_up_ = give_up;
    r_ = empty_result();
    if (phases && root_phases_separable()) phase_cache_ = phases;
    mc_prefix_ = source_prefixes(f_, shape.source_anchors);
    nest_shape_.assign(f_.nodes.size(), -1);
    indexed_by_.assign(f_.nodes.size() * w_.tensors.size(), kNotKnown);
    if (instructions_.decoupled()) note_later_readers();  // only instruction-timed archs defer loads
    if (replay_) {
      replay_places(f_, replay == StepReplay::All, replay_places_);
      recording_slot_.assign(2 * replay_places_.at.back(), -1);
    }
  }

  WalkResult run();  // once: the result is moved out
  // A phase found a buffer an earlier one left holding data or written (never seen; see
  // on_chip_empty): a result that used the cache must be walked again without it.
  bool must_walk_again() const { return entangled_ && used_cache_; }
  // A spatial loop ran a number of instances its classes did not list (the scan missed it): the
  // result stands for nothing; walk again with instance_counts().
  bool needs_classes() const { return needs_classes_; }
  InstanceCounts instance_counts() const;

 private:
  const arch::Arch& a_;
  const Workload& w_;
  const Dataflow& f_;
  const Placement& p_;
  WalkResult r_;
  Contexts& contexts_ = walk_kept<Contexts>();  // reset as a walk starts (run)
  const TileIndex& index_;
  const BufferAccesses& accesses_;
  BoxPool& pool_ = walk_kept<BoxPool>();
  int inst_ctx_ = 0;  // current spatial instance
  int part_ctx_ = 0;  // current Para/Pipe partition
  int partial_ = 0;   // loops whose partial last step encloses the current position
  // The spatial loops around the current position (one per instance_ entry): how many instances
  // and how the boxes move from one instance to the next.
  struct SpatialLevel {
    int64_t count = 1;
    OpBoxes delta;
    // A run of one instance where the loop runs several in this step (padding's last instance,
    // runs not alike): how the boxes move from its first instance to its second, for
    // moves_apart alone (`delta` is zero: the run stands for no other).
    bool several = false;
    OpBoxes several_move;
    int node = -1;  // the spatial loop: its tile and index there (for messages)
    size_t li = 0;
  };
  // A stack whose levels keep their boxes' storage when popped: instances() pushes one per visit
  // of a spatial loop, thousands per analysis.
  class SpatialStack {
   public:
    size_t size() const { return depth_; }
    const SpatialLevel& operator[](size_t k) const { return levels_[k]; }
    SpatialLevel& push() {
      if (depth_ == levels_.size()) levels_.emplace_back();
      return levels_[depth_++];
    }
    void pop() { --depth_; }
    void clear() { depth_ = 0; }

   private:
    std::vector<SpatialLevel> levels_;
    size_t depth_ = 0;
  };
  // Pushes and pops pair, but a walk that gives up (AboveBar) leaves its levels: run() clears it.
  SpatialStack& spatial_stack_ = walk_kept<SpatialStack>();
  // A spatial loop whose instances are not all alike is walked in passes, each over a run of
  // alike instances: a last instance with less to do (73 rows over 8 instances: seven of 10,
  // one of 3), or instances that a partial tile above leaves idle (16 instances of one row, and
  // 9 in the last step: the first 9 run in every step, the other 7 in full steps only; each run
  // keeps its own buffers). Only spatial loops may follow it in its tile, and no loops below
  // (spatial_split_ok), so each buffer below is activated once per pass, in the same order: what
  // the earlier passes' sources sent then is kept, and a later pass's source sends only what
  // they did not (one multicast for all).
  struct Passes {
    int node = 0;      // the loop's tile
    size_t level = 0;  // the loop's index in spatial_stack_
    struct Sent {
      int node = 0, tensor = 0;
      std::vector<int> streams;  // each earlier pass's stream of this buffer
      // What their sources sent, together: `region`, and (boxes only) `spread` apart from it.
      Region region;
      std::vector<SpreadBox> spread;
      // The spread boxes moved into the region (before a send that is not one of them).
      void fold() {
        for (const SpreadBox& b : spread) region.unite(b.region());
        spread.clear();
      }
    };
    std::vector<Sent> sent;
  };
  std::optional<Passes> passes_;
  // What a multicast source sends for an activation merged over the passes' instances.
  int64_t sent_over_passes(int node, int tensor, int id, const Held& now, int64_t merged, int64_t fresh);
  // Boxes: a send that is a spread box, against earlier ones that are too (-1: not so).
  int64_t sent_apart(typename Passes::Sent* earlier, int node, int tensor, int id, const Held& now, int64_t merged);
  // How each spatial loop has split its extent so far (spatial_split_ok).
  SpatialSplits& spatial_splits_ = walk_kept<SpatialSplits>();
  const InstanceCounts* classes_ = nullptr;
  bool given_classes_ = false;
  InstanceCounts scanned_;  // what scan_classes() found
  bool needs_classes_ = false;
  InstanceScan scan_;
  void scan_classes(int node, const OpBoxes& boxes) {
    if (!given_classes_ && scan_.scan(node, boxes, scanned_)) classes_ = &scanned_;
  }
  std::vector<int> mc_prefix_;  // [node * tensors + tensor]: spatial loops that define the source buffer
  // Per buffer class (TreeShape::buffer_class), the streams made so far: (instance context,
  // partition context, stream id). Kept by the thread; run() empties it.
  using ClassStreams = boost::container::small_vector<std::array<int, 3>, 2>;
  std::vector<ClassStreams>& class_streams_ = walk_kept<std::vector<ClassStreams>>();
  ThreadStore<Stream<Held>>& streams_ = walk_kept<ThreadStore<Stream<Held>>>();
  // What representative iterations touched and wrote, for translate_since; only kept while one
  // is being visited (representing_ > 0), and cleared when the outermost one is done.
  int representing_ = 0;
  // (These and the scratch lists below are this thread's, kept from walk to walk: walk_kept<>.)
  std::vector<int>& touched_ = walk_kept<std::vector<int>, 0>();
  std::vector<std::pair<int, Slice>>& cover_log_ = walk_kept<std::vector<std::pair<int, Slice>>, 0>();
  std::vector<int64_t>& shift_ = walk_kept<std::vector<int64_t>, 0>();  // scratch of translate_since
  std::vector<int>& translate_ids_ = walk_kept<std::vector<int>, 1>();  // scratch of translate_since
  // Scratch of translate_since: what each write stream's representative wrote.
  std::vector<std::pair<int, Slice>>& written_ = walk_kept<std::vector<std::pair<int, Slice>>, 1>();
  // Elements held per (instance context, level, tensor) and per (instance context, level): flat,
  // [(inst * levels + level) * (tensors + 1) + tensor], the level's total at tensor == tensors
  // (contexts are small dense ids). Keys (occupancy_key, | tensor) name entries in recordings.
  std::vector<int64_t> occupancy_;
  // The row of (inst, level): its tensors', then the level's total (made when first asked for).
  int64_t* occupancy_row(size_t inst, size_t level) {
    const size_t row = w_.tensors.size() + 1, per_inst = a_.levels.size() * row;
    if (occupancy_.size() < (inst + 1) * per_inst) occupancy_.resize((inst + 1) * per_inst, 0);
    return occupancy_.data() + inst * per_inst + level * row;
  }
  // The entry a recording's key names.
  int64_t& occupancy_at(uint64_t key, bool total) {
    int64_t* row = occupancy_row(static_cast<size_t>(key >> 24), static_cast<size_t>(occupancy_level(key)));
    return row[total ? w_.tensors.size() : static_cast<size_t>(key & 0xffff)];
  }
  static uint64_t occupancy_key(int inst, int level) {
    return (static_cast<uint64_t>(inst) << 24) | (static_cast<uint64_t>(level) << 16);
  }
  static int occupancy_level(uint64_t key) { return static_cast<int>((key >> 16) & 0xff); }
  int64_t instance_weight_ = 1;
  const std::vector<int>& subtree_end_;
  // Per node: the op whose own tiles start there (the topmost node with that op's leaf alone
  // below it), or -1; see WalkResult::op_cycles.
  const std::vector<int>& own_op_;  // own_ops(): see WalkResult::op_cycles
  const std::vector<std::vector<int>>& owned_;  // TreeShape::owned: per node, the tensors it keeps buffers of
  const std::vector<std::vector<int>>& fused_;  // TreeShape::fused: per node, the intermediates fused there
  const std::vector<int>& buffer_class_;        // TreeShape::buffer_class
  size_t buffer_classes_ = 0;
  double repeat_ = 1;  // iterations the current visit stands for (a representative's `middle`s)
  int untimed_ = 0;    // inside a spatial loop's later pass, whose time the first pass's stands for
  // Adds a visit's latency to the op whose own tiles start at `node`, if any.
  void time_own_op(int node, const Time& t) {
    const int op = own_op_[static_cast<size_t>(node)];
    if (op < 0 || untimed_ != 0) return;
    r_.op_cycles[static_cast<size_t>(op)] += t.latency * repeat_;
    for (StepRecording<Held>* rec : recorders_) rec->own_times.emplace_back(op, t.latency, repeat_ / rec->repeat);
  }
  // [node * tensors + tensor]: the child of a loop-less tile that reads the tile's load of the
  // tensor first, when the earlier children need not wait for it (0: they must); see
  // note_later_readers(). Empty on archs not timed by instructions.
  std::vector<size_t> later_reader_;
  // Loads of a loop-less tile that only a later child reads (visit() hands them to children()).
  std::vector<std::pair<size_t, double>> deferred_loads_;  // (the child, engine time)
  int deferred_node_ = -1;
  // The dims of the temporal loops around the current position that are past their first step
  // (bit d: dim d). A written buffer not indexed by one of them takes back its partial sums.
  uint64_t past_first_ = 0;
  // [node * tensors + tensor]: the dims that index a buffer's slice (its accesses below the node).
  static constexpr uint64_t kNotKnown = ~uint64_t{0};
  std::vector<uint64_t> indexed_by_;
  uint64_t indexed_by(int node, int tensor);
  InstructionTimes instructions_;
  bool computed_ = false;                 // a leaf has run: loads from now on overlap compute
  double first_loads_ = 0, last_store_ = 0;
  // Whether the fill being counted (first_loads_) is part of the tree's cycles as a whole: at the
  // root and in the root's phases, not in phases deeper down (see phase()).
  bool fill_in_cycles_ = true;
  CyclesBar give_up_;
  // Called as the first leaf of the tree or of a root phase runs: gives up (gave_up_) if the
  // tree's cycles are now certainly above give_up_.bar (CyclesBar). Then every visit returns at
  // once and the walks around them return as soon as their current part does (an exception
  // unwinding the deep walk cost more than the walk it saved).
  void check_fill();
  // Called after each of the root's phases but the last (`done`: their cycles so far): gives up
  // if those and the later phases' floors (model::floors_of_later_children) are above the bar.
  void check_phases_done(size_t phase, double done);
  std::vector<double> later_floors_;  // made at the root, where it runs in phases under a bar
  bool gave_up_ = false;
  double at_least_ = 0;
  double last_store_port_ = 0;            // the last store's time on the DRAM port (in Time::port too)
  double after_last_load_ = 0;            // instruction cycles since the last program load
  // Phases looked up or kept (null: every phase walked). While a phase is being recorded, the
  // streams from `recording_from_` on are its own; touching an older one entangles it.
  PhaseCache* phase_cache_ = nullptr;
  static constexpr size_t kNotRecording = ~size_t{0};
  size_t recording_from_ = kNotRecording;
  bool entangled_ = false, used_cache_ = false;

  // Replayed steps (model/walk_replay.cpp, walk_replay.h).
  bool replay_ = true;
  // The last walked representative (partial last) step at each place steps are replayed, made on
  // first use: 2 * place(node, loop index) + last indexes recording_slot_ (-1: none yet).
  std::vector<int> recording_slot_;
  ThreadStore<StepRecording<Held>>& recordings_ = walk_kept<ThreadStore<StepRecording<Held>>>();
  StepRecording<Held>& recording(int node, size_t li, bool last);
  std::vector<StepRecording<Held>*> recorders_;               // steps being recorded, outermost first
  // Events a step's recording counts: after_last_load_ set to 0, last_store_ set, the phase's
  // recording entangled.
  int64_t load_resets_ = 0, stores_ = 0, entangles_ = 0;
  // Made as the walker is, in the thread's storage. walk_holding() may build a second walker
  // while the first is alive, but for the same tree and replay: the table comes out the same.
  ReplayPlaces& replay_places_ = walk_kept<ReplayPlaces>();
  Tally& tally_scratch_ = walk_kept<Tally>();
  std::vector<char>& replay_uniform_ = walk_kept<std::vector<char>>();
  OpBoxes& replay_delta_ = walk_kept<OpBoxes>();                                        // scratch of replay()
  std::vector<std::vector<int64_t>>& replay_shifts_ = walk_kept<std::vector<std::vector<int64_t>>>();  // scratch of replay(): per change
  // A representative step, or with `last` a partial last one: loops(node, li, ...), replayed when
  // an earlier walk of it started alike.
  Time step(int node, size_t li, const OpBoxes& boxes, int64_t weight, bool last = false);
  bool replayable() const;
  bool replay(const StepRecording<Held>& rec, const OpBoxes& boxes, int64_t weight, Time& out);
  void start_recording(StepRecording<Held>& rec, const OpBoxes& boxes, int64_t weight);
  void finish_recording(StepRecording<Held>& rec, const Time& t);
  // Hooks: a stream about to change, an occupancy key moved, a cover grown.
  void note_change(int id);
  void note_occupancy(uint64_t key, int level, int tensor, int64_t before, int64_t after);

  WalkResult empty_result() const;
  // The root's children can be phases whose costs do not depend on one another: the root is a
  // Seq without loops (every child sees the whole problem once) and keeps nothing on chip.
  bool root_phases_separable() const;
  // A child of the root walked as a phase (phase()), or its analysis from the cache.
  Time cached_phase(int child, const OpBoxes& boxes, int64_t weight);
  void add_phase(const WalkResult& r);
  bool on_chip_empty() const;

  // How the merged instances' slices of a tensor lie next to the representative's: per spatial
  // loop beyond the source buffer's own, the tensor dimension it moves and by how much.
  // Translation-invariant, so computed once per buffer and owner.
  bool spreads_for(int node, int tensor, const OpBoxes& boxes, const Held& now, size_t prefix,
                   Spreads& spreads);

  // The pipeline is empty at the start and drains at the end: the first loads and the last
  // store overlap nothing.
  double cycles_of(const Time& t) const;

  bool inside(int node, int root) const {
    return node >= root && node < subtree_end_[static_cast<size_t>(root)];
  }

  // Seq: the next sibling owns the memory; what it does not use of the others' data is dropped.
  void drop_for_sibling(int seq_node, int next_child);

  void problem(const SourceLoc& loc, const std::string& msg);

  Held slice_of(int node, int tensor, const OpBoxes& boxes) const {
    Held h;
    take_slice(h, accesses_.of(node, tensor), boxes);
    return h;
  }

  void add_occupancy(int level, int tensor, int inst, int64_t delta);

  // model::charge_source on this walk's result.
  void charge_source(int tensor, int source, int level, bool write, int64_t n);
  StagingLevels staging_;

  int stream_for(int node, int tensor);

  // An activation's transfers: a read buffer's load, a written one's store and the partial sums
  // it takes back (a load), with their shares of the chip's one DRAM port (loads and stores
  // share it).
  struct Moved {
    double load = 0, store = 0, load_port = 0, store_port = 0, colliding_wait = 0;
  };

  // One activation of an owner: the buffer takes its new slice.
  Moved activate(int node, int tensor, const OpBoxes& boxes, int64_t weight);

  void add_cover(int id, const Slice& part);

  // Streams touched since `mark` stand for `extra` more identical iterations: move them on, and
  // count what those iterations wrote as written.
  void translate_since(size_t mark, size_t cover_mark, const OpBoxes& delta, int64_t extra);

  // How tensor t's slice below `node` moves when every op's box moves by k·delta: an affine
  // index of a translated box is the index translated by Σ coef·k·delta. True (and `shift` per
  // tensor dimension) when every access of t below `node` moves alike.
  bool uniform_shift(int node, int tensor, const OpBoxes& delta, int64_t k, std::vector<int64_t>& shift) const;
  // Whether the accesses to `tensor` below `node` move apart from one instance of a spatial loop
  // around to the next (A[m,k] and A[n,k] under a loop over m): the instances' slices then differ
  // in shape, and the walk's instance does not stand for the others.
  // Returns the spatial_stack_ index of the loop that does, or -1.
  int moves_apart(int node, int tensor) const;
  // The problem of such a loop (sl) and the buffer of `tensor` at `node`, located at the loop.
  void read_apart_problem(int node, int tensor, const SpatialLevel& sl);
  // Whether a step from `from` to `to` moves the accesses of some tensor below `node` apart
  // (A[m,k] and A[n,k] under a loop over n): the slice's overlap with what the buffer holds then
  // changes from step to step, so no step stands for the others (each is walked).
  bool moves_accesses_apart(int node, const OpBoxes& from, const OpBoxes& to);
  std::vector<int64_t>& apart_shift_ = walk_kept<std::vector<int64_t>, 3>();  // scratch of moves_apart (activate: no allocation)

  // A write stream's cover over the `extra` iterations: what the representative wrote, repeated
  // at the step its slice moves by. Leaves the snapshot moved on by `extra` steps.
  template <class Shift>
  void extend_cover(Stream<Held>& s, int id, const Slice& wrote, const OpBoxes& delta, int64_t extra, Shift shift_boxes);
  std::vector<int64_t>& cover_step_ = walk_kept<std::vector<int64_t>, 2>();  // scratch of extend_cover

  // Refills of partial sums: every write entry but the first of each element is one. Per
  // instance at the buffer; instances merged at the source. The streams from `from` on that
  // are not finished yet.
  void finish_write_streams(size_t from = 0);

  Time visit_leaf(int node, const OpBoxes& boxes, int64_t weight);

  Time visit(int node, const OpBoxes& boxes, int64_t weight);  // visit_node(), timed per op
  Time visit_node(int node, const OpBoxes& boxes, int64_t weight);

  Time children(int node, const OpBoxes& boxes, int64_t weight);
  // An op's own tiles in closed form (walk_nest.cpp): false where they must be walked.
  bool own_nest(int node, const OpBoxes& boxes, int64_t weight, Time& out);
  std::vector<signed char> nest_shape_;  // per node: -1 not yet known, else whether nest_shape()
  bool nest_shape(int node);
  bool plan_nest(int node, const OpBoxes& boxes, NestPlan& plan) const;
  bool plan_spatial(int node, size_t li, int64_t e, const Cut& c, NestPlan& plan) const;
  NestOperand nest_operand(int reg, int t, const NestPlan& plan, int64_t weight);
  void move_on(const NestOperand& h, const NestPlan& plan, int64_t step_weight);
  size_t count_later_steps(int node, int reg, int leaf, const NestPlan& plan, int64_t weight, NestOperand* first_run);
  bool leaf_nest(int node, const OpBoxes& boxes, int64_t weight, Time& out);
  template <class Calls>
  bool splits_would_hold(int node, const Calls& calls, size_t count) const;
  // The leaf's work and accesses for `points` points at `weight`, as visit_leaf counts them.
  void add_leaf(int leaf, int64_t points, int64_t weight);
  std::vector<std::pair<int, int64_t>>& homes_ = walk_kept<std::vector<std::pair<int, int64_t>>>();  // children(): intermediates at home, (tensor, elements)
  void note_later_readers();
  size_t later_reader(int node, int t) const {
    return later_reader_.empty() ? 0 : later_reader_[static_cast<size_t>(node) * w_.tensors.size() + static_cast<size_t>(t)];
  }

  // One child as a pipeline of its own: its first loads and its last store overlap nothing.
  Time phase(int child, const OpBoxes& boxes, int64_t weight);

  // The boxes of step i of a loop over `dim` at `node` cutting `chunk`s (leased from the pool).
  BoxPool::Lease step_boxes(int node, int dim, int64_t chunk, int64_t i, const OpBoxes& boxes) {
    BoxPool::Lease b(pool_, boxes);
    index_.restrict(node, dim, i * chunk, i * chunk + chunk, *b);
    return b;
  }

  // Iterations of loop `li` and everything inside it. Returns the latency of one pass.
  Time loops(int node, size_t li, const OpBoxes& boxes, int64_t weight);

  // Instances are hardware: a spatial loop splits its extent into the same chunk every time it
  // runs, and only the number of instances may differ between steps (a partial tile above it).
  // One whose instances are not all alike may have only spatial loops after it, and nothing
  // below stepping.
  bool spatial_split_ok(int node, size_t li, int64_t extent, const Cut& steps);
  bool nothing_steps_below(int node, size_t li) const;
  // The spatial loop `li` at `node`'s split, with its dim's uses filled in (SpatialSplit).
  SpatialSplit& split_with_uses(int node, size_t li);
  // Spatial loops whose instances are not all alike with loops after or below them, being walked:
  // per loop its place in spatial_stack_, how the ops below index each tensor by its dim, and the
  // run being walked. A later run's source sends nothing for a tensor its dim does not index
  // (model::runs_may_step_below).
  struct SteppingRun {
    size_t level = 0;
    const std::vector<DimUse>* uses = nullptr;
    int64_t run = 0;
  };
  std::vector<SteppingRun> stepping_runs_;
  bool sent_by_an_earlier_run(int tensor, size_t prefix) const;

  template <class At>
  Time spatial(int node, size_t li, int64_t weight, int64_t trips, bool uneven, At at);
  // The runs of alike instances of a spatial loop in one step: (first instance, how many).
  static constexpr int64_t kMaxPasses = 16;
  // The context key of pass (run) `pass` of the spatial loop `li` at `node`: a run's instances
  // keep buffers of their own.
  static int64_t instance_key(int node, size_t li, int64_t pass) {
    return (static_cast<int64_t>(node) * 4096 + static_cast<int64_t>(li)) * kMaxPasses + pass;
  }
  struct Runs {
    std::pair<int64_t, int64_t> run[kMaxPasses];
    size_t size = 0;
    void push_back(std::pair<int64_t, int64_t> r) { run[size++] = r; }
  };
  Runs instance_runs(int node, size_t li, int64_t trips, bool uneven) const;
  // `count` alike instances, the first at `first`, the next (if count > 1) at `next`.
  // `several_from`/`several_to`: a run of one instance among several, the loop's first two
  // instances (SpatialLevel::several_move).
  Time instances(int node, size_t li, int64_t weight, int64_t count, int64_t ctx_key, const OpBoxes& first,
                 const OpBoxes* next, const OpBoxes* several_from = nullptr, const OpBoxes* several_to = nullptr);
};

}  // namespace dfx::model
