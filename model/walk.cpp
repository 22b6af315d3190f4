// The fast walk: the oracle's semantics (tests/property/oracle.cpp) computed on the boundaries
// between time steps only.
#include "model/walk.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <unordered_map>
#include <tuple>

#include "arch/unit_costs.h"
#include "model/instruction_time.h"
#include "model/transfer_time.h"
#include "model/index_set.h"
#include "model/walk_time.h"
#include "model/walk_support.h"

namespace dfx::model {
namespace {


// One buffer's history: the elements resident after its last activation.
struct Stream {
  int tensor = 0, level = 0, owner = 0, source = 0;  // owner: the last node to activate it
  bool write = false;
  int64_t instance_weight = 1;
  int inst_ctx = 0;          // the spatial instance (a context id, see Contexts)
  MultiSlice resident;
  OpBoxes snapshot;         // the boxes that produced `resident`, to translate it
  Slice cover;              // write streams: every element ever written here, per dimension
  int64_t write_entries = 0;
  int64_t mc_write_entries = 0;  // write entries as the source sees them (instances merged)
  int64_t mc_count = 1;          // instances merged into one source transfer
  std::vector<std::tuple<size_t, int64_t, int64_t>> spreads;  // (axis, step, count) per merged loop
  int spreads_owner = -1;        // the owner node `spreads` was computed for
  std::vector<int> owners;  // tile nodes whose activations fill this buffer
  bool dropped = false;     // emptied by a Seq sibling since its last activation
};

class Walker {
 public:
  Walker(const arch::Arch& a, const Workload& w, const Dataflow& f, const Placement& p)
      : a_(a), w_(w), f_(f), p_(p), index_(w, f, p), instructions_(a, w, f) {
    r_.traffic.assign(a.levels.size(), std::vector<Traffic>(w.tensors.size()));
    r_.peak_elems.assign(a.levels.size(), std::vector<int64_t>(w.tensors.size(), 0));
    r_.level_peak_elems.assign(a.levels.size(), 0);
    mc_prefix_ = source_prefixes(w_, f_, p_);
    subtree_end_.assign(f.nodes.size(), 0);
    for (size_t i = f.nodes.size(); i-- > 0;) {
      subtree_end_[i] = static_cast<int>(i) + 1;
      for (int c : f.nodes[i].children) subtree_end_[i] = std::max(subtree_end_[i], subtree_end_[static_cast<size_t>(c)]);
    }
  }

  WalkResult run() {
    OpBoxes boxes = OpBoxes::whole(w_);
    const Time t = visit(0, boxes, 1);
    finish_write_streams();
    r_.cycles = cycles_of(t);
    return r_;
  }

 private:
  const arch::Arch& a_;
  const Workload& w_;
  const Dataflow& f_;
  const Placement& p_;
  WalkResult r_;
  Contexts contexts_;
  TileIndex index_;
  BoxPool pool_;
  int inst_ctx_ = 0;  // current spatial instance
  int part_ctx_ = 0;  // current Para/Pipe partition
  // The spatial loops around the current position (one per instance_ entry): how many instances
  // and how the boxes move from one instance to the next.
  struct SpatialLevel {
    int64_t count = 1;
    OpBoxes delta;
  };
  std::vector<SpatialLevel> spatial_stack_;
  std::vector<std::vector<int>> mc_prefix_;  // [node][tensor]: spatial loops that define the source buffer
  std::unordered_map<uint64_t, int> stream_ids_;
  std::vector<Stream> streams_;
  // What representative iterations touched and wrote, for translate_since; only kept while one
  // is being visited (representing_ > 0), and cleared when the outermost one is done.
  int representing_ = 0;
  std::vector<int> touched_;
  std::vector<std::pair<int, Slice>> cover_log_;
  std::vector<int64_t> shift_;  // scratch of translate_since
  std::unordered_map<uint64_t, int64_t> occupancy_;        // (instance, level, tensor) → elements
  std::unordered_map<uint64_t, int64_t> level_occupancy_;  // (instance, level) → elements
  int64_t instance_weight_ = 1;
  std::vector<int> subtree_end_;
  InstructionTimes instructions_;
  bool computed_ = false;                 // a leaf has run: loads from now on overlap compute
  double first_loads_ = 0, last_store_ = 0;
  double last_store_port_ = 0;            // the last store's time on the DRAM port (in Time::port too)
  double after_last_load_ = 0;            // instruction cycles since the last program load
  std::map<std::pair<int, size_t>, int64_t> spatial_extent_;  // nodes are in pre-order: subtree of n is [n, subtree_end_[n])


