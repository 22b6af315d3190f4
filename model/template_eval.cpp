// template_walk(): the walk of a template tree in closed form. Each function below mirrors the
// walk's step named in its comment (model/walk.cpp, walk_streams.cpp, walk_nest.cpp), on buffers
// that each hold one box: the same counts in the same order, and every double formed by the same
// operations in the same order as the walk without replay (which the walk with replay equals to
// the bit). What it does not model yet it refuses (nullopt), and the tree is walked.
#include "model/template_eval.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "model/axis_cover.h"
#include "model/held.h"
#include "model/transfer_time.h"
#include "model/walk_support.h"
#include "model/walk_time.h"
#include "model/walker.h"

namespace dfx::model {
namespace {

// What a written buffer covered: a set per axis (the walk's cover), as runs where it can.
struct Cover {
  int rank = 0;  // 0: nothing yet
  AxisCover axis[kMaxBoxRank];
  bool empty() const { return rank == 0; }
  void clear() {
    for (int j = 0; j < rank; ++j) axis[j] = AxisCover();
    rank = 0;
  }
  Slice slice() const {
    Slice out;
    for (int j = 0; j < rank; ++j) out.push_back(axis[j].set());
    return out;
  }
};

// A buffer (the walk's Stream) holding one box.
struct Slot {
  int node = -1, tensor = -1, level = 0, source = 0;
  bool write = false;
  size_t op = 0;
  const TensorAccess* access = nullptr;
  uint64_t dims = 0;  // the dims that index it
  size_t prefix = 0;  // spatial levels before its source's (source_prefixes)
  size_t row = 0;     // its occupancy row (instance context)
  int klass = -1;         // TreeShape::buffer_class
  uint64_t owners = 0;    // the group's ops whose tiles activated it (a Seq drops it for another)
  Box held;
  bool holds = false, created = false;
  Spreads spreads;
  int spreads_node = -1;  // the tile its spreads were worked out for (Walker::spreads_for)
  int64_t write_entries = 0, mc_write_entries = 0, mc_count = 1, instance_weight = 1;
  int group = 0;
  bool finished = false;
  std::vector<int> twins;  // the earlier runs' slots of its buffer (Stream::twins)
  Cover cover;  // what it wrote
  // A new slot's state, keeping the storage of its lists (slots are kept from walk to walk; a
  // fresh Slot assigned over it cost a tenth of an evaluation, its covers' sets built and moved).
  void reset() {
    node = tensor = -1, level = source = 0, write = false, op = 0, access = nullptr, dims = 0, prefix = row = 0;
    klass = -1, owners = 0, held = Box(), holds = created = false, spreads_node = -1;
    write_entries = mc_write_entries = 0, mc_count = instance_weight = 1, group = 0, finished = false;
    spreads.clear(), twins.clear(), cover.clear();
  }
};

// A spatial loop around: its instances, and how its next instance moves the ops' boxes (an
// outer loop's move, or a nest's spread moving its one op along one dim).
struct SpatialLevel {
  int64_t count = 1;
  const OpBoxes* delta = nullptr;
  size_t op = 0;
  int dim = -1;
  int64_t chunk = 0;
  int64_t move(size_t o, int d) const {
    return delta ? (*delta)[o][static_cast<size_t>(d)].first : o == op && d == dim ? chunk : 0;
  }
};

// What the closed form met that it does not model: thrown to the top (template_walk).
struct Refused {
  const char* why;
};

struct Moved {
  double load = 0, store = 0;
};

// Walker::Passes, for a nest's first step run in runs: what the runs' sources sent per buffer
// (spread boxes only; the walk's regions are refused).
struct Sent {
  int node = 0, tensor = 0;
  std::vector<int> slots;
  std::vector<SpreadBox> spread;
};

// Representative steps being visited: per level, the slots touched and what each wrote.
struct Representing {
  std::vector<char> touched;
  std::vector<Cover> wrote;
};

// What an evaluation builds, kept by the thread from one to the next (walk_kept): a search runs
// thousands a second, and allocating it anew each time cost more than the arithmetic.
struct TemplateStore {
  std::vector<Slot> slots;  // [0, live)
  size_t live = 0;
  // Slots are made group by group: group g's are [group_from[g], group_from[g + 1]), its group
  // tile's first, up to tile_to[g]; then each op's: op o (numbered over all groups, from
  // op_from[g]) has runs of per_run[o] registers from reg_from[o]. Its tile's buffers are
  // tile_slots[tile_from[o], tile_from[o + 1]): the slot and the tile's access to it (the ops'
  // tiles of one group may share a buffer: one class, one context, one partition).
  std::vector<int> group_from, tile_to, op_from, tile_from, reg_from, per_run;
  struct TileSlot {
    int id;
    size_t op;
    const TensorAccess* access;
  };
  std::vector<TileSlot> tile_slots;
  std::vector<size_t> core_row;
  std::vector<SpatialLevel> stack;
  std::vector<std::pair<int, int64_t>> homes;  // intermediates at their home: (tensor, elements)
  std::vector<Sent> sent;
  std::vector<int64_t> occupancy;  // [(row * levels + level) * (tensors + 1) + tensor], totals at tensor == tensors
  std::vector<Representing> reps;  // [0, depth): the ones being visited (their storage kept)
  void clear() {
    live = 0;
    group_from.clear(), tile_to.clear(), op_from.clear(), tile_from.clear(), reg_from.clear(), per_run.clear(), core_row.clear();
    tile_slots.clear();
    stack.clear(), homes.clear(), sent.clear(), occupancy.clear();
  }
  int add_slot() {
    if (live == slots.size()) slots.emplace_back();
    else slots[live].reset();
    return static_cast<int>(live++);
  }
};

class TemplateEval {
 public:
  TemplateEval(const arch::Arch& a, const Workload& w, const Dataflow& f, const TreeShape& shape, const TemplatePlan& plan,
               PhaseCache* phases, CyclesBar give_up)
      : a_(a), w_(w), f_(f), s_(shape), p_(shape.placement), plan_(plan), phase_cache_(phases), give_up_(give_up) {}

  std::optional<WalkResult> run();

