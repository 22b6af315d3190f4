#pragma once
// The design space the mapper searches, as one template of tile trees (docs/mapper.md):
// operators are cut into fused groups (in topological order); each group gets a DRAM tile with
// its outer loops (one of them spread over the cores), a buffer tile whose primitive the search
// picks, and one tile per operator with its spatial loops on the PE array (or vector lanes) and
// temporal loops over the rest. Intermediates inside a group stay in the buffer; between groups
// they go through DRAM.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <boost/container/small_vector.hpp>
#include <boost/iterator/indirect_iterator.hpp>

#include "arch/arch.h"
#include "mapper/factors.h"
#include "mapper/pe_axes.h"
#include "mapper/rng.h"
#include "mapper/spatial_room.h"
#include "mapper/template_levels.h"
#include "model/dataflow.h"
#include "model/placement.h"
#include "model/report.h"
#include "model/tile_index.h"
#include "model/workload.h"

namespace dfx::mapper {

// One point of the space (the genome).
struct Choice {
  std::vector<int> group_of;                  // per op: its group; groups are runs of ops
  std::vector<model::Prim> prim;              // per group
  std::vector<Factors> outer;                 // per group, per outer dim: temporal factor
  std::vector<int> core_dim;                  // per group: its core split (Space::core_splits), -1 none
  std::vector<Factors> spatial;               // per op, per op dim: spatial factor (1 = none)
  std::vector<int> order;                     // per op: rotation of its non-reduction loops
  // Per op, per op dim: the trips of a loop at DRAM over that dim of the op alone, between its
  // group's tile and its own (1, or empty for the op: none; Space::private_extent says where).
  std::vector<Factors> own_trips;
  // Per op: where its output waits for the ops of later groups that read it, 0 DRAM or k, the
  // template's k-th shared on-chip level (TemplateLevels::handover, cloud's L2); empty when every
  // op's is DRAM (the form Choice keeps, so points compare alike).
  std::vector<int> home;
  // Restrictions a named baseline puts on its tiling (empty: none): per group, per outer dim,
  // whether it may be tiled; per group, whether a loop may be spread over the cores.
  std::vector<std::vector<char>> may_tile;
  std::vector<char> may_spread;
  bool operator==(const Choice& o) const;
  bool operator<(const Choice& o) const;  // any strict order, for sets of choices
  uint64_t hash() const;                  // equal choices, equal hashes
};

// A choice's groups, each a run of ops, as the Space's lists of those runs (Space::group_members:
// asked for ~20 times a candidate, where copies of the lists were a tenth of its allocations).
class Groups {
 public:
  void add(const std::vector<int>& run) { runs_.push_back(&run); }
  size_t size() const { return runs_.size(); }
  bool empty() const { return runs_.empty(); }
  const std::vector<int>& operator[](size_t g) const { return *runs_[g]; }
  const std::vector<int>& front() const { return *runs_.front(); }
  auto begin() const { return boost::make_indirect_iterator(runs_.begin()); }
  auto end() const { return boost::make_indirect_iterator(runs_.end()); }

 private:
  boost::container::small_vector<const std::vector<int>*, 8> runs_;
};

// A named dataflow family: fixed groups, primitives and tiling restrictions; its tiling is searched.
struct Baseline {
  std::string name;
  Choice structure;  // group_of, prim, may_tile, may_spread
};

// The dims along which ops [first_op, end_op) read a tensor from outside them in two ways (a
// Gram matrix's A[m,k] and A[n,k]: m and n), as a mask: spreading one would give instances
// slices of different shapes.
uint64_t dims_read_apart(const model::Workload& w, size_t first_op, size_t end_op);

class Space {
 public:
  // An op's loop orders permute its innermost kOrderedDims output dims; any further ones stay
  // outermost in the workload's order (13! orders would not fit an int, and --polish and
  // --exhaustive try every order).
  static constexpr size_t kOrderedDims = 7;
  // Of an op's `dims` output dims, how many lead in the workload's order (none up to kOrderedDims).
  static size_t unordered_head(size_t dims);
  // Contract: throws InputError when the arch does not fit the template (no buffer level, no
  // unit for an op).
  // `divisors_only`: every loop's factor divides what it loops over — no partial last steps, no
  // padded spatial loops, no uneven core shares — the points the lowering can express
  // (`dfx explore --emit`).
  Space(const arch::Arch& a, const model::Workload& w,
        std::vector<model::Prim> prims = {model::Prim::Seq, model::Prim::Shar, model::Prim::Pipe}, bool divisors_only = false);