  // How the merged instances' slices of a tensor lie next to the representative's: per spatial
  // loop beyond the source buffer's own, the tensor dimension it moves and by how much.
  // Translation-invariant, so computed once per buffer and owner.
  bool spreads_for(int node, int tensor, const OpBoxes& boxes, const MultiSlice& now, size_t prefix,
                   Spreads& spreads) {
    spreads.clear();
    for (size_t k = prefix; k < spatial_stack_.size(); ++k) {
      const SpatialLevel& sl = spatial_stack_[k];
      if (sl.count <= 1) continue;
      OpBoxes moved = boxes;
      for (size_t o = 0; o < moved.size(); ++o)
        for (size_t d = 0; d < moved.dims(); ++d) {
          moved[o][d].first += sl.delta[o][d].first;
          moved[o][d].second += sl.delta[o][d].first;
        }
      MultiSlice next = slice_of(node, tensor, moved);
      if (next.parts.size() != now.parts.size()) continue;
      int axis = -1;
      int64_t step = 0;
      for (size_t part = 0; part < now.parts.size(); ++part)
        for (size_t j = 0; j < now.parts[part].size(); ++j) {
          int64_t d = next.parts[part][j].lo() - now.parts[part][j].lo();
          if (d == 0) continue;
          if (axis >= 0 && (axis != static_cast<int>(j) || step != d)) {
            problem(f_.nodes[static_cast<size_t>(node)].loc,
                    "'" + w_.tensors[static_cast<size_t>(tensor)].name +
                        "' is read along different dimensions by the ops of one tile; spatial loops over it are not supported");
            return false;
          }
          axis = static_cast<int>(j), step = d;
        }
      if (axis >= 0) spreads.emplace_back(static_cast<size_t>(axis), step, sl.count);
    }
    return true;
  }

  // The pipeline is empty at the start and drains at the end: the first loads and the last
  // store overlap nothing.
  double cycles_of(const Time& t) const {
    return instructions_.decoupled() ? t.cycles_decoupled(first_loads_, after_last_load_, last_store_, last_store_port_)
                                     : t.latency + first_loads_ + last_store_;
  }

  bool inside(int node, int root) const {
    return node >= root && node < subtree_end_[static_cast<size_t>(root)];
  }

  // Seq: the next sibling owns the memory; what it does not use of the others' data is dropped.
  void drop_for_sibling(int seq_node, int next_child) {
    for (auto& s : streams_) {
      if (s.resident.empty() || s.owner == seq_node || !inside(s.owner, seq_node) ||
          inside(s.owner, next_child))
        continue;
      bool used_next = false;
      for (int o : s.owners) used_next |= inside(o, next_child);
      if (used_next) continue;
      if (!contexts_.within(s.inst_ctx, inst_ctx_)) continue;
      add_occupancy(s.level, s.tensor, s.inst_ctx, -s.resident.size());
      s.resident = MultiSlice();
      s.dropped = true;
    }
  }

  void problem(const SourceLoc& loc, const std::string& msg) {
    for (const auto& pr : r_.problems)
      if (pr.message == msg) return;
    r_.problems.push_back({loc, msg});
  }

  MultiSlice slice_of(int node, int tensor, const OpBoxes& boxes) const {
    MultiSlice s;
    for (size_t o = 0; o < w_.ops.size(); ++o) {
      if (!p_.ops_below[static_cast<size_t>(node)][o]) continue;
      const Op& op = w_.ops[o];
      if (op.out.tensor == tensor) s.add(access_slice(op.out, boxes[o]));
      for (const auto& in : op.inputs)
        if (in.tensor == tensor) s.add(access_slice(in, boxes[o]));
    }
    return s;
  }

  void add_occupancy(int level, int tensor, int inst, int64_t delta) {
    const uint64_t key = (static_cast<uint64_t>(inst) << 24) | (static_cast<uint64_t>(level) << 16);
    int64_t& lv = level_occupancy_[key];
    lv += delta;
    r_.level_peak_elems[static_cast<size_t>(level)] =
        std::max(r_.level_peak_elems[static_cast<size_t>(level)], lv);
    int64_t& tv = occupancy_[key | static_cast<uint64_t>(tensor)];
    tv += delta;
    auto& peak = r_.peak_elems[static_cast<size_t>(level)][static_cast<size_t>(tensor)];
    peak = std::max(peak, tv);
  }