 private:
  const arch::Arch& a_;
  const Workload& w_;
  const Dataflow& f_;
  const TreeShape& s_;
  const Placement& p_;
  const TemplatePlan& plan_;
  PhaseCache* phase_cache_;
  CyclesBar give_up_;
  const TemplateGroup* g_ = nullptr;  // the group being visited
  size_t gi_ = 0;                     // its index
  WalkResult r_;
  TemplateStore& st_ = walk_kept<TemplateStore>();
  BoxPool& pool_ = walk_kept<BoxPool>();  // the walk's: one of the two runs at a time
  std::vector<Slot>& slots_ = st_.slots;
  std::vector<SpatialLevel>& stack_ = st_.stack;
  std::vector<std::pair<int, int64_t>>& homes_ = st_.homes;
  std::vector<Sent>& sent_ = st_.sent;
  std::vector<int64_t>& occupancy_ = st_.occupancy;
  std::vector<Representing>& reps_ = st_.reps;
  size_t depth_ = 0;
  // The classed spread's place in stack_ while a nest's first step runs in runs (-1: none).
  long passes_level_ = -1;
  int64_t instance_weight_ = 1;
  double repeat_ = 1;
  uint64_t past_first_ = 0;
  bool computed_ = false;
  double first_loads_ = 0, last_store_ = 0;