  // Fixes the fusion: every point then has these groups (per op, runs in op order), and only the
  // baselines grouped alike remain.
  void fix_groups(std::vector<int> group_of) { fixed_groups_ = std::move(group_of); }
  // The same by op names (`dfx explore --groups`): every op once, each group a run of ops in the
  // workload's order. Contract: throws InputError (at "--groups") naming what is wrong.
  void fix_groups(const std::vector<std::vector<std::string>>& groups);

  // Fixes parts of every point by hand (`dfx explore --fix`): TARGET:KEY=VALUE, with KEY prim,
  // loops or cores for a group of fix_groups (ops joined by '+'), sp or order for one op; e.g.
  // "qk+max+sub+exp+sum+div:prim=Pipe", "av:loops=m:16", "qk:cores=b:8,m:4", "qk:sp=m:16,l:16",
  // "av:order=n,m,b" (its loops over output dims, outermost first, in any order), "qk:home=L2"
  // (where an op's output waits for later groups: DRAM or a level of TemplateLevels::handover).
  // Contract: throws InputError (at "--fix") naming the spec and what is wrong with it.
  void pin(const std::vector<std::string>& specs);
  bool pinned() const;                         // anything fixed by pin()
  bool honours_pins(const Choice& c) const;

  Choice random(Rng& rng) const;
  // One gene changed: a grouping boundary or a primitive (when `structure`), else a factor, the
  // loop spread over cores, a spatial choice or a loop order.
  Choice mutate(const Choice& c, Rng& rng, bool structure = true) const;
  static constexpr int kMutationTries = 8;  // draws before mutate() gives up and returns `c` itself
  // The climb's aimed step (mapper/space_stages.cpp): in one fused group, every op whose compute
  // takes (within 1%) as long as the slowest one's spreads wider on its unit, or where no factor
  // can grow, spreads over other dims that compute faster; `c` itself when no group fuses ops or
  // none of them can.
  Choice widen_slowest(const Choice& c, Rng& rng) const;
  // The other aimed step, from `c`'s analysis `r`: when the op whose own tiles take longest in a
  // fused group (model::OpReport::own_cycles) spends a share of that moving data, its spatial
  // choice is drawn again (a neighbour half the time) and half the time its loop order: how a
  // stage spreads decides what its instances share. `c` itself otherwise.
  Choice reshape_slowest(const Choice& c, const model::Report& r, Rng& rng) const;
  // A grouping boundary, a primitive or where an output waits between groups changed, the tiling
  // drawn anew.
  Choice restructure(const Choice& c, Rng& rng) const;
  // A child taking each group's genes (primitive, outer tiling, its ops' spatial choices and
  // orders) from one parent or the other; parents grouped differently give a copy of `x`.
  Choice crossover(const Choice& x, const Choice& y, Rng& rng) const;
  // The named baselines of REFERENCE.md §6 that apply to this workload (Layerwise always;
  // Uni-pipe, FLAT-HGran, FLAT-RGran for attention; Chimera for operator chains; Fused-Layer and
  // ISOS for convolution chains; Fused (Pipe) always).
  std::vector<Baseline> baselines() const;
  Choice retile(const Choice& structure, Rng& rng) const;  // same structure, new tiling
  // The same point with one group's tiling (its core split, outer factors, its ops' spatial
  // choices and orders) drawn anew; the other groups keep theirs.
  Choice retile_group(const Choice& c, Rng& rng) const;
  // True if `c` has the groups and primitives of `structure` and keeps its tiling restrictions.
  bool follows(const Choice& structure, const Choice& c) const;