  // The source side of a transfer: `n` elements (weighted, instances merged) read from the
  // source level, or written back to it; staged through the common ancestor when there is no path.
  void charge_source(int tensor, int source, int level, bool write, int64_t n) {
    auto& src = r_.traffic[static_cast<size_t>(source)][static_cast<size_t>(tensor)];
    (write ? src.update : src.read) += n;
    if (a_.has_direct_path(source, level)) return;
    int via = a_.lowest_common_ancestor(source, level);
    if (via == source || via == level) return;
    auto& mid = r_.traffic[static_cast<size_t>(via)][static_cast<size_t>(tensor)];
    mid.update += n;
    mid.read += n;
  }

  int stream_for(int node, int tensor) {
    const auto& tp = p_.tensors[static_cast<size_t>(tensor)];
    const size_t n = static_cast<size_t>(node);
    // A buffer: one tensor at one level, filled from one source level, in one role, instance and
    // partition.
    const uint64_t key = static_cast<uint64_t>(tensor) | (static_cast<uint64_t>(tp.level[n]) << 12) |
                         (static_cast<uint64_t>(tp.source[n]) << 18) | (static_cast<uint64_t>(tp.writes[n]) << 24) |
                         (static_cast<uint64_t>(inst_ctx_) << 25) | (static_cast<uint64_t>(part_ctx_) << 45);
    auto [it, fresh] = stream_ids_.emplace(key, static_cast<int>(streams_.size()));
    if (!fresh) return it->second;
    Stream s;
    s.tensor = tensor;
    s.level = tp.level[n];
    s.owner = node;
    s.source = tp.source[n];
    s.write = tp.writes[n];
    s.instance_weight = instance_weight_;
    s.inst_ctx = inst_ctx_;
    streams_.push_back(std::move(s));
    return it->second;
  }

  // One activation's transfer time, as a load or a store, and its time on the chip's one DRAM
  // port (loads and stores share it).
  struct Moved {
    double load = 0, store = 0, port = 0;
  };

  // One activation of an owner: the buffer takes its new slice.
  Moved activate(int node, int tensor, const OpBoxes& boxes, int64_t weight) {
    int id = stream_for(node, tensor);
    Stream& s = streams_[static_cast<size_t>(id)];
    if (std::find(s.owners.begin(), s.owners.end(), node) == s.owners.end()) s.owners.push_back(node);
    s.owner = node;  // the snapshot below belongs to this node's subtree
    MultiSlice now = slice_of(node, tensor, boxes);
    const int64_t fresh = now.minus_size(s.resident);
    const size_t prefix = static_cast<size_t>(mc_prefix_[static_cast<size_t>(node)][static_cast<size_t>(tensor)]);
    int64_t merged = 1;
    for (size_t k = prefix; k < spatial_stack_.size(); ++k) merged *= spatial_stack_[k].count;
    // Instances fed from one source buffer: with multicast the source sends what they need
    // together once; without it, each its own copy (they still share the source's bandwidth).
    const bool multicast = a_.levels[static_cast<size_t>(s.source)].multicast;
    if (multicast && merged > 1 && s.spreads_owner != node && !now.empty()) {
      if (!spreads_for(node, tensor, boxes, now, prefix, s.spreads)) return {};
      s.spreads_owner = node;
    }
    const int64_t shared = merged == 1 ? fresh : multicast ? merged_fresh(now, s.resident, fresh, s.spreads) : fresh * merged;
    const int64_t source_weight = weight / merged;
    add_occupancy(s.level, tensor, s.inst_ctx, now.size() - s.resident.size());
    s.mc_count = multicast ? merged : 1;
    if (s.write) {
      s.write_entries += fresh * weight;
      s.mc_write_entries += shared * source_weight;
      if (!now.empty()) add_cover(id, now.parts.front());
    } else {
      r_.traffic[static_cast<size_t>(s.level)][static_cast<size_t>(tensor)].fill += fresh * weight;
    }
    charge_source(tensor, s.source, s.level, s.write, shared * source_weight);
    s.resident = std::move(now);
    s.snapshot = boxes;
    s.dropped = false;
    if (representing_) touched_.push_back(id);
    const MultiSlice& held = s.resident;
    const int64_t row = held.empty() || held.parts.front().empty() ? 1 : held.parts.front().back().size();
    const TransferTime moved = transfer_time(a_, s.source, s.level, s.write, row, fresh, shared);
    const double t = moved.cycles, port = moved.port;
    if (!s.write && !computed_) first_loads_ += t;
    if (!s.write && fresh > 0 && a_.addressable(s.level)) after_last_load_ = 0;
    Moved m;
    (s.write ? m.store : m.load) = t;
    m.port = port;
    return m;
  }

