// Replayed steps (model/walk_replay.h): a representative step walked once under an enclosing
// loop's first step is replayed under its later ones, when every buffer it changes starts in the
// same state moved by the same boxes. Its counters scale with the weight, its buffers' states,
// covers and occupancies move with the boxes, and its time is the same.
#include <algorithm>

#include "model/walker.h"

namespace dfx::model {

void Tally::take(const WalkResult& r) {
  // Written in place (a recording takes two per step): no growth checks per entry.
  const size_t levels = r.traffic.size(), tensors = levels ? r.traffic[0].size() : 0;
  counts.resize(levels * tensors * 3 + 2 * levels + 2 + r.op_work.size());
  int64_t* c = counts.data();
  for (const auto& level : r.traffic)
    for (const Traffic& x : level) *c++ = x.fill, *c++ = x.read, *c++ = x.update;
  c = std::copy(r.feed_reads.begin(), r.feed_reads.end(), c);
  c = std::copy(r.feed_updates.begin(), r.feed_updates.end(), c);
  *c++ = r.macs;
  *c++ = r.vector_ops;
  std::copy(r.op_work.begin(), r.op_work.end(), c);
  cycles.resize(2 * r.op_cycles.size());
  std::copy(r.op_instruction_cycles.begin(), r.op_instruction_cycles.end(),
            std::copy(r.op_cycles.begin(), r.op_cycles.end(), cycles.begin()));
}

void TallyDelta::between(const Tally& before, const Tally& after) {
  counts.clear(), cycles.clear();
  counts.reserve(16), cycles.reserve(8);  // a step changes a few counters: one allocation, not several
  for (size_t i = 0; i < after.counts.size(); ++i)
    if (after.counts[i] != before.counts[i]) counts.push_back({i, after.counts[i] - before.counts[i]});
  for (size_t i = 0; i < after.cycles.size(); ++i)
    if (after.cycles[i] != before.cycles[i]) cycles.push_back({i, after.cycles[i] - before.cycles[i]});
}

void TallyDelta::add_to(WalkResult& r, int64_t k, double kd) const {
  const size_t levels = r.traffic.size(), tensors = levels ? r.traffic[0].size() : 0;
  const size_t traffic = levels * tensors * 3, feeds = traffic + 2 * levels, work = feeds + 2;
  for (const auto& [i, d] : counts) {
    int64_t* x = nullptr;
    if (i < traffic) {
      Traffic& t = r.traffic[i / (tensors * 3)][i / 3 % tensors];
      x = i % 3 == 0 ? &t.fill : i % 3 == 1 ? &t.read : &t.update;
    } else if (i < feeds) {
      x = i - traffic < levels ? &r.feed_reads[i - traffic] : &r.feed_updates[i - traffic - levels];
    } else if (i < work) {
      x = i == feeds ? &r.macs : &r.vector_ops;
    } else {
      x = &r.op_work[i - work];
    }
    *x += d * k;
  }
  const size_t ops = r.op_cycles.size();
  for (const auto& [i, d] : cycles) (i < ops ? r.op_cycles[i] : r.op_instruction_cycles[i - ops]) += d * kd;
}

// `now` is `then` with the boxes of the ops that access a buffer (what its slice is made of)
// moved by `delta` (starts in delta[o][d].first).
bool moved_by(const OpBoxes& now, const OpBoxes& then, const OpBoxes& delta, BufferAccesses::Accesses by) {
  if (now.size() != then.size() || now.dims() != then.dims()) return false;
  for (const BufferAccesses::Access& a : by) {
    const auto o = static_cast<size_t>(a.op);
    for (size_t d = 0; d < now.dims(); ++d)
      if (now[o][d].first != then[o][d].first + delta[o][d].first || now[o][d].second != then[o][d].second + delta[o][d].first)
        return false;
  }
  return true;
}

template <class Held>
StepRecording<Held>& Walker<Held>::recording(int node, size_t li, bool last) {
  int& slot = recording_slot_[2 * replay_places_.place(node, li) + (last ? 1 : 0)];
  if (slot < 0) slot = static_cast<int>(recordings_.size()), recordings_.add();
  return recordings_[static_cast<size_t>(slot)];
}

void replay_places(const Dataflow& f, bool everywhere, ReplayPlaces& out) {
  auto steps = [](const Loop& l) { return !l.spatial && l.factor > 1; };
  // Per node, filled in turn below: bottom-up, whether its subtree steps anywhere; then top-down,
  // whether a stepping loop sits at an ancestor. Kept by the thread: one walk's set-up each.
  std::vector<char>& per_node = walk_kept<std::vector<char>, 2>();
  per_node.assign(f.nodes.size(), 0);
  out.at.resize(f.nodes.size() + 1);
  out.at[0] = 0;
  for (size_t i = 0; i < f.nodes.size(); ++i) out.at[i + 1] = out.at[i] + static_cast<uint32_t>(f.nodes[i].loops.size() + 1);
  out.replay.assign(out.at.back(), 0);
  // Children come after their parent: bottom-up, whether a node's subtree steps anywhere.
  for (size_t i = f.nodes.size(); i-- > 0;) {
    const TreeNode& n = f.nodes[i];
    char* at = out.replay.data() + out.at[i];
    char below = 0;
    for (int c : n.children) below |= per_node[static_cast<size_t>(c)];
    at[n.loops.size()] = below;
    for (size_t li = n.loops.size(); li-- > 0;) at[li] = at[li + 1] || steps(n.loops[li]);
    per_node[i] = at[0];
  }
  // A step of loop li - 1 is replayed only under a later step of a loop around that one: top-down,
  // whether one steps above. Without one, its recording would never be used. (A node's entry is
  // set by its parent before it is read; the root's is not read.)
  for (size_t i = 0; i < f.nodes.size(); ++i) {
    const TreeNode& n = f.nodes[i];
    char outer = n.parent >= 0 ? per_node[i] : 0;
    for (size_t li = 0; li <= n.loops.size(); ++li) {
      const char enclosed = li >= 1 && outer;  // a stepping loop around loop li - 1
      char& at = out.replay[out.at[i] + li];
      at = everywhere || (at && enclosed);
      if (li >= 1 && li - 1 < n.loops.size()) outer |= steps(n.loops[li - 1]);
    }
    for (const Loop& l : n.loops) outer |= steps(l);
    for (int c : n.children) per_node[static_cast<size_t>(c)] = outer;
  }
}

template <class Held>
bool Walker<Held>::replayable() const {
  return !passes_ && stepping_runs_.empty() && untimed_ == 0 && computed_ && deferred_loads_.empty();
}

template <class Held>
Time Walker<Held>::step(int node, size_t li, const OpBoxes& boxes, int64_t weight, bool last) {
  if (!replay_ || !replay_places_.replay[replay_places_.place(node, li)] || !replayable()) return loops(node, li, boxes, weight);
  StepRecording<Held>& rec = recording(node, li, last);
  Time t;
  if (rec.valid && replay(rec, boxes, weight, t)) return t;
  start_recording(rec, boxes, weight);
  recorders_.push_back(&rec);
  t = loops(node, li, boxes, weight);
  recorders_.pop_back();
  finish_recording(rec, t);
  return t;
}

template <class Held>
void Walker<Held>::start_recording(StepRecording<Held>& rec, const OpBoxes& boxes, int64_t weight) {
  rec.valid = false;
  rec.boxes = boxes;
  rec.weight = weight, rec.instance_weight = instance_weight_, rec.repeat = repeat_;
  rec.inst_ctx = inst_ctx_, rec.part_ctx = part_ctx_, rec.partial = partial_;
  rec.past_first = past_first_, rec.unindexing_written = 0;
  rec.spatial_depth = spatial_stack_.size();
  rec.changed = 0, rec.covers.clear(), rec.occupancy.clear(), rec.own_times.clear();
  rec.before.take(r_);
  rec.load_resets = load_resets_, rec.stores = stores_, rec.entangles = entangles_;
  rec.after_last_load = after_last_load_;
}

template <class Held>
void Walker<Held>::finish_recording(StepRecording<Held>& rec, const Time& t) {
  tally_scratch_.take(r_);
  rec.delta.between(rec.before, tally_scratch_);
  const size_t ops = r_.op_cycles.size();
  rec.delta.cycles.erase(std::remove_if(rec.delta.cycles.begin(), rec.delta.cycles.end(), [&](const auto& c) { return c.first < ops; }),
                         rec.delta.cycles.end());
  rec.time = t;
  rec.load_resets = load_resets_ - rec.load_resets, rec.stores = stores_ - rec.stores;
  rec.entangles = entangles_ - rec.entangles;
  rec.after_last_load_end = after_last_load_, rec.last_store = last_store_, rec.last_store_port = last_store_port_;
  for (size_t i = 0; i < rec.changed; ++i) {
    typename StepRecording<Held>::Change& c = rec.changes[i];
    const Stream<Held>& s = streams_[static_cast<size_t>(c.id)];
    c.end_owner = s.owner, c.end_dropped = s.dropped;
    c.end_resident = s.resident, c.end_snapshot = s.snapshot, c.end_owners = s.owners, c.end_twins = s.twins;
    c.write_entries = s.write_entries - c.write_entries, c.mc_write_entries = s.mc_write_entries - c.mc_write_entries;
    c.mc_count = s.mc_count, c.spreads = s.spreads, c.spreads_owner = s.spreads_owner;
  }
  // A spatial loop walked in passes inside the step keeps what its passes share (Passes,
  // stepping runs) to itself: replayable() asks that none was under way when the step began.
  rec.valid = true;
}

template <class Held>
void Walker<Held>::note_change(int id) {
  for (auto* rec : recorders_) {
    const auto end = rec->changes.begin() + static_cast<long>(rec->changed);
    if (std::any_of(rec->changes.begin(), end, [&](const auto& c) { return c.id == id; })) continue;
    const Stream<Held>& s = streams_[static_cast<size_t>(id)];
    if (rec->changed == rec->changes.size()) {
      if (rec->changes.empty()) rec->changes.reserve(8);  // a step changes a few buffers: grown once, not moved thrice
      rec->changes.emplace_back();
    }
    typename StepRecording<Held>::Change& c = rec->changes[rec->changed++];
    c.id = id, c.owner = s.owner, c.dropped = s.dropped, c.snapshot = s.snapshot;
    c.write_entries = s.write_entries, c.mc_write_entries = s.mc_write_entries;
  }
}

template <class Held>
void Walker<Held>::note_occupancy(uint64_t key, int level, int tensor, int64_t before, int64_t after) {
  for (auto* rec : recorders_) {
    auto it = std::find_if(rec->occupancy.begin(), rec->occupancy.end(),
                           [&](const auto& o) { return o.key == key && o.tensor == tensor; });
    if (it == rec->occupancy.end()) it = rec->occupancy.insert(it, {key, level, tensor, before, before, before});
    it->high = std::max(it->high, after);
    it->end = after;
  }
}

template <class Held>
bool Walker<Held>::replay(const StepRecording<Held>& rec, const OpBoxes& boxes, int64_t weight, Time& out) {
  if (rec.inst_ctx != inst_ctx_ || rec.part_ctx != part_ctx_ || rec.partial != partial_ ||
      ((rec.past_first ^ past_first_) & rec.unindexing_written) != 0 ||
      rec.instance_weight != instance_weight_ || rec.spatial_depth != spatial_stack_.size() || weight % rec.weight != 0)
    return false;
  OpBoxes& delta = replay_delta_;
  delta.assign_zero(boxes);
  if (boxes.size() != rec.boxes.size()) return false;
  for (size_t o = 0; o < boxes.size(); ++o)
    for (size_t d = 0; d < boxes.dims(); ++d) {
      const Range &now = boxes[o][d], &then = rec.boxes[o][d];
      if (now.second - now.first != then.second - then.first) return false;
      delta[o][d].first = now.first - then.first;
    }
  // Every buffer the step changes starts as it did, moved with the boxes; what it ends holding
  // moves alike (else it is sliced again), and what a write stream covers must.
  std::vector<std::vector<int64_t>>& shifts = replay_shifts_;
  if (shifts.size() < rec.changed) shifts.resize(rec.changed);
  std::vector<char>& uniform = replay_uniform_;
  uniform.assign(rec.changed, 0);
  for (size_t i = 0; i < rec.changed; ++i) {
    const typename StepRecording<Held>::Change& c = rec.changes[i];
    const Stream<Held>& s = streams_[static_cast<size_t>(c.id)];
    if (s.owner != c.owner || s.dropped != c.dropped || !moved_by(s.snapshot, c.snapshot, delta, accesses_.of(c.owner, s.tensor))) return false;
    uniform[i] = uniform_shift(c.end_owner, s.tensor, delta, 1, shifts[i]);
    // A tensor read in two ways whose reads the move takes apart (A[m,k] beside A[n,k], n moved)
    // overlaps what the buffer holds otherwise than in the recorded step: its fills differ.
    if (!uniform[i] && (s.write || accesses_.read_two_ways(s.tensor))) return false;
  }
  const int64_t k = weight / rec.weight;
  const double kd = rec.repeat != 0 ? repeat_ / rec.repeat : 1;
  rec.delta.add_to(r_, k, kd);
  for (const auto& [op, t, times] : rec.own_times) {
    const double repeat = repeat_ * times;
    r_.op_cycles[static_cast<size_t>(op)] += t * repeat;
    for (auto* outer : recorders_) outer->own_times.emplace_back(op, t, repeat / outer->repeat);
  }
  for (auto* outer : recorders_) outer->unindexing_written |= rec.unindexing_written;
  for (size_t i = 0; i < rec.changed; ++i) {
    const typename StepRecording<Held>::Change& c = rec.changes[i];
    note_change(c.id);
    Stream<Held>& s = streams_[static_cast<size_t>(c.id)];
    s.owner = c.end_owner;
    for (int o : c.end_owners)
      if (std::find(s.owners.begin(), s.owners.end(), o) == s.owners.end()) s.owners.push_back(o);
    s.snapshot = c.end_snapshot;
    s.snapshot.move_by(delta);
    s.dropped = c.end_dropped;
    if (c.end_resident.empty()) {
      s.resident = Held();
    } else if (uniform[i]) {
      s.resident = c.end_resident;
      s.resident.shift(shifts[i]);
    } else {
      s.resident = slice_of(s.owner, s.tensor, s.snapshot);
    }
    s.write_entries += c.write_entries * k, s.mc_write_entries += c.mc_write_entries * k;
    s.mc_count = c.mc_count, s.spreads = c.spreads, s.spreads_owner = c.spreads_owner, s.twins = c.end_twins;
    if (representing_) touched_.push_back(c.id);
  }
  for (const auto& [id, part] : rec.covers) {
    size_t i = 0;
    while (rec.changes[i].id != id) ++i;  // a cover grows only where the step activated
    Slice moved = part;
    for (size_t j = 0; j < moved.size(); ++j) moved[j].shift(shifts[i][j]);
    add_cover(id, moved);
  }
  for (const OccupancyChange& o : rec.occupancy) {
    int64_t& v = occupancy_at(o.key, o.tensor < 0);
    const int64_t high = v + o.high - o.start, end = v + o.end - o.start;
    if (!recorders_.empty()) note_occupancy(o.key, o.level, o.tensor, v, high), note_occupancy(o.key, o.level, o.tensor, high, end);
    int64_t& peak = o.tensor < 0 ? r_.level_peak_elems[static_cast<size_t>(o.level)]
                                 : r_.peak_elems[static_cast<size_t>(o.level)][static_cast<size_t>(o.tensor)];
    peak = std::max(peak, high);
    v = end;
  }
  if (rec.entangles > 0) entangled_ = true, ++entangles_;
  if (rec.load_resets > 0) after_last_load_ = rec.after_last_load_end, ++load_resets_;
  else after_last_load_ += rec.after_last_load_end - rec.after_last_load;
  if (rec.stores > 0) last_store_ = rec.last_store, last_store_port_ = rec.last_store_port, ++stores_;
  out = rec.time;
  ++r_.replayed_steps;
  return true;
}

template class Walker<MultiSlice>;
template class Walker<Boxes>;

}  // namespace dfx::model