  // The point that fuses every op into one group with primitive `prim` and the given tiles, for
  // a seed from outside the search (the chain solver's, mapper/chain_solver.h): `core_dim` (a
  // workload dim, -1: none) spread over `cores` cores (one of the template's splits); per workload dim the group's tile on one
  // core; per op and op dim the trips of its own loop at DRAM (empty: none). Each op spreads the
  // way its compute in the tile is fastest, its loops in the workload's order. nullopt where the
  // template has no such point: fusion or the primitive fixed otherwise, a tile over a dim the
  // group may not loop over, tiles no trip count gives (a partial last step is fine: 25 rows in
  // tiles of 13), own trips that do not divide (the template's own loops step evenly), own
  // loops where it keeps none.
  std::optional<Choice> fused_at(model::Prim prim, int core_dim, int64_t cores, const std::vector<int64_t>& tile,
                                 const std::vector<std::vector<int64_t>>& own_trips) const;
  // The tree of a choice, built directly (not checked: run model::check_dataflow on it).
  model::Dataflow build(const Choice& c, const std::string& name) const;
  // The same into `f`, whose nodes' storage it reuses (a search builds trees by the thousand on
  // each thread: fresh nodes cost more in allocations than the building).
  void build_into(const Choice& c, const std::string& name, model::Dataflow& f) const;
  std::string flow_yaml(const Choice& c, const std::string& name) const;  // the same tree as text
  // model::cycles_floor(build(c)), without building the tree: a search rules a candidate out
  // before it builds it.
  double cycles_floor(const Choice& c) const;
  // The tiling decisions of a fixed structure, one at a time (MCTS walks them): per group the
  // loop spread over the cores, then each outer factor; then per op its spatial choice, then its
  // loop order. `tiling_start` assigns none; `tiling_options` lists `partial` with step `step`
  // set to each value it may take given the steps before it.
  size_t tiling_steps(const Choice& structure) const;
  Choice tiling_start(const Choice& structure) const;
  std::vector<Choice> tiling_options(const Choice& partial, size_t step) const;
  // One of those options drawn, without listing them: each value the step may take equally
  // likely, then the parts fixed by hand kept (values they make alike weigh more). A random
  // completion (MCTS's roll-outs) draws every step this way.
  Choice draw_tiling_option(const Choice& partial, size_t step, Rng& rng) const;
  // Every point of the space in a fixed order, until `visit` returns false (then returns false).
  bool enumerate(const std::function<bool(const Choice&)>& visit) const;
  int groups(const Choice& c) const;

 private:
  const arch::Arch& a_;
  const model::Workload& w_;
  std::vector<model::Prim> prims_;  // what fused groups may use
  std::vector<int> fixed_groups_;    // per op, when the user fixed the fusion (empty: searched)
  TemplateLevels levels_;  // where the template's tiles go
  std::vector<int> staging_tile_, registers_tile_;  // {levels_.matrix_staging}, {levels_.registers}: tiles' level lists
  int64_t cores_ = 1;
  // One core's matrix unit and vector unit, for an op that has them to itself (null: none).
  std::optional<PeAxes> matrix_axes_, vector_axes_;
  // Per unit ([matrix, vector]), the axes shared by k ops: [k - 1] (op_axes hands them out, a few
  // times a candidate).
  std::vector<PeAxes> shared_axes_[2];
  const PeAxes& unit_axes(size_t op) const;