  void add_cover(int id, const Slice& part) {
    Stream& s = streams_[static_cast<size_t>(id)];
    if (s.cover.empty()) s.cover.assign(part.size(), IndexSet());
    for (size_t j = 0; j < part.size(); ++j) s.cover[j] = s.cover[j].united(part[j]);
    if (representing_) cover_log_.push_back({id, part});
  }

  // Streams touched since `mark` stand for `extra` more identical iterations: move them on, and
  // count what those iterations wrote as written.
  void translate_since(size_t mark, size_t cover_mark, const OpBoxes& delta, int64_t extra) {
    std::vector<int> ids(touched_.begin() + static_cast<long>(mark), touched_.end());
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    // Per write stream: what the representative iteration wrote (few streams: a flat list).
    std::vector<std::pair<int, Slice>> written;
    for (size_t i = cover_mark; i < cover_log_.size(); ++i) {
      const auto& [id, part] = cover_log_[i];
      auto at = std::find_if(written.begin(), written.end(), [&](const auto& e) { return e.first == id; });
      if (at == written.end()) written.emplace_back(id, part);
      else for (size_t j = 0; j < part.size(); ++j) at->second[j] = at->second[j].united(part[j]);
    }
    for (int id : ids) {
      Stream& s = streams_[static_cast<size_t>(id)];
      auto shift_boxes = [&](int64_t k) {
        for (size_t o = 0; o < s.snapshot.size(); ++o)
          for (size_t d = 0; d < s.snapshot.dims(); ++d) {
            s.snapshot[o][d].first += k * delta[o][d].first;
            s.snapshot[o][d].second += k * delta[o][d].first;
          }
      };
      auto it = std::find_if(written.begin(), written.end(), [&](const auto& e) { return e.first == id; });
      if (s.write && it != written.end()) extend_cover(s, id, it->second, extra, shift_boxes);
      else shift_boxes(extra);
      if (s.dropped) continue;
      // `resident` is the slice of the old snapshot; moved boxes move it, unless the accesses
      // below the owner move apart (then it is recomputed).
      if (uniform_shift(s.owner, s.tensor, delta, extra, shift_)) s.resident.shift(shift_);
      else s.resident = slice_of(s.owner, s.tensor, s.snapshot);
    }
  }

  // How tensor t's slice below `node` moves when every op's box moves by k·delta: an affine
  // index of a translated box is the index translated by Σ coef·k·delta. True (and `shift` per
  // tensor dimension) when every access of t below `node` moves alike.
  bool uniform_shift(int node, int tensor, const OpBoxes& delta, int64_t k, std::vector<int64_t>& shift) const {
    bool first = true;
    for (size_t o = 0; o < w_.ops.size(); ++o) {
      if (!p_.ops_below[static_cast<size_t>(node)][o]) continue;
      const Op& op = w_.ops[o];
      auto take = [&](const TensorAccess& acc) {
        if (acc.tensor != tensor) return true;
        if (first) shift.assign(acc.index.size(), 0);
        for (size_t j = 0; j < acc.index.size(); ++j) {
          int64_t by = 0;
          for (const auto& term : acc.index[j].terms) by += term.coef * k * delta[o][static_cast<size_t>(term.dim)].first;
          if (!first && shift[j] != by) return false;
          shift[j] = by;
        }
        first = false;
        return true;
      };
      if (!take(op.out)) return false;
      for (const auto& in : op.inputs)
        if (!take(in)) return false;
    }
    return !first;
  }