  // The slots of op k of the group being visited, run r: [first, second).
  std::pair<int, int> registers_of(size_t k, size_t r) const {
    const auto o = static_cast<size_t>(st_.op_from[gi_]) + k;
    const int from = st_.reg_from[o] + static_cast<int>(r) * st_.per_run[o];
    return {from, from + st_.per_run[o]};
  }
  int cur_op_ = -1;  // the op of the group whose tile is activating buffers (-1: the group tile)
  bool gave_up_ = false;  // the tree's cycles are certainly above the bar (CyclesBar)
  double at_least_ = 0;
  int64_t sent_over_runs(int id, const Box& now, int64_t merged, int64_t fresh);
  void empty_result();
  Box box_of(const Slot& s, const Range* op) const;
  void add_occupancy(int level, int tensor, size_t row, int64_t delta);
  void charge_source(int tensor, int source, int level, bool write, int64_t n);
  // Walker::add_cover: the cover, and what each representative step being visited wrote.
  void add_cover(int id, const Box& part);
  void add_cover(int id, size_t axis, const AxisCover& part);  // one axis of a part
  void touch(int id);
  Moved activate(int id, const Range* op, int64_t weight);  // `op`: the ranges of the slot's op
  void add_leaf(int leaf, int64_t points, int64_t weight);
  void time_own_op(int node, double latency);
  double outer_loops(size_t li, const OpBoxes& boxes, int64_t weight);
  void translate(const OpBoxes& delta, int64_t extra);
  double group_tile(const OpBoxes& boxes, int64_t weight);
  double op_tile(size_t k, const OpBoxes& boxes, int64_t weight);
  double own_loops(size_t k, size_t li, const OpBoxes& boxes, int64_t weight);
  double op_visit(size_t k, const OpBoxes& boxes, int64_t weight);
  template <class At, class Inner>
  double temporal_steps(const Loop& loop, const Cut& c, At at, Inner inner, int64_t weight);
  double vector_nest(const TemplateOp& t, const OpBoxes& boxes, int64_t weight);
  double registers_nest(size_t k, const OpBoxes& boxes, int64_t weight);
  void finish(int group = -1);  // the slots of `group` (-1: all) not finished yet
  double group_phase(const OpBoxes& whole);
  double cached_phase(const OpBoxes& whole);
  bool on_chip_empty() const;
};

void TemplateEval::empty_result() { r_ = empty_walk_result(a_, w_); }

// The slot's slice where its access's op has the ranges `op` (take_slice of its one access).
Box TemplateEval::box_of(const Slot& s, const Range* op) const {
  Box b;
  b.rank = static_cast<int>(s.access->index.size());
  for (int j = 0; j < b.rank; ++j) {
    const AffineIndex& ix = s.access->index[static_cast<size_t>(j)];
    if (ix.terms.empty()) {
      b.r[j] = {ix.offset, ix.offset + 1};
    } else {
      const Range& r = op[ix.terms[0].dim];
      b.r[j] = {r.first + ix.offset, std::max(r.first, r.second) + ix.offset};
    }
  }
  return b;
}

int64_t box_size(const Box& b) {
  int64_t n = 1;
  for (int j = 0; j < b.rank; ++j) n *= std::max<int64_t>(0, b.r[j].second - b.r[j].first);
  return n;
}

int64_t overlap(const Box& a, const Box& b) {
  int64_t n = 1;
  for (int j = 0; j < a.rank; ++j) n *= std::max<int64_t>(0, std::min(a.r[j].second, b.r[j].second) - std::max(a.r[j].first, b.r[j].first));
  return n;
}

// merged_fresh (held.h) for a buffer holding one box: what the instances newly hold together,
// without building the general sets where the new slice is apart from the held one.
int64_t merged_fresh_one(const Box& now, const Box& held, bool holds, int64_t fresh, const Spreads& spreads);

Boxes as_boxes(const Box& b, bool holds) {
  Boxes out;
  if (holds && box_size(b) > 0) out.n = 1, out.part[0] = b;
  return out;
}

int64_t merged_fresh_one(const Box& now, const Box& held, bool holds, int64_t fresh, const Spreads& spreads) {
  if (spreads.empty()) return fresh;
  if (fresh == 0) return 0;
  uint64_t axes = 0;
  bool once = true;
  for (const auto& sp : spreads) {
    const size_t axis = std::get<0>(sp);
    once = once && axis < 64 && !(axes >> axis & 1);
    if (axis < 64) axes |= uint64_t{1} << axis;
  }
  if (once && (!holds || overlap(now, held) == 0)) return spread_size(now, spreads);
  return merged_fresh(as_boxes(now, true), as_boxes(held, holds), fresh, spreads);
}

// Walker::add_occupancy.
void TemplateEval::add_occupancy(int level, int tensor, size_t row, int64_t delta) {
  const size_t per_level = w_.tensors.size() + 1, per_row = a_.levels.size() * per_level;
  if (occupancy_.size() < (row + 1) * per_row) occupancy_.resize((row + 1) * per_row, 0);
  int64_t* at = occupancy_.data() + row * per_row + static_cast<size_t>(level) * per_level;
  int64_t& lv = at[w_.tensors.size()];
  lv += delta;
  r_.level_peak_elems[static_cast<size_t>(level)] = std::max(r_.level_peak_elems[static_cast<size_t>(level)], lv);
  int64_t& tv = at[tensor];
  tv += delta;
  auto& peak = r_.peak_elems[static_cast<size_t>(level)][static_cast<size_t>(tensor)];
  peak = std::max(peak, tv);
}

// Walker::charge_source.
void TemplateEval::charge_source(int tensor, int source, int level, bool write, int64_t n) {
  auto& src = r_.traffic[static_cast<size_t>(source)][static_cast<size_t>(tensor)];
  (write ? src.update : src.read) += n;
  if (!a_.addressable(level)) (write ? r_.feed_updates : r_.feed_reads)[static_cast<size_t>(source)] += n;
  for (int via : a_.staging_levels(source, level)) {
    auto& mid = r_.traffic[static_cast<size_t>(via)][static_cast<size_t>(tensor)];
    mid.update += n;
    mid.read += n;
  }
}

void TemplateEval::touch(int id) {
  for (size_t k = 0; k < depth_; ++k) reps_[k].touched[static_cast<size_t>(id)] = 1;
}

void TemplateEval::add_cover(int id, const Box& part) {
  auto unite = [&](Cover& into) {
    into.rank = part.rank;
    for (int j = 0; j < part.rank; ++j) into.axis[j].add_interval(part.r[j].first, part.r[j].second);
  };
  unite(slots_[static_cast<size_t>(id)].cover);
  for (size_t k = 0; k < depth_; ++k) unite(reps_[k].wrote[static_cast<size_t>(id)]);
}

void TemplateEval::add_cover(int id, size_t axis, const AxisCover& part) {
  const int rank = static_cast<int>(slots_[static_cast<size_t>(id)].access->index.size());
  auto unite = [&](Cover& into) {
    into.rank = rank;
    into.axis[axis].add(part);
  };
  unite(slots_[static_cast<size_t>(id)].cover);
  for (size_t k = 0; k < depth_; ++k) unite(reps_[k].wrote[static_cast<size_t>(id)]);
}

// Walker::activate for a buffer holding one box.
Moved TemplateEval::activate(int id, const Range* op, int64_t weight) {
  Slot& s = slots_[static_cast<size_t>(id)];
  if (!s.created) s.created = true, s.instance_weight = instance_weight_;
  if (cur_op_ >= 0) s.owners |= uint64_t{1} << cur_op_;
  const Box now = box_of(s, op);
  const int64_t now_size = box_size(now);
  const int64_t held_size = s.holds ? box_size(s.held) : 0;
  const int64_t fresh = now_size - (s.holds ? overlap(now, s.held) : 0);
  int64_t merged = 1;
  for (size_t k = s.prefix; k < stack_.size(); ++k) merged *= stack_[k].count;
  const bool multicast = a_.levels[static_cast<size_t>(s.source)].multicast;
  if (multicast && merged > 1 && s.spreads_node != s.node && now_size > 0) {
    // Walker::spreads_for: per spatial level past the source's, the axis its move shifts the slice along.
    s.spreads.clear();
    for (size_t k = s.prefix; k < stack_.size(); ++k) {
      if (stack_[k].count <= 1) continue;
      int axis = -1;
      int64_t step = 0;
      for (size_t j = 0; j < s.access->index.size(); ++j) {
        const AffineIndex& ix = s.access->index[j];
        const int64_t d = ix.terms.empty() ? 0 : stack_[k].move(s.op, ix.terms[0].dim);
        if (d == 0) continue;
        if (axis >= 0) throw Refused{"a slice moving along two axes"};
        axis = static_cast<int>(j), step = d;
      }
      if (axis >= 0) s.spreads.emplace_back(static_cast<size_t>(axis), step, stack_[k].count);
    }
    s.spreads_node = s.node;
  }
  const bool over_runs = passes_level_ >= 0 && static_cast<long>(s.prefix) <= passes_level_;
  const int64_t shared = multicast && over_runs ? sent_over_runs(id, now, merged, fresh)
                         : merged == 1          ? fresh
                         : multicast            ? merged_fresh_one(now, s.held, s.holds, fresh, s.spreads)
                                                : fresh * merged;
  const int64_t source_weight = weight / merged;
  const bool takes_back = s.write && fresh > 0 && (past_first_ & ~s.dims) != 0;
  add_occupancy(s.level, s.tensor, s.row, now_size - held_size);
  s.mc_count = multicast ? merged : 1;
  if (s.write) {
    s.write_entries += fresh * weight;
    s.mc_write_entries += shared * source_weight;
    if (now_size > 0) add_cover(id, now);
  } else {
    r_.traffic[static_cast<size_t>(s.level)][static_cast<size_t>(s.tensor)].fill += fresh * weight;
  }
  charge_source(s.tensor, s.source, s.level, s.write, shared * source_weight);
  s.held = now, s.holds = now_size > 0;
  touch(id);
  const int64_t row = now.rank == 0 ? 1 : now.r[now.rank - 1].second - now.r[now.rank - 1].first;
  Moved m;
  (s.write ? m.store : m.load) = transfer_time(a_, s.source, s.level, s.write, row, fresh, shared).cycles;
  if (takes_back) m.load = transfer_time(a_, s.source, s.level, false, row, fresh, shared).cycles;
  if (!computed_) first_loads_ += m.load;
  return m;
}

// Walker::sent_over_passes and sent_apart: what a run's multicast source sends, against what the
// earlier runs' sent in this step: nothing where it is the same spread box, all of it where it
// is apart from them.
int64_t TemplateEval::sent_over_runs(int id, const Box& now, int64_t merged, int64_t fresh) {
  Slot& s = slots_[static_cast<size_t>(id)];
  auto found = std::find_if(sent_.begin(), sent_.end(), [&](const Sent& e) { return e.node == s.node && e.tensor == s.tensor; });
  if (fresh == 0) {
    if (found == sent_.end()) {
      sent_.push_back({s.node, s.tensor, {id}, {}});
    } else {
      s.twins = found->slots;
      found->slots.push_back(id);
    }
    return 0;
  }
  if (s.holds && overlap(now, s.held) != 0) throw Refused{"a run sending part of what it holds"};
  SpreadBox sent{now, {}};
  if (merged > 1) {
    uint64_t axes = 0;
    for (const auto& sp : s.spreads) {
      const size_t axis = std::get<0>(sp);
      if (axis >= 64 || (axes >> axis & 1)) throw Refused{"a run's send spread twice along one axis"};
      axes |= uint64_t{1} << axis;
    }
    sent.spreads = s.spreads;
  }
  if (found == sent_.end()) {
    sent_.push_back({s.node, s.tensor, {id}, {sent}});
    return sent.size();
  }
  bool same = false, apart = true;
  for (const SpreadBox& b : found->spread) same = same || b == sent, apart = apart && b.apart_from(sent);
  if (!same && !apart) throw Refused{"a run's send meeting an earlier one's in part"};
  s.twins = found->slots;
  found->slots.push_back(id);
  if (same) return 0;
  found->spread.push_back(sent);
  return sent.size();
}

// Walker::add_leaf.
void TemplateEval::add_leaf(int leaf, int64_t points, int64_t weight) {
  const auto o = static_cast<size_t>(f_.nodes[static_cast<size_t>(leaf)].op);
  const Op& op = w_.ops[o];
  const int64_t work = points * op.ops_per_point * weight;
  (op.unit == arch::UnitKind::Matrix ? r_.macs : r_.vector_ops) += work;
  r_.op_work[o] += work;
  // Walker::check_fill, at the first leaf of the tree or of a root phase.
  // Walker::check_fill: then every part returns at once (an exception unwinding the recursion
  // cost more than the evaluation it saved).
  if (!computed_ && give_up_.bar != INFINITY && give_up_.floor + first_loads_ > give_up_.bar)
    gave_up_ = true, at_least_ = give_up_.floor + first_loads_;
  computed_ = true;
  auto at = [&](int tensor) -> Traffic& {
    const int level = p_.tensors[static_cast<size_t>(tensor)].level[static_cast<size_t>(leaf)];
    return r_.traffic[static_cast<size_t>(level)][static_cast<size_t>(tensor)];
  };
  for (const auto& in : op.inputs) at(in.tensor).read += points * weight;
  at(op.out.tensor).update += points * weight;
}

void TemplateEval::time_own_op(int node, double latency) {
  const int op = s_.own_op[static_cast<size_t>(node)];
  if (op >= 0) r_.op_cycles[static_cast<size_t>(op)] += latency * repeat_;
}

// Walker::loops over the outer tile's loops (core loops, then temporal ones), then the group tile.
double TemplateEval::outer_loops(size_t li, const OpBoxes& boxes, int64_t weight) {
  const TreeNode& n = f_.nodes[static_cast<size_t>(g_->outer)];
  if (li == n.loops.size()) {
    const double t = group_tile(boxes, weight);
    if (g_->tile != g_->outer) time_own_op(g_->tile, t);  // else: the outer tile's visit, timed once
    return t;
  }
  const Loop& loop = n.loops[li];
  const int64_t extent = s_.index.extent(g_->outer, loop.dim, boxes);
  if (extent <= 0) return outer_loops(li + 1, boxes, weight);
  const Cut c = cut(extent, loop.factor);
  auto at = [&](int64_t i) {
    BoxPool::Lease b(pool_, boxes);
    s_.index.restrict(g_->outer, loop.dim, i * c.chunk, i * c.chunk + c.chunk, *b);
    return b;
  };
  if (loop.spatial) {  // even (the plan's): its instances alike
    BoxPool::Lease first = at(0);
    const OpBoxes& b0 = *first;
    BoxPool::Lease delta(pool_, b0);
    if (c.trips > 1) (*delta).assign_move(b0, *at(1));
    else (*delta).assign_zero(b0);
    SpatialLevel level;
    level.count = c.trips, level.delta = &*delta;
    stack_.push_back(level);
    const int64_t saved = instance_weight_;
    instance_weight_ *= c.trips;
    const double t = outer_loops(li + 1, b0, weight * c.trips);
    instance_weight_ = saved;
    stack_.pop_back();
    return t;
  }
  return temporal_steps(loop, c, at, [&](const OpBoxes& b, int64_t w) { return outer_loops(li + 1, b, w); }, weight);
}

// Walker::translate_since: the slots the representative step touched stand for `extra` more
// steps: moved on, and what they wrote repeated at each step.
void TemplateEval::translate(const OpBoxes& delta, int64_t extra) {
  const Representing& rep = reps_[--depth_];
  for (size_t id = 0; id < st_.live; ++id) {
    if (!rep.touched[id]) continue;
    Slot& s = slots_[id];
    int64_t shift[kMaxBoxRank] = {0};
    for (size_t j = 0; j < s.access->index.size(); ++j)
      if (!s.access->index[j].terms.empty()) shift[j] = delta[s.op][static_cast<size_t>(s.access->index[j].terms[0].dim)].first;
    if (s.write && !rep.wrote[id].empty()) {  // Walker::extend_cover
      for (int j = 0; j < rep.wrote[id].rank; ++j) {
        AxisCover added = rep.wrote[id].axis[j];
        if (shift[j] != 0) added.add_translates(shift[j], extra);
        add_cover(static_cast<int>(id), static_cast<size_t>(j), added);
      }
    }
    if (!s.holds) continue;
    for (int j = 0; j < s.held.rank; ++j) s.held.r[j].first += shift[j] * extra, s.held.r[j].second += shift[j] * extra;
  }
}

// Walker::visit_node on the group tile: its buffers' activations, then its children.
double TemplateEval::group_tile(const OpBoxes& boxes, int64_t weight) {
  double load = 0, store = 0;
  cur_op_ = -1;
  for (int id = st_.group_from[gi_]; id < st_.tile_to[gi_]; ++id) {
    const Moved m = activate(id, boxes[slots_[static_cast<size_t>(id)].op], weight);
    load += m.load, store += m.store;
  }
  // Walker::children: the intermediates fused here live at their home while the children run.
  const size_t core_row = st_.core_row[gi_];
  const size_t homes_from = homes_.size();
  for (const int t : s_.fused[static_cast<size_t>(g_->tile)]) {
    const Op& prod = w_.ops[static_cast<size_t>(w_.tensors[static_cast<size_t>(t)].producer)];
    const int64_t elems = slice_size(access_slice(prod.out, boxes[static_cast<size_t>(w_.tensors[static_cast<size_t>(t)].producer)]));
    add_occupancy(p_.tensors[static_cast<size_t>(t)].home, t, core_row, elems);
    homes_.push_back({t, elems});
  }
  const bool drop = g_->prim == Prim::Seq && g_->ops.size() > 1;
  double total = 0;  // Time::beside (Pipe) or then: the latencies' max or sum
  for (size_t k = 0; k < g_->ops.size(); ++k) {
    if (drop)  // Walker::drop_for_sibling: the buffers of the ops' tiles this one never used
      for (int id = st_.tile_to[gi_]; id < st_.group_from[gi_ + 1]; ++id) {
        Slot& s = slots_[static_cast<size_t>(id)];
        if (!s.holds || (s.owners >> k & 1)) continue;
        add_occupancy(s.level, s.tensor, s.row, -box_size(s.held));
        s.holds = false;
      }
    const double t = op_tile(k, boxes, weight);
    if (gave_up_) return 0;
    total = g_->prim == Prim::Pipe ? std::max(total, t) : total + t;
  }
  for (size_t h = homes_from; h < homes_.size(); ++h)
    add_occupancy(p_.tensors[static_cast<size_t>(homes_[h].first)].home, homes_[h].first, core_row, -homes_[h].second);
  homes_.resize(homes_from);
  if (store > 0) last_store_ = store;
  return std::max({load, total, store});
}

// An op's own tile (its loops, as Walker::loops takes them) or, without one, its tile.
double TemplateEval::op_tile(size_t k, const OpBoxes& boxes, int64_t weight) {
  const TemplateOp& t = g_->ops[k];
  if (t.own < 0) return op_visit(k, boxes, weight);
  const double latency = own_loops(k, 0, boxes, weight);
  time_own_op(t.own, latency);
  return latency;
}

double TemplateEval::own_loops(size_t k, size_t li, const OpBoxes& boxes, int64_t weight) {
  const TemplateOp& t = g_->ops[k];
  const TreeNode& n = f_.nodes[static_cast<size_t>(t.own)];
  if (li == n.loops.size()) return op_visit(k, boxes, weight);
  const Loop& loop = n.loops[li];
  const int64_t extent = s_.index.extent(t.own, loop.dim, boxes);
  if (extent <= 0) return own_loops(k, li + 1, boxes, weight);
  const Cut c = cut(extent, loop.factor);
  auto at = [&](int64_t i) {
    BoxPool::Lease b(pool_, boxes);
    s_.index.restrict(t.own, loop.dim, i * c.chunk, i * c.chunk + c.chunk, *b);
    return b;
  };
  return temporal_steps(loop, c, at, [&](const OpBoxes& b, int64_t w) { return own_loops(k, li + 1, b, w); }, weight);
}

// Walker::visit_node on an op's tile: its buffers' activations (below an own tile), its nest.
double TemplateEval::op_visit(size_t k, const OpBoxes& boxes, int64_t weight) {
  const TemplateOp& t = g_->ops[k];
  double load = 0, store = 0;
  cur_op_ = static_cast<int>(k);
  const auto o = static_cast<size_t>(st_.op_from[gi_]) + k;
  for (int x = st_.tile_from[o]; x < st_.tile_from[o + 1]; ++x) {
    const TemplateStore::TileSlot& ts = st_.tile_slots[static_cast<size_t>(x)];
    Slot& s = slots_[static_cast<size_t>(ts.id)];
    s.node = t.tile, s.op = ts.op, s.access = ts.access;  // the buffer seen from this tile
    const Moved m = activate(ts.id, boxes[ts.op], weight);
    load += m.load, store += m.store;
  }
  const double inner = t.registers < 0 ? vector_nest(t, boxes, weight) : registers_nest(k, boxes, weight);
  if (gave_up_) return 0;
  if (store > 0) last_store_ = store;
  const double latency = std::max({load, inner, store});
  time_own_op(t.tile, latency);
  return latency;
}

// Walker::loops on a temporal loop cut `c`: the first step, the one standing for the middle ones
// (its slots moved on after it by translate), a partial last one; `at(i)`: step i's boxes,
// `inner(boxes, weight)`: the loops inside.
template <class At, class Inner>
double TemplateEval::temporal_steps(const Loop& loop, const Cut& c, At at, Inner inner, int64_t weight) {
  const int64_t full = c.last == c.chunk ? c.trips : c.trips - 1;
  double latency = 0;
  BoxPool::Lease b0 = at(0);
  if (full >= 1) latency += inner(*b0, weight);
  if (gave_up_) return latency;
  const uint64_t past_first = past_first_;
  if (loop.dim < 64) past_first_ |= uint64_t{1} << loop.dim;
  if (full >= 2) {
    const int64_t middle = full - 1;
    BoxPool::Lease b1 = at(1);
    if (middle == 1) {
      latency += inner(*b1, weight);
    } else {
      if (depth_ == reps_.size()) reps_.emplace_back();
      Representing& rep = reps_[depth_++];
      rep.touched.assign(st_.live, 0);
      rep.wrote.resize(st_.live);
      for (Cover& x : rep.wrote) x.clear();
      const double repeat = repeat_;
      repeat_ *= static_cast<double>(middle);
      latency += inner(*b1, weight * middle) * static_cast<double>(middle);
      repeat_ = repeat;
      // One step's move (the plan's accesses are not clipped: every step moves alike).
      (*b0).assign_move(*b0, *b1);
      translate(*b0, middle - 1);
    }
  }
  if (full < c.trips) latency += inner(*at(c.trips - 1), weight);
  past_first_ = past_first;
  return latency;
}

// Walker::leaf_nest: a vector op's time from its extents alone (the plan checked its splits).
double TemplateEval::vector_nest(const TemplateOp& t, const OpBoxes& boxes, int64_t weight) {
  const TreeNode& n = f_.nodes[static_cast<size_t>(t.tile)];
  const Op& op = w_.ops[t.op];
  int64_t extents[kMaxDims];
  for (size_t d = 0; d < w_.dims.size(); ++d) extents[d] = boxes[t.op][d].second - boxes[t.op][d].first;
  // The plan checked the splits and the factors (with the partial steps around: told here as
  // one, which only the factors' check reads).
  bool ok = true;
  auto any_spread = [](size_t, int64_t, const Cut&) { return true; };
  const double latency = leaf_nest_time(n, op, 0, extents, 1, ok, any_spread);
  int64_t points = 1;
  for (int d : op.dims) points *= std::max<int64_t>(0, boxes[t.op][static_cast<size_t>(d)].second - boxes[t.op][static_cast<size_t>(d)].first);
  add_leaf(t.leaf, points, weight);
  return latency;
}

// Walker::own_nest for an op with registers: its first step from the first chunk of every loop
// (the spreads' instances in their runs), its later steps counted run by run (count_later_steps,
// nest_time).
double TemplateEval::registers_nest(size_t k, const OpBoxes& boxes, int64_t weight) {
  const TemplateOp& t = g_->ops[k];
  const TreeNode& n = f_.nodes[static_cast<size_t>(t.tile)];
  const Op& op = w_.ops[t.op];
  // The plan of the nest (Walker::plan_nest and plan_spatial).
  NestPlan plan;
  plan.op = t.op;
  int64_t left[kMaxDims];
  for (size_t d = 0; d < w_.dims.size(); ++d) left[d] = boxes[t.op][d].second - boxes[t.op][d].first;
  // The first step's ranges of the op (the only one below its tile: restricting cuts its own).
  Range first[kMaxDims];
  std::copy(boxes[t.op], boxes[t.op] + w_.dims.size(), first);
  struct Spread {
    int dim;
    int64_t chunk, factor;
  };
  Spread spreads[kMaxNestLoops];
  for (size_t li = 0; li < n.loops.size(); ++li) {
    const Loop& l = n.loops[li];
    int64_t& e = left[static_cast<size_t>(l.dim)];
    if (!op.uses_dim(l.dim) || e <= 0) {
      if (l.spatial) throw Refused{"a spread over a dim the op does not use"};
      plan.steps[plan.temporal++] = {l.dim, e, 1, false};
      continue;
    }
    const Cut c = cut(e, l.factor);
    Range& r = first[l.dim];
    r.second = std::min(r.first + c.chunk, r.second);
    if (l.spatial) {
      if (static_cast<int>(li) == t.classed_loop) plan.classed = static_cast<int>(plan.spatial);
      spreads[plan.spatial] = {l.dim, c.chunk, l.factor};
      plan.instances *= c.trips;
      plan.spatial_trips[plan.spatial++] = c.trips;
    } else {
      if (c.last != c.chunk) plan.padded = static_cast<int>(plan.temporal), plan.padded_dim = l.dim, plan.padded_extent = c.last;
      plan.steps[plan.temporal++] = {l.dim, c.chunk, c.trips, true};
    }
    e = c.chunk;
  }
  if (plan.padded >= 0 && plan.classed < 0) throw Refused{"a partial step whose spread is not classed"};
  plan.count_steps();
  for (int d : op.dims) plan.points *= std::max<int64_t>(0, left[static_cast<size_t>(d)]);
  if (plan.classed >= 0) {  // plan_spatial: the runs present in a full step and in the partial one
    const auto c = static_cast<size_t>(plan.classed);
    plan.runs = t.runs;
    int64_t from = 0;
    for (size_t r = 0; r < plan.runs; ++r) plan.run_first[r] = from, plan.run_count[r] = t.counts[r] - from, from = t.counts[r];
    auto present = [&](int64_t trips) {
      size_t x = 0;
      while (x < plan.runs && t.counts[x] <= trips) ++x;
      return x;
    };
    plan.runs_full = plan.runs_partial = present(plan.spatial_trips[c]);
    if (spreads[c].dim == plan.padded_dim) plan.runs_partial = present(cut(plan.padded_extent, spreads[c].factor).trips);
  }
  // The first step: the spreads' instances, run by run (Walker::spatial; the later runs are not
  // timed and leave the fill and the last store as the first left them), each activating its
  // registers and running its leaf.
  const size_t outer_levels = stack_.size();
  const int64_t saved_weight = instance_weight_;
  const bool runs = plan.classed >= 0 && plan.runs_full > 1;
  if (runs) passes_level_ = static_cast<long>(outer_levels) + plan.classed, sent_.clear();
  double first_time = 0;
  bool computed = false;
  double first_loads = 0, last_store = 0;
  int64_t points = 1;
  for (size_t r = 0; r < plan.runs_full; ++r) {
    Range at[kMaxDims];
    std::copy(first, first + w_.dims.size(), at);
    int64_t instances = 1;
    for (size_t j = 0; j < plan.spatial; ++j) {
      SpatialLevel level;
      level.count = plan.spatial_trips[j], level.op = t.op, level.dim = spreads[j].dim, level.chunk = spreads[j].chunk;
      if (static_cast<int>(j) == plan.classed) {
        level.count = plan.run_count[r];
        Range& x = at[spreads[j].dim];
        const int64_t lo = boxes[t.op][spreads[j].dim].first + plan.run_first[r] * spreads[j].chunk;
        x = {lo, std::min(lo + spreads[j].chunk, boxes[t.op][spreads[j].dim].second)};
      }
      instances *= level.count;
      stack_.push_back(level);
    }
    instance_weight_ = saved_weight * instances;
    const int64_t inner_weight = weight * instances;
    double load = 0, store = 0;
    for (auto [id, end] = registers_of(k, r); id < end; ++id) {
      const Moved m = activate(id, at, inner_weight);
      load += m.load, store += m.store;
    }
    points = 1;
    for (int d : op.dims) points *= std::max<int64_t>(0, at[d].second - at[d].first);
    add_leaf(t.leaf, points, inner_weight);
    if (store > 0) last_store_ = store;
    stack_.resize(outer_levels);
    if (gave_up_) {
      passes_level_ = -1, instance_weight_ = saved_weight;
      return 0;
    }
    if (r == 0) {
      first_time = std::max({load, static_cast<double>(points * op.ops_per_point), store});
      computed = computed_, first_loads = first_loads_, last_store = last_store_;
    } else {
      computed_ = computed, first_loads_ = first_loads, last_store_ = last_store;
    }
  }
  passes_level_ = -1;
  instance_weight_ = saved_weight;
  if (plan.total <= 1) return first_time;  // the walk walks a nest of one step
  // Walker::count_later_steps, nest_operand and move_on, run by run.
  const int classed_dim = plan.classed >= 0 ? spreads[plan.classed].dim : -1;
  NestOperand operands[kMaxNestOperands];
  size_t count = 0;
  for (size_t r = 0; r < plan.runs_full; ++r) {
    const NestPlan run = plan.for_run(r);
    count = 0;
    for (auto [id, end] = registers_of(k, r); id < end; ++id) {
      Slot& s = slots_[static_cast<size_t>(id)];
      NestOperand h;
      h.write = s.write, h.dims = s.dims;
      h.fresh = s.holds ? box_size(s.held) : 0;
      int64_t merged = 1;
      for (size_t j = s.prefix; j < stack_.size(); ++j) merged *= stack_[j].count;
      for (size_t j = 0; j < run.spatial; ++j)
        if (stack_.size() + j >= s.prefix) merged *= run.spatial_trips[j];
      const bool multicast = a_.levels[static_cast<size_t>(s.source)].multicast;
      h.multicast = multicast;
      h.shared = merged == 1 ? h.fresh : multicast ? merged_fresh_one(s.held, s.held, false, h.fresh, s.spreads) : h.fresh * merged;
      const int64_t row = s.held.rank == 0 ? 1 : s.held.r[s.held.rank - 1].second - s.held.r[s.held.rank - 1].first;
      h.time = transfer_time(a_, s.source, s.level, s.write, row, h.fresh, h.shared).cycles;
      if (s.write) h.back_time = transfer_time(a_, s.source, s.level, false, row, h.fresh, h.shared).cycles;
      h.source_weight = weight * run.instances / merged;
      // A later run sends what the earlier ones did not: nothing where its slice is theirs.
      if (r > 0 && h.multicast && !(h.dims >> classed_dim & 1)) h.shared = 0;
      // move_on
      const int64_t step_weight = weight * run.instances;
      const int64_t moves = run.steps_moving(h.dims);
      if (moves > 0) {
        if (s.write) {
          s.write_entries += h.fresh * step_weight * moves;
          s.mc_write_entries += h.shared * h.source_weight * moves;
        } else {
          r_.traffic[static_cast<size_t>(s.level)][static_cast<size_t>(s.tensor)].fill += h.fresh * step_weight * moves;
        }
        charge_source(s.tensor, s.source, s.level, s.write, h.shared * h.source_weight * moves);
      }
      // What the later steps wrote (the slice and its translates, dim by dim), then the slice
      // moved to the last step's.
      if (s.write && moves > 0 && s.holds) {
        for (size_t x = 0; x < s.access->index.size(); ++x) {
          const int dim = s.access->index[x].terms.empty() ? -1 : s.access->index[x].terms[0].dim;
          AxisCover part;
          part.add_interval(s.held.r[x].first, s.held.r[x].second);
          for (size_t j = 0; j < run.temporal; ++j)
            if (run.steps[j].trips > 1 && run.steps[j].dim == dim) part.add_translates(run.steps[j].chunk, run.steps[j].trips - 1);
          add_cover(id, x, part);
        }
      }
      for (size_t j = 0; j < run.temporal; ++j) {
        const NestPlan::Step& step = run.steps[j];
        if (step.trips <= 1) continue;
        const int64_t by = step.chunk * (step.trips - 1);
        for (size_t x = 0; x < s.access->index.size(); ++x)
          if (!s.access->index[x].terms.empty() && s.access->index[x].terms[0].dim == step.dim) s.held.r[x].first += by, s.held.r[x].second += by;
      }
      touch(id);
      if (r == 0) operands[count] = h;
      ++count;
    }
    add_leaf(t.leaf, plan.points * (run.total - 1), weight * run.instances);
  }
  // Walker::nest_time: the first run's operands, in the walk's order.
  auto nest_time = [&](auto&& self, size_t i, int advanced, uint64_t past_first) -> double {
    if (i == plan.temporal) {
      if (advanced < 0) return first_time;
      double l = 0, st = 0;
      for (size_t c = 0; c < count; ++c) {
        const NestOperand& h = operands[c];
        if (!plan.moves(h.dims, static_cast<size_t>(advanced))) continue;
        (h.write ? st : l) += h.time;
        if (h.write && (past_first & ~h.dims) != 0) l += h.back_time;
      }
      if (st > 0) last_store_ = st;
      return std::max({l, static_cast<double>(plan.points * op.ops_per_point), st});
    }
    double latency = self(self, i + 1, advanced, past_first);
    const bool padded = static_cast<int>(i) == plan.padded;
    const int64_t full = plan.steps[i].trips - (padded ? 1 : 0);
    if (full < 2 && !padded) return latency;
    const double next = self(self, i + 1, static_cast<int>(i), past_first | uint64_t{1} << plan.steps[i].dim);
    if (full >= 2) {
      const int64_t middle = full - 1;
      latency += middle == 1 ? next : next * static_cast<double>(middle);
    }
    if (padded) latency += next;
    return latency;
  };
  return nest_time(nest_time, 0, -1, past_first_);
}

// Walker::phase: a group as a phase of its own, with its own fill and last store; its cycles.
double TemplateEval::group_phase(const OpBoxes& whole) {
  const bool computed = computed_;
  const double first_loads = first_loads_;
  computed_ = false, first_loads_ = 0, last_store_ = 0;
  const double t = outer_loops(0, whole, 1);
  time_own_op(g_->outer, t);
  const double cycles = t + first_loads_ + last_store_;
  computed_ = computed || computed_, first_loads_ = first_loads, last_store_ = 0;
  return cycles;
}

// Walker::on_chip_empty.
bool TemplateEval::on_chip_empty() const {
  const size_t per_level = w_.tensors.size() + 1, per_row = a_.levels.size() * per_level;
  for (size_t at = 0; at + per_row <= occupancy_.size(); at += per_row)
    for (size_t level = 1; level < a_.levels.size(); ++level)
      if (occupancy_[at + level * per_level + w_.tensors.size()] != 0) return false;
  return true;
}


// Walker::cached_phase: a group's phase looked up, or computed with a result of its own and
// kept on the walk's conditions (on chip empty as it starts, DRAM untouched).
double TemplateEval::cached_phase(const OpBoxes& whole) {
  PhaseKey key = phase_key(f_, g_->outer);
  const bool clean = on_chip_empty();
  if (const auto hit = clean ? phase_cache_->find(key) : nullptr) {
    add_phase_counts(r_, hit->walk);
    computed_ = computed_ || hit->computed;
    return hit->walk.cycles;
  }
  const bool computed = computed_;
  WalkResult outside = std::exchange(r_, WalkResult());
  empty_result();
  computed_ = false;
  const double t = group_phase(whole);
  if (gave_up_) return t;  // nothing kept
  finish(static_cast<int>(gi_));
  PhaseResult mine{std::exchange(r_, std::move(outside)), computed_};
  mine.walk.cycles = t;
  add_phase_counts(r_, mine.walk);
  computed_ = computed || mine.computed;
  const bool dram_untouched = mine.walk.level_peak_elems[0] == 0;
  if (clean && dram_untouched) phase_cache_->insert(std::move(key), std::move(mine));
  return t;
}

// Walker::finish_write_streams: refills of partial sums.
void TemplateEval::finish(int group) {
  for (size_t i = 0; i < st_.live; ++i) {
    Slot& s = slots_[i];
    if (s.finished || (group >= 0 && s.group != group)) continue;
    s.finished = true;
    if (!s.write || s.cover.empty()) continue;
    auto size_of = [](const Cover& c) {
      int64_t n = 1;
      for (int j = 0; j < c.rank; ++j) n *= c.axis[j].size();
      return n;
    };
    const int64_t distinct = size_of(s.cover) * s.instance_weight;
    r_.traffic[static_cast<size_t>(s.level)][static_cast<size_t>(s.tensor)].fill += s.write_entries - distinct;
    // The instances' covers together: spread_set on each spread axis.
    auto spread_cover = [](const Slot& x) {
      Cover c = x.cover;
      for (const auto& [axis, step, count] : x.spreads) c.axis[axis].add_translates(step, count - 1);
      return c;
    };
    const Cover merged = spread_cover(s);
    int64_t merged_distinct = size_of(merged);
    // A later run: what the earlier runs wrote was counted with theirs.
    if (!s.twins.empty()) {
      Region before;
      for (const int twin : s.twins)
        if (!slots_[static_cast<size_t>(twin)].cover.empty()) before.unite(Region::of(spread_cover(slots_[static_cast<size_t>(twin)]).slice()));
      merged_distinct = Region::of(merged.slice()).size_outside(before);
    }
    merged_distinct *= s.instance_weight / s.mc_count;
    charge_source(s.tensor, s.source, s.level, false, s.mc_write_entries - merged_distinct);
  }
}

std::optional<WalkResult> TemplateEval::run() {
  empty_result();
  st_.clear();
  // source_prefixes for one buffer: the spatial loops above its source's buffer.
  auto spatial_above = [&](int node, bool own) {
    int n = 0;
    for (const Loop& l : f_.nodes[static_cast<size_t>(node)].loops) n += own && l.spatial;
    for (int p = f_.nodes[static_cast<size_t>(node)].parent; p >= 0; p = f_.nodes[static_cast<size_t>(p)].parent)
      for (const Loop& l : f_.nodes[static_cast<size_t>(p)].loops) n += l.spatial;
    return n;
  };
  auto add_slot = [&](int node, int tensor, size_t row) {
    const int id = st_.add_slot();
    Slot& s = slots_[static_cast<size_t>(id)];
    s.node = node, s.tensor = tensor, s.row = row;
    s.klass = s_.buffer_class[static_cast<size_t>(node) * w_.tensors.size() + static_cast<size_t>(tensor)];
    const TensorPlacement& tp = p_.tensors[static_cast<size_t>(tensor)];
    s.level = tp.level[static_cast<size_t>(node)], s.source = tp.source[static_cast<size_t>(node)];
    s.write = tp.writes[static_cast<size_t>(node)];
    const BufferAccesses::Accesses by = s_.accesses.of(node, tensor);
    s.op = static_cast<size_t>(by.begin()->op), s.access = by.begin()->access;
    for (const BufferAccesses::Access& acc : by)
      for (const auto& ix : acc.access->index)
        for (const auto& term : ix.terms) s.dims |= uint64_t{1} << term.dim;
    const int anchor = s_.source_anchors[static_cast<size_t>(node) * w_.tensors.size() + static_cast<size_t>(tensor)];
    s.prefix = static_cast<size_t>(anchor >= 0 ? spatial_above(anchor, false) : anchor <= -2 ? spatial_above(-2 - anchor, true) : 0);
    s.group = static_cast<int>(st_.group_from.size()) - 1;
    return id;
  };
  // Occupancy rows, one per instance context: the root's (0), each group's cores', each op's
  // spreads' (or its group's where it has none).
  size_t rows = 1;
  for (const TemplateGroup& g : plan_.groups) {
    const auto& outer = f_.nodes[static_cast<size_t>(g.outer)].loops;
    const size_t core_row = std::any_of(outer.begin(), outer.end(), [](const Loop& l) { return l.spatial; }) ? rows++ : 0;
    st_.core_row.push_back(core_row);
    st_.group_from.push_back(static_cast<int>(st_.live));  // first: add_slot numbers the slot's group by it
    for (const int t : s_.owned[static_cast<size_t>(g.tile)]) add_slot(g.tile, t, core_row);
    st_.tile_to.push_back(static_cast<int>(st_.live));
    st_.op_from.push_back(static_cast<int>(st_.reg_from.size()));
    for (size_t k = 0; k < g.ops.size(); ++k) {
      const TemplateOp& op = g.ops[k];
      st_.tile_from.push_back(static_cast<int>(st_.tile_slots.size()));
      for (const int t : s_.owned[static_cast<size_t>(op.tile)]) {
        // Outside a Pipe the ops' tiles run in one partition: a buffer of one class is one.
        const int klass = s_.buffer_class[static_cast<size_t>(op.tile) * w_.tensors.size() + static_cast<size_t>(t)];
        int id = -1;
        if (g.prim != Prim::Pipe)
          for (int x = st_.tile_to.back(); x < static_cast<int>(st_.live) && id < 0; ++x)
            if (slots_[static_cast<size_t>(x)].klass == klass && slots_[static_cast<size_t>(x)].row == core_row) id = x;
        if (id < 0) id = add_slot(op.tile, t, core_row);
        const BufferAccesses::Access& acc = *s_.accesses.of(op.tile, t).begin();
        st_.tile_slots.push_back({id, static_cast<size_t>(acc.op), acc.access});
      }
      st_.reg_from.push_back(static_cast<int>(st_.live));
      st_.per_run.push_back(op.registers < 0 ? 0 : static_cast<int>(s_.owned[static_cast<size_t>(op.registers)].size()));
      if (op.registers < 0) continue;
      const auto& loops = f_.nodes[static_cast<size_t>(op.tile)].loops;
      const bool spreads = std::any_of(loops.begin(), loops.end(), [](const Loop& l) { return l.spatial; });
      // Each run of instances keeps buffers of its own (its own context).
      for (size_t r = 0; r < op.runs; ++r) {
        const size_t row = spreads ? rows++ : core_row;
        for (const int t : s_.owned[static_cast<size_t>(op.registers)]) add_slot(op.registers, t, row);
      }
    }
  }
  st_.group_from.push_back(static_cast<int>(st_.live));
  st_.tile_from.push_back(static_cast<int>(st_.tile_slots.size()));
  // Walker::children of the root: the intermediates fused there live at their home meanwhile;
  // each group drops what the others left on chip (a Seq), and runs as a phase of its own where
  // they hand data over through a level no program addresses.
  const OpBoxes whole = OpBoxes::whole(w_);
  std::vector<std::pair<int, int64_t>> homes;
  for (const int t : s_.fused[0]) {
    const int producer = w_.tensors[static_cast<size_t>(t)].producer;
    const int64_t elems = slice_size(access_slice(w_.ops[static_cast<size_t>(producer)].out, whole[static_cast<size_t>(producer)]));
    add_occupancy(p_.tensors[static_cast<size_t>(t)].home, t, 0, elems);
    homes.push_back({t, elems});
  }
  const bool phases = runs_in_phases(a_, f_, p_, s_.fused, 0);
  const bool drop = plan_.groups.size() > 1;
  double latency = 0;
  for (gi_ = 0; gi_ < plan_.groups.size(); ++gi_) {
    g_ = &plan_.groups[gi_];
    if (drop)
      for (size_t other = 0; other < plan_.groups.size(); ++other) {
        if (other == gi_) continue;
        auto drop_slot = [&](int id) {
          Slot& s = slots_[static_cast<size_t>(id)];
          if (!s.holds) return;
          add_occupancy(s.level, s.tensor, s.row, -box_size(s.held));
          s.holds = false;
        };
        for (int id = st_.group_from[other]; id < st_.group_from[other + 1]; ++id) drop_slot(id);
      }
    if (!phases) {
      const double t = outer_loops(0, whole, 1);
      time_own_op(g_->outer, t);
      latency += t;
    } else {
      latency += phase_cache_ && plan_.groups.size() >= 2 ? cached_phase(whole) : group_phase(whole);
    }
    if (gave_up_) {
      WalkResult r;
      r.gave_up = true, r.at_least = at_least_;
      return r;
    }
  }
  for (const auto& [t, elems] : homes) add_occupancy(p_.tensors[static_cast<size_t>(t)].home, t, 0, -elems);
  time_own_op(0, latency);
  finish();
  r_.cycles = latency + first_loads_ + last_store_;
  return std::move(r_);
}

}  // namespace

std::optional<WalkResult> template_walk(const arch::Arch& a, const Workload& w, const Dataflow& f, const TreeShape& shape,
                                        const TemplatePlan& plan, PhaseCache* phases, CyclesBar give_up, std::string* why) {
  auto refuse = [&](const char* reason) -> std::optional<WalkResult> {
    if (why) *why = reason;
    return std::nullopt;
  };
  try {
    return TemplateEval(a, w, f, shape, plan, phases, give_up).run();
  } catch (const Refused& r) {
    return refuse(r.why);
  }
}

}  // namespace dfx::model
