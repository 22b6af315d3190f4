// The box walk's replayed steps, as model/walk_replay.cpp replays the walk's: a representative
// step walked once under an enclosing loop's first step is replayed under its later ones when
// every buffer it changes starts as it did, moved with the boxes.
#include <algorithm>

#include "model/box_walker.h"

namespace dfx::model {

double BoxWalker::step(int node, size_t li, const OpBoxes& boxes, int64_t weight, bool last) {
  const size_t place = replay_places_.place(node, li);
  // Before the first computation, transfers are first loads: replayed, they would not be. Runs
  // of instances not all alike keep what they share to themselves while they are walked.
  if (!replay_places_.replay[place] || !computed_ || passes_ || !stepping_runs_.empty() || untimed_ != 0)
    return loops(node, li, boxes, weight);
  int& slot = recording_slot_[2 * place + (last ? 1 : 0)];
  if (slot < 0) slot = static_cast<int>(recordings_.size()), recordings_.emplace_back();
  BoxRecording& rec = recordings_[static_cast<size_t>(slot)];
  double t = 0;
  if (rec.valid && replay(rec, boxes, weight, t)) return t;
  start_recording(rec, boxes, weight);
  recorders_.push_back(&rec);
  t = loops(node, li, boxes, weight);
  recorders_.pop_back();
  finish_recording(rec, t);
  return t;
}

void BoxWalker::start_recording(BoxRecording& rec, const OpBoxes& boxes, int64_t weight) {
  rec.valid = false;
  rec.boxes = boxes;
  rec.weight = weight, rec.instance_weight = instance_weight_, rec.repeat = repeat_;
  rec.inst_ctx = inst_ctx_, rec.part_ctx = part_ctx_, rec.partial = partial_;
  rec.spatial_depth = spatial_depth_;
  rec.changed = 0, rec.covers.clear(), rec.occupancy.clear(), rec.own_times.clear();
  rec.before.take(r_);
  rec.stores = stores_, rec.entangles = entangles_;
}

void BoxWalker::finish_recording(BoxRecording& rec, double t) {
  tally_scratch_.take(r_);
  rec.delta.between(rec.before, tally_scratch_);
  rec.delta.cycles.clear();  // op cycles replay from own_times, exactly
  rec.time = t;
  rec.stores = stores_ - rec.stores, rec.entangles = entangles_ - rec.entangles;
  rec.last_store = last_store_;
  for (size_t i = 0; i < rec.changed; ++i) {
    BoxRecording::Change& c = rec.changes[i];
    const BoxStream& s = streams_[static_cast<size_t>(c.id)];
    c.end_owner = s.owner, c.end_dropped = s.dropped;
    c.end_resident = s.resident, c.end_snapshot = s.snapshot, c.end_owners = s.owners, c.end_twins = s.twins;
    c.write_entries = s.write_entries - c.write_entries, c.mc_write_entries = s.mc_write_entries - c.mc_write_entries;
    c.mc_count = s.mc_count, c.spreads = s.spreads, c.spreads_owner = s.spreads_owner;
  }
  rec.valid = true;
}

void BoxWalker::note_change(int id) {
  for (BoxRecording* rec : recorders_) {
    const auto end = rec->changes.begin() + static_cast<long>(rec->changed);
    if (std::any_of(rec->changes.begin(), end, [&](const auto& c) { return c.id == id; })) continue;
    const BoxStream& s = streams_[static_cast<size_t>(id)];
    if (rec->changed == rec->changes.size()) rec->changes.emplace_back();
    BoxRecording::Change& c = rec->changes[rec->changed++];
    c.id = id, c.owner = s.owner, c.dropped = s.dropped, c.snapshot = s.snapshot;
    c.write_entries = s.write_entries, c.mc_write_entries = s.mc_write_entries;
  }
}

void BoxWalker::note_occupancy(uint64_t key, int level, int tensor, int64_t before, int64_t after) {
  for (BoxRecording* rec : recorders_) {
    auto it = std::find_if(rec->occupancy.begin(), rec->occupancy.end(), [&](const auto& o) { return o.key == key && o.tensor == tensor; });
    if (it == rec->occupancy.end()) it = rec->occupancy.insert(it, {key, level, tensor, before, before, before});
    it->high = std::max(it->high, after);
    it->end = after;
  }
}

void BoxWalker::note_own_time(int op, double t, double repeat) {
  for (BoxRecording* rec : recorders_) rec->own_times.emplace_back(op, t, repeat / rec->repeat);
}

bool BoxWalker::replay(const BoxRecording& rec, const OpBoxes& boxes, int64_t weight, double& out) {
  if (rec.inst_ctx != inst_ctx_ || rec.part_ctx != part_ctx_ || rec.partial != partial_ || rec.instance_weight != instance_weight_ ||
      rec.spatial_depth != spatial_depth_ || weight % rec.weight != 0 || boxes.size() != rec.boxes.size())
    return false;
  OpBoxes& delta = replay_delta_;
  delta.assign_zero(boxes);
  for (size_t o = 0; o < boxes.size(); ++o)
    for (size_t d = 0; d < boxes.dims(); ++d) {
      const Range &now = boxes[o][d], &then = rec.boxes[o][d];
      if (now.second - now.first != then.second - then.first) return false;
      delta[o][d].first = now.first - then.first;
    }
  std::vector<std::vector<int64_t>>& shifts = replay_shifts_;
  if (shifts.size() < rec.changed) shifts.resize(rec.changed);
  std::vector<char>& uniform = replay_uniform_;
  uniform.assign(rec.changed, 0);
  for (size_t i = 0; i < rec.changed; ++i) {
    const BoxRecording::Change& c = rec.changes[i];
    const BoxStream& s = streams_[static_cast<size_t>(c.id)];
    if (s.owner != c.owner || s.dropped != c.dropped || !moved_by(s.snapshot, c.snapshot, delta, accesses_.of(c.owner, s.tensor)))
      return false;
    uniform[i] = uniform_shift(c.end_owner, s.tensor, delta, 1, shifts[i]);
    if (s.write && !uniform[i]) return false;
  }
  const int64_t k = weight / rec.weight;
  rec.delta.add_to(r_, k, 1);
  for (const auto& [op, t, times] : rec.own_times) {
    const double repeat = repeat_ * times;
    r_.op_cycles[static_cast<size_t>(op)] += t * repeat;
    if (!recorders_.empty()) note_own_time(op, t, repeat);
  }
  for (size_t i = 0; i < rec.changed; ++i) {
    const BoxRecording::Change& c = rec.changes[i];
    if (!recorders_.empty()) note_change(c.id);
    BoxStream& s = streams_[static_cast<size_t>(c.id)];
    s.owner = c.end_owner;
    for (int o : c.end_owners)
      if (std::find(s.owners.begin(), s.owners.end(), o) == s.owners.end()) s.owners.push_back(o);
    s.snapshot = c.end_snapshot;
    s.snapshot.move_by(delta);
    s.dropped = c.end_dropped;
    if (c.end_resident.empty()) {
      s.resident = Boxes();
    } else if (uniform[i]) {
      s.resident = c.end_resident;
      for (int p = 0; p < s.resident.n; ++p)
        for (int j = 0; j < s.resident.part[p].rank; ++j) {
          Range& r = s.resident.part[p].r[j];
          r.first += shifts[i][static_cast<size_t>(j)], r.second += shifts[i][static_cast<size_t>(j)];
        }
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
  for (const StepRecording::Occupancy& o : rec.occupancy) {
    int64_t& v = o.tensor < 0 ? level_occupancy_[o.key] : occupancy_[o.key];
    const int64_t high = v + o.high - o.start, end = v + o.end - o.start;
    if (!recorders_.empty()) note_occupancy(o.key, o.level, o.tensor, v, high), note_occupancy(o.key, o.level, o.tensor, high, end);
    int64_t& peak = o.tensor < 0 ? r_.level_peak_elems[static_cast<size_t>(o.level)]
                                 : r_.peak_elems[static_cast<size_t>(o.level)][static_cast<size_t>(o.tensor)];
    peak = std::max(peak, high);
    v = end;
  }
  if (rec.entangles > 0) entangled_ = true, ++entangles_;
  if (rec.stores > 0) last_store_ = rec.last_store, ++stores_;
  out = rec.time;
  ++r_.replayed_steps;
  return true;
}

}  // namespace dfx::model