  // A write stream's cover over the `extra` iterations: what the representative wrote, repeated
  // at the step its slice moves by. Leaves the snapshot moved on by `extra` steps.
  template <class Shift>
  void extend_cover(Stream& s, int id, const Slice& wrote, int64_t extra, Shift shift_boxes) {
    const MultiSlice before = slice_of(s.owner, s.tensor, s.snapshot);
    shift_boxes(1);
    const MultiSlice one = slice_of(s.owner, s.tensor, s.snapshot);
    shift_boxes(extra - 1);
    if (before.empty() || one.empty()) return;
    Slice added = wrote;
    const Slice& a0 = before.parts.front();
    const Slice& a1 = one.parts.front();
    for (size_t j = 0; j < added.size(); ++j) {
      int64_t step = a1[j].lo() - a0[j].lo();
      if (step != 0) added[j] = added[j].united(added[j].with_translates(step, 1, extra));
    }
    add_cover(id, added);
  }

  // Refills of partial sums: every write entry but the first of each element is one. Per
  // instance at the buffer; instances merged at the source.
  void finish_write_streams() {
    for (const auto& s : streams_) {
      if (!s.write || s.cover.empty()) continue;
      const int64_t distinct = slice_size(s.cover) * s.instance_weight;
      r_.traffic[static_cast<size_t>(s.level)][static_cast<size_t>(s.tensor)].fill += s.write_entries - distinct;
      Slice merged_cover = s.cover;
      for (const auto& [axis, step, count] : s.spreads) merged_cover[axis] = spread_set(merged_cover[axis], step, count);
      const int64_t merged_distinct = slice_size(merged_cover) * (s.instance_weight / s.mc_count);
      const int64_t refills = s.mc_write_entries - merged_distinct;
      charge_source(s.tensor, s.source, s.level, false, refills);
    }
  }

  Time visit_leaf(int node, const OpBoxes& boxes, int64_t weight) {
    const TreeNode& n = f_.nodes[static_cast<size_t>(node)];
    const Op& op = w_.ops[static_cast<size_t>(n.op)];
    int64_t points = 1;
    for (int d : op.dims) {
      const Range& r = boxes[static_cast<size_t>(n.op)][static_cast<size_t>(d)];
      points *= r.second - r.first;
    }
    (op.unit == arch::UnitKind::Matrix ? r_.macs : r_.vector_ops) += points * op.ops_per_point * weight;
    computed_ = true;
    for (const auto& in : op.inputs) {
      int lv = p_.tensors[static_cast<size_t>(in.tensor)].level[static_cast<size_t>(node)];
      r_.traffic[static_cast<size_t>(lv)][static_cast<size_t>(in.tensor)].read += points * weight;
    }
    int lv = p_.tensors[static_cast<size_t>(op.out.tensor)].level[static_cast<size_t>(node)];
    r_.traffic[static_cast<size_t>(lv)][static_cast<size_t>(op.out.tensor)].update += points * weight;
    return Time::on_unit(op.unit, static_cast<double>(points * op.ops_per_point));
  }

  Time visit(int node, const OpBoxes& boxes, int64_t weight) {
    const TreeNode& n = f_.nodes[static_cast<size_t>(node)];
    if (n.is_leaf) return visit_leaf(node, boxes, weight);
    double load = 0, store = 0, moved_in = 0, moved_out = 0, port = 0, store_port = 0;
    for (size_t t = 0; t < w_.tensors.size(); ++t) {
      if (!p_.tensors[t].owner[static_cast<size_t>(node)]) continue;
      const Moved m = activate(node, static_cast<int>(t), boxes, weight);
      load += m.load, store += m.store, port += m.port;
      if (m.store > 0) store_port += m.port;
      if (a_.addressable(p_.tensors[t].level[static_cast<size_t>(node)])) moved_in += m.load, moved_out += m.store;
    }
    OpBoxes local = boxes;
    Time inner = loops(node, 0, local, weight);
    if (instructions_.times(node)) {
      const Time blocked = instructions_.time(node, boxes);
      after_last_load_ += blocked.compute;
      if (instructions_.only(node)) inner = blocked;
      else inner.beside(blocked);
    }
    if (store > 0) last_store_ = store, last_store_port_ = store_port;
    Time t = inner;
    t.latency = std::max({load, inner.latency, store});
    t.compute = std::max({load - moved_in, inner.compute, store - moved_out});
    t.in += moved_in, t.out += moved_out, t.port += port;
    return t;
  }

