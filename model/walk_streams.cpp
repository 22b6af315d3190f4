// The fast walk's buffers: what each holds after its last activation, what an activation
// moves and from where, and how representative iterations stand for the identical ones.
#include <algorithm>
#include <optional>
#include <string>

#include "model/transfer_time.h"
#include "model/walker.h"

namespace dfx::model {

const std::vector<int>& StagingLevels::between(const arch::Arch& a, int from, int to) {
  const size_t levels = a.levels.size(), k = static_cast<size_t>(from) * levels + static_cast<size_t>(to);
  if (known_.empty()) known_.assign(levels * levels, std::nullopt);
  if (!known_[k]) known_[k] = a.staging_levels(from, to);
  return *known_[k];
}

template <class Held>
bool Walker<Held>::spreads_for(int node, int tensor, const OpBoxes& boxes, const Held& now, size_t prefix,
                         Spreads& spreads) {
  spreads.clear();
  for (size_t k = prefix; k < spatial_stack_.size(); ++k) {
    const SpatialLevel& sl = spatial_stack_[k];
    if (sl.count <= 1) continue;
    BoxPool::Lease lease(pool_, boxes);
    OpBoxes& moved = *lease;
    moved.move_by(sl.delta);
    Held next = slice_of(node, tensor, moved);
    // A spread stands for the instances' slices only where each is the first one moved along
    // one axis: every part by the same step. A tensor read along different dims (A[m,k] and
    // A[n,k], or A[m,n] and A[n,m], under a spatial loop over m) has parts that move apart, or
    // that meet in one instance and not in the next: its instances read slices of different
    // shapes, which the spread would count as the first one's, below the tensor's own size.
    bool alike = parts_of(next) == parts_of(now);
    int axis = -1;
    int64_t step = 0;
    for (size_t part = 0; part < parts_of(now) && alike; ++part) {
      int part_axis = -1;
      int64_t part_step = 0;
      for (size_t j = 0; j < part_rank(now, part) && alike; ++j) {
        const int64_t d = part_lo(next, part, j) - part_lo(now, part, j);
        if (d == 0) continue;
        alike = part_axis < 0;
        part_axis = static_cast<int>(j), part_step = d;
      }
      if (part > 0) alike = alike && part_axis == axis && part_step == step;
      axis = part_axis, step = part_step;
    }
    if (!alike) {
      read_apart_problem(node, tensor, sl);
      return false;
    }
    if (axis >= 0) spreads.emplace_back(static_cast<size_t>(axis), step, sl.count);
  }
  return true;
}

template <class Held>
void Walker<Held>::drop_for_sibling(int seq_node, int next_child) {
  for (size_t i = 0; i < streams_.size(); ++i) {
    Stream<Held>& s = streams_[i];
    if (s.resident.empty() || s.owner == seq_node || !inside(s.owner, seq_node) ||
        inside(s.owner, next_child))
      continue;
    bool used_next = false;
    for (int o : s.owners) used_next |= inside(o, next_child);
    if (used_next) continue;
    if (!contexts_.within(s.inst_ctx, inst_ctx_)) continue;
    const int id = static_cast<int>(i);
    note_change(id);
    add_occupancy(s.level, s.tensor, s.inst_ctx, -s.resident.size());
    s.resident = Held();
    s.dropped = true;
  }
}

template <class Held>
void Walker<Held>::add_occupancy(int level, int tensor, int inst, int64_t delta) {
  const uint64_t key = occupancy_key(inst, level);
  int64_t* row = occupancy_row(static_cast<size_t>(inst), static_cast<size_t>(level));
  int64_t& lv = row[w_.tensors.size()];
  if (!recorders_.empty()) note_occupancy(key, level, -1, lv, lv + delta);
  lv += delta;
  r_.level_peak_elems[static_cast<size_t>(level)] =
      std::max(r_.level_peak_elems[static_cast<size_t>(level)], lv);
  int64_t& tv = row[tensor];
  if (!recorders_.empty()) note_occupancy(key | static_cast<uint64_t>(tensor), level, tensor, tv, tv + delta);
  tv += delta;
  auto& peak = r_.peak_elems[static_cast<size_t>(level)][static_cast<size_t>(tensor)];
  peak = std::max(peak, tv);
}

template <class Held>
void Walker<Held>::charge_source(int tensor, int source, int level, bool write, int64_t n) {
  model::charge_source(r_, a_, staging_, tensor, source, level, write, n);
}

template <class Held>
int Walker<Held>::stream_for(int node, int tensor) {
  const auto& tp = p_.tensors[static_cast<size_t>(tensor)];
  const size_t n = static_cast<size_t>(node);
  // A buffer: one tensor at one level, filled from one source level, in one role (its class),
  // instance and partition.
  ClassStreams& made = class_streams_[static_cast<size_t>(buffer_class_[n * w_.tensors.size() + static_cast<size_t>(tensor)])];
  for (const auto& [inst, part, id] : made)
    if (inst == inst_ctx_ && part == part_ctx_) return id;
  const int id = static_cast<int>(streams_.size());
  made.push_back({inst_ctx_, part_ctx_, id});
  Stream<Held>& s = streams_.add();
  s.tensor = tensor;
  s.level = tp.level[n];
  s.owner = node;
  s.source = tp.source[n];
  s.write = tp.writes[n];
  s.instance_weight = instance_weight_;
  s.inst_ctx = inst_ctx_;
  return id;
}

template <class Held>
typename Walker<Held>::Moved Walker<Held>::activate(int node, int tensor, const OpBoxes& boxes, int64_t weight) {
  int id = stream_for(node, tensor);
  note_change(id);
  Stream<Held>& s = streams_[static_cast<size_t>(id)];
  if (recording_from_ != kNotRecording && static_cast<size_t>(id) < recording_from_ && (s.write || !s.resident.empty()))
    entangled_ = true, ++entangles_;
  if (std::find(s.owners.begin(), s.owners.end(), node) == s.owners.end()) s.owners.push_back(node);
  s.owner = node;  // the snapshot below belongs to this node's subtree
  if (const int k = moves_apart(node, tensor); k >= 0) read_apart_problem(node, tensor, spatial_stack_[static_cast<size_t>(k)]);
  Held now = slice_of(node, tensor, boxes);
  const int64_t fresh = now.minus_size(s.resident);
  const size_t prefix = static_cast<size_t>(mc_prefix_[static_cast<size_t>(node) * w_.tensors.size() + static_cast<size_t>(tensor)]);
  int64_t merged = 1;
  for (size_t k = prefix; k < spatial_stack_.size(); ++k) merged *= spatial_stack_[k].count;
  // Instances fed from one source buffer: with multicast the source sends what they need
  // together once; without it, each its own copy (they still share the source's bandwidth).
  const bool multicast = a_.levels[static_cast<size_t>(s.source)].multicast;
  if (multicast && merged > 1 && s.spreads_owner != node && !now.empty()) {
    // A spread that cannot stand for the instances is a problem (the tree is invalid); the walk
    // goes on with none, so that the buffer's state stays whole for what follows (a stream left
    // without its boxes crashed a later translation).
    if (!spreads_for(node, tensor, boxes, now, prefix, s.spreads)) s.spreads.clear();
    s.spreads_owner = node;
  }
  const bool over_passes = passes_ && prefix <= passes_->level;
  const int64_t shared = multicast && !s.write && sent_by_an_earlier_run(tensor, prefix) ? 0
                         : multicast && over_passes ? sent_over_passes(node, tensor, id, now, merged, fresh)
                         : merged == 1            ? fresh
                         : multicast              ? merged_fresh(now, s.resident, fresh, s.spreads)
                                                  : fresh * merged;
  const int64_t source_weight = weight / merged;
  // A written buffer whose slice a loop around has revisited (one over a dim that does not index
  // it, past its first step) takes back the partial sums of what enters: loaded as a read
  // buffer's fills are. They are counted once the walk ends (finish_write_streams).
  const uint64_t unindexing = s.write ? ~indexed_by(node, tensor) : 0;
  const bool takes_back = fresh > 0 && (past_first_ & unindexing) != 0;
  for (auto* rec : recorders_) rec->unindexing_written |= unindexing;
  add_occupancy(s.level, tensor, s.inst_ctx, now.size() - s.resident.size());
  s.mc_count = multicast ? merged : 1;
  if (s.write) {
    s.write_entries += fresh * weight;
    s.mc_write_entries += shared * source_weight;
    if (!now.empty()) add_cover(id, first_part(now));
  } else {
    r_.traffic[static_cast<size_t>(s.level)][static_cast<size_t>(tensor)].fill += fresh * weight;
  }
  charge_source(tensor, s.source, s.level, s.write, shared * source_weight);
  s.resident = std::move(now);
  s.snapshot = boxes;
  s.dropped = false;
  if (representing_) touched_.push_back(id);
  const int64_t row = row_of(s.resident);
  // Timed at the two ends (a staged transfer's hops are not timed: docs/semantics.md).
  const TransferTime moved = transfer_time(a_, s.source, s.level, s.write, row, fresh, shared);
  Moved m;
  (s.write ? m.store : m.load) = moved.cycles;
  (s.write ? m.store_port : m.load_port) = moved.port;
  m.colliding_wait = moved.colliding_wait;
  if (takes_back) {
    // What enters comes back from the sources, merged over the instances as the store is.
    const TransferTime back = transfer_time(a_, s.source, s.level, false, row, fresh, shared);
    m.load = back.cycles, m.load_port = back.port;
  }
  if (!computed_) first_loads_ += m.load;
  if ((!s.write && fresh > 0) || takes_back)
    if (a_.addressable(s.level)) after_last_load_ = 0, ++load_resets_;
  return m;
}

template <class Held>
uint64_t Walker<Held>::indexed_by(int node, int tensor) {
  uint64_t& dims = indexed_by_[static_cast<size_t>(node) * w_.tensors.size() + static_cast<size_t>(tensor)];
  if (dims == kNotKnown) {
    dims = 0;
    for (const BufferAccesses::Access& a : accesses_.of(node, tensor))
      for (const auto& ix : a.access->index)
        for (const auto& term : ix.terms) dims |= term.dim < 64 ? uint64_t{1} << term.dim : 0;
  }
  return dims;
}

template <class Held>
int64_t Walker<Held>::sent_over_passes(int node, int tensor, int id, const Held& now, int64_t merged, int64_t fresh) {
  Stream<Held>& s = streams_[static_cast<size_t>(id)];
  auto found = std::find_if(passes_->sent.begin(), passes_->sent.end(), [&](const auto& e) { return e.node == node && e.tensor == tensor; });
  typename Passes::Sent* earlier = found == passes_->sent.end() ? nullptr : &*found;
  if (fresh > 0)
    if (const int64_t n = sent_apart(earlier, node, tensor, id, now, merged); n >= 0) return n;
  // Nothing new (most activations: a slice the buffer holds already) sends nothing.
  Region sent = fresh == 0 ? Region() : difference(now, s.resident);
  if (merged > 1 && fresh > 0)
    for (const auto& [axis, step, count] : s.spreads) sent.spread(axis, step, count);
  if (!earlier) {  // the first pass to activate this buffer
    const int64_t n = sent.size();
    passes_->sent.push_back({node, tensor, {id}, std::move(sent), {}});
    return n;
  }
  s.twins = earlier->streams;
  earlier->streams.push_back(id);
  if (fresh == 0) return 0;
  earlier->fold();
  const int64_t n = sent.size_outside(earlier->region);
  earlier->region.unite(sent);
  return n;
}

// A send that is a spread box: the first run's as it is; a later run's nothing where an earlier
// run sent the same, all of it where it is apart from everything sent before. Else -1 (regions).
template <class Held>
int64_t Walker<Held>::sent_apart(typename Passes::Sent* earlier, int node, int tensor, int id, const Held& now, int64_t merged) {
  if constexpr (!std::is_same_v<Held, Boxes>) {
    return -1;
  } else {
    Stream<Held>& s = streams_[static_cast<size_t>(id)];
    const std::optional<SpreadBox> sent = spread_apart(now, s.resident, s.spreads, merged > 1);
    if (!sent) return -1;
    if (!earlier) {
      passes_->sent.push_back({node, tensor, {id}, Region(), {*sent}});
      return sent->size();
    }
    if (!earlier->region.empty()) return -1;
    bool same = false, apart = true;
    for (const SpreadBox& b : earlier->spread) same = same || b == *sent, apart = apart && b.apart_from(*sent);
    if (!same && !apart) return -1;
    s.twins = earlier->streams;
    earlier->streams.push_back(id);
    if (same) return 0;
    earlier->spread.push_back(*sent);
    return sent->size();
  }
}

template <class Held>
void Walker<Held>::add_cover(int id, const Slice& part) {
  Stream<Held>& s = streams_[static_cast<size_t>(id)];
  if (s.cover.empty()) s.cover.assign(part.size(), IndexSet());
  unite_per_dim(s.cover, part);
  if (representing_) cover_log_.push_back({id, part});
  // A cover is a set per dimension: a step's parts for one stream are kept united (replay()
  // adds one entry per stream).
  for (auto* rec : recorders_) unite_by_stream(rec->covers, id, part);
}

template <class Held>
void Walker<Held>::translate_since(size_t mark, size_t cover_mark, const OpBoxes& delta, int64_t extra) {
  // Scratch kept across calls (nested representatives reach here once per loop step): no
  // allocation per call.
  std::vector<int>& ids = translate_ids_;
  ids.assign(touched_.begin() + static_cast<long>(mark), touched_.end());
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  // Per write stream: what the representative iteration wrote (few streams: a flat list).
  std::vector<std::pair<int, Slice>>& written = written_;
  written.clear();
  for (size_t i = cover_mark; i < cover_log_.size(); ++i) unite_by_stream(written, cover_log_[i].first, cover_log_[i].second);
  for (int id : ids) {
    Stream<Held>& s = streams_[static_cast<size_t>(id)];
    // A snapshot is read only through the accesses below its owner (slice_of, and replay's
    // check): the other ops' boxes in it are not moved. An op's accesses are listed together,
    // and an op that reads the tensor twice moves once.
    auto shift_boxes = [&](int64_t k) {
      int moved = -1;
      for (const BufferAccesses::Access& a : accesses_.of(s.owner, s.tensor))
        if (a.op != moved) s.snapshot.move_op_by(static_cast<size_t>(a.op), delta, k), moved = a.op;
    };
    auto it = std::find_if(written.begin(), written.end(), [&](const auto& e) { return e.first == id; });
    if (s.write && it != written.end()) extend_cover(s, id, it->second, delta, extra, shift_boxes);
    else shift_boxes(extra);
    if (s.dropped) continue;
    // `resident` is the slice of the old snapshot; moved boxes move it, unless the accesses
    // below the owner move apart (then it is recomputed).
    if (uniform_shift(s.owner, s.tensor, delta, extra, shift_)) s.resident.shift(shift_);
    else s.resident = slice_of(s.owner, s.tensor, s.snapshot);
  }
}

template <class Held>
void Walker<Held>::read_apart_problem(int node, int tensor, const SpatialLevel& sl) {
  const Loop& l = f_.nodes[static_cast<size_t>(sl.node)].loops[sl.li];
  const std::string& t = w_.tensors[static_cast<size_t>(tensor)].name;
  // Trees the search builds have no lines: their tile is named by its level.
  const TreeNode& tile = f_.nodes[static_cast<size_t>(node)];
  const std::string where = tile.loc.line > 0 ? "the tile at line " + std::to_string(tile.loc.line)
                                              : "the " + a_.levels[static_cast<size_t>(tile.levels.front())].name + " tile below it";
  problem(f_.loc_of(l), "this spatial loop over '" + w_.dims[static_cast<size_t>(l.dim)].name + "' gives its instances slices of '" + t +
                            "' of different shapes: " + where + " keeps one buffer of '" + t +
                            "', read along different dimensions below it; spatial loops over them are not supported");
}

template <class Held>
int Walker<Held>::moves_apart(int node, int tensor) const {
  const BufferAccesses::Accesses by = accesses_.of(node, tensor);
  if (by.end() - by.begin() < 2) return -1;  // one access: its slice moves as a whole
  for (size_t k = 0; k < spatial_stack_.size(); ++k) {
    const SpatialLevel& sl = spatial_stack_[k];
    // A run of one instance among several is refused too (the oracle's rule: instances of one
    // step alike), though the walk would take it apart: it keeps the rule one of the tree.
    const OpBoxes* move = sl.count > 1 ? &sl.delta : sl.several ? &sl.several_move : nullptr;
    if (move && !uniform_shift(node, tensor, *move, 1, apart_shift_)) return static_cast<int>(k);
  }
  return -1;
}

template <class Held>
bool Walker<Held>::moves_accesses_apart(int node, const OpBoxes& from, const OpBoxes& to) {
  std::optional<BoxPool::Lease> move;  // worked out at the first tensor read two ways below
  for (int t : accesses_.tensors_read_two_ways()) {
    const BufferAccesses::Accesses by = accesses_.of(node, t);
    if (by.end() - by.begin() < 2) continue;
    if (!move) move.emplace(pool_, to), (**move).assign_move(from, to);
    if (!uniform_shift(node, t, **move, 1, apart_shift_)) return true;
  }
  return false;
}

template <class Held>
bool Walker<Held>::uniform_shift(int node, int tensor, const OpBoxes& delta, int64_t k, std::vector<int64_t>& shift) const {
  bool first = true;
  for (const BufferAccesses::Access& a : accesses_.of(node, tensor)) {
    const TensorAccess& acc = *a.access;
    if (first) shift.assign(acc.index.size(), 0);
    for (size_t j = 0; j < acc.index.size(); ++j) {
      int64_t by = 0;
      for (const auto& term : acc.index[j].terms) by += term.coef * k * delta[static_cast<size_t>(a.op)][static_cast<size_t>(term.dim)].first;
      if (!first && shift[j] != by) return false;
      shift[j] = by;
    }
    first = false;
  }
  return !first;
}

template <class Held>
template <class Shift>
void Walker<Held>::extend_cover(Stream<Held>& s, int id, const Slice& wrote, const OpBoxes& delta, int64_t extra,
                                Shift shift_boxes) {
  const Held before = slice_of(s.owner, s.tensor, s.snapshot);
  // Where every access below the owner moves alike, the slice moves by what they move: one step's
  // slice need not be worked out to find it.
  std::vector<int64_t>& step = cover_step_;
  if (uniform_shift(s.owner, s.tensor, delta, 1, step)) {
    shift_boxes(extra);
  } else {
    shift_boxes(1);
    const Held one = slice_of(s.owner, s.tensor, s.snapshot);
    shift_boxes(extra - 1);
    if (before.empty() || one.empty()) return;
    step.resize(wrote.size());
    for (size_t j = 0; j < wrote.size(); ++j) step[j] = part_lo(one, 0, j) - part_lo(before, 0, j);
  }
  if (before.empty()) return;
  Slice added = wrote;
  for (size_t j = 0; j < added.size(); ++j)
    if (step[j] != 0) added[j].add_translates(step[j], extra);
  add_cover(id, added);
}

template <class Held>
void Walker<Held>::finish_write_streams(size_t from) {
  for (size_t i = from; i < streams_.size(); ++i) {
    Stream<Held>& s = streams_[i];
    if (s.finished) continue;
    s.finished = true;
    if (!s.write || s.cover.empty()) continue;
    const int64_t distinct = slice_size(s.cover) * s.instance_weight;
    r_.traffic[static_cast<size_t>(s.level)][static_cast<size_t>(s.tensor)].fill += s.write_entries - distinct;
    auto spread_cover = [](const Stream<Held>& x) {
      Slice c = x.cover;
      for (const auto& [axis, step, count] : x.spreads) c[axis] = spread_set(c[axis], step, count);
      return c;
    };
    const Slice merged_cover = spread_cover(s);
    int64_t merged_distinct = slice_size(merged_cover);
    // A later pass of a spatial loop: what the earlier passes wrote was counted with theirs.
    if (!s.twins.empty()) {
      Region before;
      for (int twin : s.twins)
        if (!streams_[static_cast<size_t>(twin)].cover.empty()) before.unite(Region::of(spread_cover(streams_[static_cast<size_t>(twin)])));
      merged_distinct = Region::of(merged_cover).size_outside(before);
    }
    merged_distinct *= s.instance_weight / s.mc_count;
    const int64_t refills = s.mc_write_entries - merged_distinct;
    charge_source(s.tensor, s.source, s.level, false, refills);
  }
}

template class Walker<MultiSlice>;
template class Walker<Boxes>;

}  // namespace dfx::model