  // What pin() fixed: per fixed group its primitive (-1: searched), its core split (kSearched,
  // -1 for none, or an index into core_splits) and its outer factors (0: searched); per op its
  // spatial factors (empty: searched) and its loop order (Choice::order, kSearched: searched).
  static constexpr int kSearched = -2;
  struct Pins {
    std::vector<int> prim, cores, order, home;
    std::vector<std::vector<int64_t>> loops;
    std::vector<Factors> spatial;
  };
  Pins pins_;
  std::vector<int> fixed_members(int g) const;  // the ops of group g of fix_groups
  int fixed_group_named(const std::string& spec, const std::string& target) const;
  void pin_group_spec(const std::string& spec, int g, const std::string& key, const std::string& value);
  void pin_spatial_spec(const std::string& spec, const std::string& target, const std::string& value);
  void pin_order_spec(const std::string& spec, const std::string& target, const std::string& value);
  void pin_home_spec(const std::string& spec, const std::string& target, const std::string& value);
  void pin_homes(Choice& c) const;  // the homes fixed by hand (then Choice's form)
  std::string prim_list() const;
  void pin_structure(Choice& c) const;      // the primitives
  // A group of one op has no primitive (Seq, Shar and Pipe of one child are the same tree): it
  // is always Seq, so such trees are one point of the space and one structure.
  void lone_ops_seq(Choice& c) const;
  void pin_outer(Choice& c, size_t g) const;  // group g's core split and outer factors
  void pin_ops(Choice& c) const;  // the ops' spatial loops and loop orders
  void pin_all(Choice& c) const;
  // One tiling step (tiling_options) of a partial choice: the values it may take, set in place.
  struct TilingDecision {
    enum class Kind { CoreSplit, Outer, OwnTrips, Spatial, Order } kind = Kind::Order;
    size_t at = 0, i = 0;                       // the group (CoreSplit, Outer) or the op; the dim's index
    size_t op_dims = 0;                         // OwnTrips: the op's dims
    std::vector<int64_t> values;                // the core split (-1: none), trips or loop order
    std::vector<Factors> spatial;               // Spatial: the op's spatial choices
    size_t size() const { return kind == Kind::Spatial ? spatial.size() : values.size(); }
    void set(Choice& c, size_t k) const;  // value k
  };
  TilingDecision tiling_decision(const Choice& partial, size_t step) const;
  // An op's non-reduction dims (positions in op.dims) in the order `order` puts its temporal
  // loops, outermost first; its reduction loops follow them. Orders are the permutations of those
  // dims in lexicographic rank, 0 (the workload's order) to loop_orders(op) - 1.
  std::vector<size_t> ordered_dims(size_t op, int order) const;
  // The dims (positions in op.dims) of an op's tile loops, outermost first: ordered_dims, then
  // its reductions (innermost: the output stays put). Tabulated per op and order (a tree is
  // built for most candidates) up to kTabulatedOrders orders; else made into `made`.
  const std::vector<size_t>& nest_order(size_t op, int order, std::vector<size_t>& made) const;
  std::vector<size_t> nest_order_of(size_t op, int order) const;
  void tabulate_nest_orders();
  static constexpr int kTabulatedOrders = 720;
  std::vector<std::vector<std::vector<size_t>>> nest_orders_;  // [op][order]
  int loop_orders(size_t op) const;  // min(non-reduction dims, kOrderedDims)!, 1 when there are none
  // Random draws take a rotation of the workload's order; tiling_options lists every order.
  int pick_order(size_t op, Rng& rng) const;