  Time children(int node, const OpBoxes& boxes, int64_t weight) {
    const TreeNode& n = f_.nodes[static_cast<size_t>(node)];
    // An intermediate whose fusion point is this tile lives at its home while the children run.
    std::vector<std::pair<int, int64_t>> homes;
    for (size_t t = 0; t < w_.tensors.size(); ++t) {
      const auto& tp = p_.tensors[t];
      if (!w_.tensors[t].is_intermediate() || tp.region != node) continue;
      const Op& prod = w_.ops[static_cast<size_t>(w_.tensors[t].producer)];
      int64_t elems = slice_size(access_slice(prod.out, boxes[static_cast<size_t>(w_.tensors[t].producer)]));
      add_occupancy(tp.home, static_cast<int>(t), inst_ctx_, elems);
      homes.push_back({static_cast<int>(t), elems});
    }
    const bool split = (n.prim == Prim::Para || n.prim == Prim::Pipe) && n.children.size() > 1;
    const bool drop = n.prim == Prim::Seq && n.children.size() > 1;
    // Children in turn that hand an intermediate over through DRAM (or any level no program
    // addresses): each drains before the next starts.
    bool phases = false;
    for (size_t t = 0; drop && t < w_.tensors.size(); ++t)
      phases |= w_.tensors[t].is_intermediate() && p_.tensors[t].region == node && !a_.addressable(p_.tensors[t].home);
    Time total;
    for (size_t i = 0; i < n.children.size(); ++i) {
      if (drop) drop_for_sibling(node, n.children[i]);
      const int saved_part = part_ctx_;
      if (split) part_ctx_ = contexts_.enter(part_ctx_, static_cast<int64_t>(node) * 1024 + static_cast<int64_t>(i));
      const Time t = phases ? phase(n.children[i], boxes, weight) : visit(n.children[i], boxes, weight);
      part_ctx_ = saved_part;
      // Units that take whole instructions from in-order queues run the children of a Para or
      // Pipe in program order too (no stage of one is interleaved with another's).
      if (n.prim == Prim::Seq || n.prim == Prim::Shar || instructions_.decoupled()) total.then(t);
      else total.beside(t);
    }
    for (const auto& [t, elems] : homes)
      add_occupancy(p_.tensors[static_cast<size_t>(t)].home, t, inst_ctx_, -elems);
    return total;
  }

  // One child as a pipeline of its own: its first loads and its last store overlap nothing.
  Time phase(int child, const OpBoxes& boxes, int64_t weight) {
    const bool computed = computed_;
    const double first_loads = first_loads_;
    computed_ = false, first_loads_ = 0, last_store_ = 0, last_store_port_ = 0, after_last_load_ = 0;
    const double t = cycles_of(visit(child, boxes, weight));
    computed_ = computed || computed_, first_loads_ = first_loads, last_store_ = 0, last_store_port_ = 0, after_last_load_ = 0;
    return Time::exclusive(t);
  }

  // Iterations of loop `li` and everything inside it. Returns the latency of one pass.
  Time loops(int node, size_t li, OpBoxes& boxes, int64_t weight) {
    const TreeNode& n = f_.nodes[static_cast<size_t>(node)];
    if (li == n.loops.size()) return children(node, boxes, weight);
    const Loop& loop = n.loops[li];
    const int64_t extent = index_.extent(node, loop.dim, boxes);
    if (extent <= 0) return loops(node, li + 1, boxes, weight);
    if (loop.factor > extent) {
      problem(loop.loc, "factor " + std::to_string(loop.factor) + " for '" +
                            w_.dims[static_cast<size_t>(loop.dim)].name + "' exceeds its extent " +
                            std::to_string(extent) + " here");
      return {};
    }
    const int64_t chunk = (extent + loop.factor - 1) / loop.factor;
    const int64_t trips = (extent + chunk - 1) / chunk;
    const int64_t last = extent - (trips - 1) * chunk;
    auto at = [&](int64_t i) {
      BoxPool::Lease b(pool_, boxes);
      index_.restrict(node, loop.dim, i * chunk, i * chunk + chunk, *b);
      return b;
    };
    if (loop.spatial) {
      if (!spatial_split_ok(node, li, extent, chunk, last)) return {};
      return spatial(node, li, weight, trips, at);
    }
    // Temporal: first iteration, then the identical middle ones once with a weight, then a
    // partial last one. Fusion can clip a producer's box near an edge; then the middle
    // iterations are not alike and each is visited (exact, but no longer shape-only in cost).
    const int64_t full = last == chunk ? trips : trips - 1;
    Time latency, one;
    if (full >= 1) {
      BoxPool::Lease b0 = at(0);
      one = loops(node, li + 1, *b0, weight);
      latency.next_iteration(one);
    }
    if (full >= 2) {
      const int64_t middle = full - 1;
      BoxPool::Lease b1 = at(1);
      if (middle == 1) {
        latency.next_iteration(loops(node, li + 1, *b1, weight));
      } else if (!evenly_spaced(*b1, *at(2), *at(full - 1), full - 2)) {
        for (int64_t i = 1; i < full; ++i) {
          BoxPool::Lease bi = at(i);
          latency.next_iteration(loops(node, li + 1, *bi, weight));
        }
      } else {
        size_t mark = touched_.size(), cover_mark = cover_log_.size();
        ++representing_;
        latency.next_iteration(loops(node, li + 1, *b1, weight * middle).times(static_cast<double>(middle)));
        --representing_;
        BoxPool::Lease b2 = at(2), delta(pool_, *b2);
        for (size_t o = 0; o < (*delta).size(); ++o)
          for (size_t d = 0; d < (*delta).dims(); ++d) (*delta)[o][d].first = (*b2)[o][d].first - (*b1)[o][d].first;
        translate_since(mark, cover_mark, *delta, middle - 1);
        if (!representing_) touched_.clear(), cover_log_.clear();
      }
    }
    if (full < trips) {
      BoxPool::Lease bl = at(trips - 1);
      latency.next_iteration(loops(node, li + 1, *bl, weight));
    }
    latency.pipeline_iterations(one);
    return latency;
  }

  // Spatial loops must split the same extent evenly every time they run: instances are hardware
  // and each must do the same work on the same shape.
  bool spatial_split_ok(int node, size_t li, int64_t extent, int64_t chunk, int64_t last) {
    const Loop& loop = f_.nodes[static_cast<size_t>(node)].loops[li];
    auto [it, fresh] = spatial_extent_.insert({{node, li}, extent});
    const std::string dim = w_.dims[static_cast<size_t>(loop.dim)].name;
    if (last != chunk) {
      problem(loop.loc, "spatial loop " + dim + ":" + std::to_string(loop.factor) + " splits extent " +
                            std::to_string(extent) + " unevenly; spatial factors must divide their extent");
      return false;
    }
    if (!fresh && it->second != extent) {
      problem(loop.loc, "spatial loop " + dim + ":" + std::to_string(loop.factor) + " sees extent " +
                            std::to_string(it->second) + " in one step and " + std::to_string(extent) +
                            " in another (a partial tile above it); spatial loops need the same extent every step");
      return false;
    }
    return true;
  }

  template <class At>
  Time spatial(int node, size_t li, int64_t weight, int64_t trips, At at) {
    // Instances run side by side and are alike, so one stands for all of them. That needs the
    // same even split in every step (checked in loops()).
    Time latency;
    const int64_t saved_weight = instance_weight_;
    BoxPool::Lease b = at(0);
    SpatialLevel level{trips, *b};
    level.delta.fill({0, 0});
    if (trips > 1) {
      BoxPool::Lease b1 = at(1);
      for (size_t o = 0; o < (*b1).size(); ++o)
        for (size_t d = 0; d < (*b1).dims(); ++d) level.delta[o][d].first = (*b1)[o][d].first - (*b)[o][d].first;
    }
    spatial_stack_.push_back(level);
    const int saved_inst = inst_ctx_;
    inst_ctx_ = contexts_.enter(inst_ctx_, static_cast<int64_t>(node) * 4096 + static_cast<int64_t>(li));
    instance_weight_ = saved_weight * trips;
    latency = loops(node, li + 1, *b, weight * trips);
    inst_ctx_ = saved_inst;
    spatial_stack_.pop_back();
    instance_weight_ = saved_weight;
    return latency;
  }
};

}  // namespace

WalkResult walk_tree(const arch::Arch& a, const Workload& w, const Dataflow& f, const Placement& p) {
  return Walker(a, w, f, p).run();
}

}  // namespace dfx::model