  Choice mutate_gene(const Choice& c, int gene, Rng& rng) const;
  // mutate_gene into `c`, a copy of `in` (whose storage a caller may reuse).
  void change_gene(Choice& c, const Choice& in, int gene, Rng& rng) const;
  // A gene drawn from [first, last], and the home gene (7) too where the template has a shared
  // level to hand outputs over in (archs without one draw as they always have).
  int draw_gene(int first, int last, bool homes, Rng& rng) const;
  // Ops whose output an op of a later group reads (Choice::home applies to them).
  std::vector<size_t> handover_ops(const Choice& c) const;
  // Each of them waits in DRAM or, half the time, in a shared level drawn at random.
  void pick_homes(Choice& c, Rng& rng) const;
  // Homes only for ops that hand over (after a regrouping), pinned ones as fixed, in Choice's form.
  void fit_homes(Choice& c) const;
  int64_t spread_of(int dim, int64_t least) const;
  // A way to spread a group over the cores: one of its outer dims, or two (b over 8 cores and m
  // over 4 of 32, each core keeping its own b's K and V), by index into the group's outer dims.
  struct CoreSplit {
    size_t dim[2] = {0, 0};
    int64_t cores[2] = {1, 1};  // cores along each (the second 1 for a single dim)
    int64_t on(size_t i) const { return dim[0] == i ? cores[0] : dim[1] == i ? cores[1] : 1; }
  };
  std::vector<std::vector<std::vector<CoreSplit>>> run_splits_;  // [first op][ops - 1], like run_dims_
  std::vector<CoreSplit> splits_of(const std::vector<int>& dims, size_t first_op, size_t end_op) const;
  // Per op, the dims along which it reads one tensor in two ways (a Gram matrix's A[m,k] and
  // A[n,k]: m and n): spread over instances that hold buffers of their own below (the cores,
  // a PE array's registers) they would take its slices apart, which the analysis refuses
  // (docs/semantics.md), so the template offers no such spread.
  std::vector<uint64_t> reads_apart_;
  void note_reads_apart();
  // An op's extents as its spatial choices see them: 1 for the dims in reads_apart_ where its
  // PEs hold registers.
  OpExtents spreadable(OpExtents extents, size_t op) const;
  std::vector<CoreSplit> splits_above(const std::vector<int>& dims, int64_t least) const;
  void add_uneven_splits(const std::vector<int>& dims, size_t first_op, size_t end_op, std::vector<CoreSplit>& out) const;
  // Whether an op of [first_op, end_op) indexes a tensor by `dim` other than plainly (a window).
  bool windowed(int dim, size_t first_op, size_t end_op) const;
  const std::vector<CoreSplit>& core_splits(const std::vector<int>& group_ops) const;
  // How many cores group g (its ops: group_ops) of c spreads outer dim i over (1: none), and
  // what remains of that dim on one core.
  int64_t core_share(const Choice& c, const std::vector<int>& group_ops, size_t g, size_t i) const;
  int64_t core_extent(const Choice& c, const std::vector<int>& group_ops, size_t g, size_t i) const;
  // The splits group g may take: those whose dims it may tile.
  // Splits by their index in core_splits(), inline (listed for every tiling drawn).
  using SplitList = boost::container::small_vector<int, 32>;
  SplitList allowed_splits(const Choice& c, const std::vector<int>& group_ops, size_t g) const;
  // One of `splits` (of the group of group_ops), a single dim as likely as a pair (pairs are many more).
  int pick_split(const std::vector<int>& group_ops, const SplitList& splits, Rng& rng) const;
  std::vector<std::vector<std::vector<int>>> run_dims_;  // [first op][ops - 1]: outer_dims of that run
  std::vector<std::vector<std::vector<int>>> run_ops_;   // [first op][ops - 1]: the run's ops
  // Restricting a group tile's boxes, one index "node" per run of ops (run_node).
  std::optional<model::TileIndex> run_index_;
  int run_node(const std::vector<int>& group_ops) const {
    return group_ops.front() * static_cast<int>(w_.ops.size()) + static_cast<int>(group_ops.size()) - 1;
  }
  // Names this Space in group_tile()'s per-thread memo (whose entries outlive no Space's use:
  // an id is never reused).
  uint64_t memo_id_ = 0;
  std::vector<char> computed_in_full_;  // per op: model::computed_in_full
  // group_tile's work, into `boxes` (a memo entry's storage, reused).
  void compute_group_tile(const Choice& c, int g, bool last, model::OpBoxes& boxes) const;
  // The dims a group (a run of ops) may loop over outside its ops; tabulated for every run.
  const std::vector<int>& outer_dims(const std::vector<int>& group_ops) const;
  std::vector<int> dims_outside(const std::vector<int>& ops) const;
  bool steps_through(int dim, int o, const std::set<int>& members) const;
  bool may_tile(const Choice& c, size_t g, size_t i) const;
  Choice grouped(const std::vector<int>& group_of, model::Prim prim) const;
  void restrict_group(Choice& c, size_t g, const std::function<bool(int)>& keep, bool spread) const;
  void attention_baselines(size_t second_gemm, std::vector<Baseline>& out) const;
  Groups group_members(const Choice& c) const;
  const std::vector<int>& members_of(const Choice& c, int g) const;  // group_members(c)[g] alone
  void fill_tiling(Choice& c, Rng& rng) const;
  void fill_group_tiling(Choice& c, size_t g, const std::vector<int>& members, Rng& rng) const;
  // Where an op of group `members` may spread: its unit's axes on one core, or its part of
  // them in a Pipe (or Para) group, where the ops on one unit share it.
  const PeAxes& op_axes(const Choice& c, const std::vector<int>& members, int op) const;
  // Every spatial choice that fits: a list kept per thread and shared, not copied (a climb's
  // aimed steps ask for the same few lists again and again).
  using SpatialOptions = std::vector<Factors>;
  static std::shared_ptr<const SpatialOptions> spatial_options(const SpatialRoom& room, const PeAxes& axes);
  // Everything the options depend on, as the key they are kept by (and their times, timed_spreads).
  static std::vector<int64_t> options_key(const SpatialRoom& room, const PeAxes& axes);
  void pick_spatial(Choice& c, size_t op, const SpatialRoom& room, const PeAxes& axes, Rng& rng) const;
  // Shrinks an op's spatial factors (the widest first, each to a smaller value it may take)
  // until they fit `axes`.
  static void fit_spatial(Factors& sp, const SpatialRoom& room, const PeAxes& axes);
  void nudge_spatial(Choice& c, size_t op, const SpatialRoom& room, const PeAxes& axes, Rng& rng) const;
  // One of the op's spatial factors to a larger value it may take (or a dim spread anew, when
  // the unit has a way left); nothing when none may grow.
  void widen_spatial(Choice& c, size_t op, const SpatialRoom& room, const PeAxes& axes, Rng& rng) const;
  // The cycles the op's compute takes in one tile of its group with spatial factors `sp`.
  double compute_estimate(const model::OpBoxes& tile, size_t op, const Factors& sp) const;
  double compute_estimate(const OpExtents& extent, size_t op, const Factors& sp) const;
  // Every spatial choice of an op (spatial_options) with its compute estimate in `tile`, in the
  // options' order.
  struct TimedSpreads {
    std::shared_ptr<const SpatialOptions> options;
    std::shared_ptr<const std::vector<double>> times;  // per option (kept per thread, as the options)
    size_t size() const { return times->size(); }
    double time(size_t i) const { return (*times)[i]; }
    const Factors& spread(size_t i) const { return (*options)[i]; }
  };
  TimedSpreads timed_spreads(const model::OpBoxes& tile, size_t op, const SpatialRoom& room, const PeAxes& axes) const;
  model::OpBoxes group_tile(const Choice& c, int g, bool last = false) const;
  // group_tile() without a copy: the thread's kept entry, valid until this thread's next
  // group_tile or group_tile_view (which may reuse it).
  const model::OpBoxes& group_tile_view(const Choice& c, int g, bool last = false) const;
  // Op `op`'s tile under its own loops at DRAM (Choice::own_trips), in its group's tile `group`.
  model::OpBoxes op_tile(model::OpBoxes group, const Choice& c, size_t op) const;
  // spatial_room(op_tile(group_first, c, op), op), without copying the boxes.
  SpatialRoom op_room(const model::OpBoxes& group_first, const Choice& c, size_t op) const;
  // Where op `op` of group g may loop over its dim i at DRAM on its own: its extent there, when
  // the arch keeps a fused group in one buffer, the group fuses several ops in turn (Seq, Shar)
  // and its tiling is not restricted (a named baseline's), and the group's last tile leaves the
  // dim whole; else 0.
  int64_t private_extent(const Choice& c, const model::OpBoxes& first, const model::OpBoxes& last, size_t op, size_t i) const;
  bool own_loops_ok_ = false;  // the template's fused groups keep everything in one buffer level
  bool divisors_only_ = false;  // see the constructor
  // The trip counts an outer loop over `extent` may take: all of them, or its divisors only.
  std::vector<int64_t> outer_trips(int64_t extent) const { return divisors_only_ ? divisors(extent) : trip_counts(extent); }
  // Drops own loops the group's tiles (`first`, `last`) no longer allow (after its outer tiling
  // or its primitive changed).
  void fit_own_trips(Choice& c, const model::OpBoxes& first, const model::OpBoxes& last, const std::vector<int>& members) const;
  void pick_own_trips(Choice& c, const model::OpBoxes& first, const model::OpBoxes& last, const std::vector<int>& members,
                      Rng& rng) const;
  // One of op `op`'s own loops to another trip count (a neighbour half the time); false when it
  // has none it may take (private_extent) or the draw changed nothing.
  bool step_own_trips(Choice& c, const model::OpBoxes& first, const model::OpBoxes& last, size_t op,
                      Rng& rng) const;
  static bool has_own_loops(const Choice& c, const std::vector<int>& members);
  // An op's own trips, empty when none is above 1 (the form Choice keeps, so points compare alike).
  static void drop_if_none(Factors& trips);
  size_t op_steps(size_t o) const;  // op o's tiling steps (tiling_steps)
  // The trip counts op o's own loop over its dim i may take in `partial` (1 alone where none).
  std::vector<int64_t> own_trips_options(const Choice& partial, size_t o, size_t i) const;
  static void set_own_trips(Choice& c, size_t o, size_t i, int64_t trips, size_t dims);
  OpExtents op_extents(const model::OpBoxes& group_tile, size_t op) const;
  // op_extents(op_tile(group_tile, c, op), op), without copying the boxes.
  OpExtents op_tile_extents(const model::OpBoxes& group_tile, const Choice& c, size_t op) const;
  // What an op's spatial loops may take in its group's tiles (first and last).
  SpatialRoom spatial_room(const model::OpBoxes& first, size_t op) const;
  SpatialRoom spatial_room(const Choice& c, size_t op) const;
};

}  // namespace dfx::mapper
