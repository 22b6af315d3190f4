// The box walk's buffers: what each holds as boxes, what an activation moves and from where, and
// how a step that stands for the middle ones moves them on — model/walk_streams.cpp's rules.
#include <algorithm>
#include <cstdlib>

#include "model/box_walker.h"
#include "model/transfer_time.h"

namespace dfx::model {

Slice Box::slice() const {
  Slice s(static_cast<size_t>(rank));
  for (int j = 0; j < rank; ++j) s[static_cast<size_t>(j)] = IndexSet::interval(r[j].first, r[j].second);
  return s;
}

namespace {

// |union of boxes| by inclusion–exclusion, as the walk sizes a union of boxes.
int64_t union_size(const Box* const* parts, int n) {
  if (n == 0) return 0;
  if (n == 1) return parts[0]->size();
  const int rank = parts[0]->rank;
  int64_t total = 0;
  for (uint32_t mask = 1; mask < (1u << n); ++mask) {
    int64_t common = 1;
    for (int j = 0; j < rank && common > 0; ++j) {
      int64_t lo = INT64_MIN, hi = INT64_MAX;
      for (int i = 0; i < n; ++i)
        if (mask & (1u << i)) lo = std::max(lo, parts[i]->r[j].first), hi = std::min(hi, parts[i]->r[j].second);
      common *= std::max<int64_t>(0, hi - lo);
    }
    total += (__builtin_popcount(mask) % 2 ? 1 : -1) * common;
  }
  return total;
}

int64_t overlap(const Box& a, const Box& b) {
  int64_t n = 1;
  for (int j = 0; j < a.rank && n > 0; ++j)
    n *= std::max<int64_t>(0, std::min(a.r[j].second, b.r[j].second) - std::max(a.r[j].first, b.r[j].first));
  return n;
}

// |{x + k·step : x in [lo, hi), 0 <= k < count}|: apart copies, or one run where they overlap.
int64_t spread_length(int64_t length, int64_t step, int64_t count) {
  const int64_t apart = std::abs(step);
  return apart >= length ? count * length : (count - 1) * apart + length;
}

}  // namespace

int64_t Boxes::size() const {
  const Box* ptrs[kMaxParts];
  for (int i = 0; i < n; ++i) ptrs[i] = &part[i];
  return union_size(ptrs, n);
}

int64_t Boxes::minus_size(const Boxes& older) const {
  if (n == 1 && older.n == 1) return part[0].size() - overlap(part[0], older.part[0]);
  const Box* all[2 * kMaxParts];
  const Box* old[kMaxParts];
  int k = 0;
  for (int i = 0; i < n; ++i) all[k++] = &part[i];
  for (int i = 0; i < older.n; ++i) all[k++] = &older.part[i], old[i] = &older.part[i];
  return union_size(all, k) - union_size(old, older.n);
}

MultiSlice Boxes::multi_slice() const {
  MultiSlice m;
  for (int i = 0; i < n; ++i) m.parts.push_back(part[i].slice());
  return m;
}

Boxes BoxWalker::slice_of(int node, int tensor, const OpBoxes& boxes) const {
  Boxes out;
  for (const BufferAccesses::Access& acc : accesses_.of(node, tensor)) {
    const TensorAccess& a = *acc.access;
    const Range* box = boxes[static_cast<size_t>(acc.op)];
    Box b;
    b.rank = static_cast<int>(a.index.size());
    bool empty = false;
    for (size_t j = 0; j < a.index.size() && !empty; ++j) {
      // A sum of dims with coefficient 1: one interval (IndexSet::of_affine's contiguous case).
      int64_t lo = a.index[j].offset, hi = lo + 1;
      for (const auto& term : a.index[j].terms) {
        const Range r = box[static_cast<size_t>(term.dim)];
        if (r.second <= r.first) empty = true;
        lo += r.first, hi += r.second - 1;
      }
      b.r[j] = {lo, hi};
    }
    if (empty) continue;
    bool known = false;
    for (int i = 0; i < out.n && !known; ++i) known = out.part[i] == b;
    if (known) continue;
    if (out.n == Boxes::kMaxParts) throw Uncovered{};
    out.part[out.n++] = b;
  }
  return out;
}

int BoxWalker::stream_for(int node, int tensor) {
  const auto& tp = p_.tensors[static_cast<size_t>(tensor)];
  const auto n = static_cast<size_t>(node);
  const uint64_t key = static_cast<uint64_t>(tensor) | (static_cast<uint64_t>(tp.level[n]) << 12) |
                       (static_cast<uint64_t>(tp.source[n]) << 18) | (static_cast<uint64_t>(tp.writes[n]) << 24) |
                       (static_cast<uint64_t>(inst_ctx_) << 25) | (static_cast<uint64_t>(part_ctx_) << 45);
  auto [it, fresh] = stream_ids_.try_emplace(key, static_cast<int>(streams_.size()));
  if (!fresh) return it->second;
  BoxStream s;
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

BoxWalker::Moved BoxWalker::activate(int node, int tensor, const OpBoxes& boxes, int64_t weight) {
  const int id = stream_for(node, tensor);
  if (!recorders_.empty()) note_change(id);
  BoxStream& s = streams_[static_cast<size_t>(id)];
  if (recording_from_ != kNotRecording && static_cast<size_t>(id) < recording_from_ && (s.write || !s.resident.empty()))
    entangled_ = true, ++entangles_;
  if (std::find(s.owners.begin(), s.owners.end(), node) == s.owners.end()) s.owners.push_back(node);
  s.owner = node;
  Boxes now = slice_of(node, tensor, boxes);
  const int64_t fresh = now.minus_size(s.resident);
  const auto prefix = static_cast<size_t>(mc_prefix_[static_cast<size_t>(node) * w_.tensors.size() + static_cast<size_t>(tensor)]);
  int64_t merged = 1;
  for (size_t k = prefix; k < spatial_depth_; ++k) merged *= spatial_stack_[k].count;
  const bool multicast = a_.levels[static_cast<size_t>(s.source)].multicast;
  if (multicast && merged > 1 && s.spreads_owner != node && !now.empty()) {
    spreads_for(node, tensor, boxes, now, prefix, s.spreads);
    s.spreads_owner = node;
  }
  const bool over_passes = passes_ && prefix <= passes_->level;
  const int64_t shared = multicast && !s.write && sent_by_an_earlier_run(tensor, prefix) ? 0
                         : multicast && over_passes ? sent_over_passes(node, tensor, id, now, merged)
                         : merged == 1            ? fresh
                         : multicast              ? merged_fresh(now, s.resident, fresh, s.spreads)
                                                  : fresh * merged;
  const int64_t source_weight = weight / merged;
  add_occupancy(s.level, tensor, s.inst_ctx, now.size() - s.resident.size());
  s.mc_count = multicast ? merged : 1;
  if (s.write) {
    s.write_entries += fresh * weight;
    s.mc_write_entries += shared * source_weight;
    if (!now.empty()) add_cover(id, now.part[0].slice());
  } else {
    r_.traffic[static_cast<size_t>(s.level)][static_cast<size_t>(tensor)].fill += fresh * weight;
  }
  charge_source(tensor, s.source, s.level, s.write, shared * source_weight);
  s.resident = now;
  s.snapshot = boxes;
  s.dropped = false;
  if (representing_) touched_.push_back(id);
  const Box* front = now.empty() ? nullptr : &now.part[0];
  const int64_t row = !front || front->rank == 0 ? 1 : front->r[front->rank - 1].second - front->r[front->rank - 1].first;
  const double t = transfer_time(a_, s.source, s.level, s.write, row, fresh, shared).cycles;
  if (!s.write && !computed_) first_loads_ += t;
  Moved m;
  (s.write ? m.store : m.load) = t;
  return m;
}

// model::merged_fresh's value: where the representative's new slice is one box apart from what
// it held, every instance's is its box moved, and their union is the box spread along each axis.
int64_t BoxWalker::merged_fresh(const Boxes& now, const Boxes& before, int64_t fresh, const Spreads& spreads) const {
  if (spreads.empty()) return fresh;
  if (fresh == 0) return 0;
  bool apart = now.n == 1;
  for (int i = 0; apart && i < before.n; ++i) apart = overlap(now.part[0], before.part[i]) == 0;
  uint64_t axes = 0;
  for (const auto& [axis, step, count] : spreads) {
    if (axis >= 64 || (axes >> axis & 1)) apart = false;
    else axes |= uint64_t{1} << axis;
  }
  if (!apart) return model::merged_fresh(now.multi_slice(), before.multi_slice(), fresh, spreads);
  const Box& b = now.part[0];
  int64_t size = 1;
  for (int j = 0; j < b.rank; ++j) {
    int64_t length = b.r[j].second - b.r[j].first;
    for (const auto& [axis, step, count] : spreads)
      if (axis == static_cast<size_t>(j)) length = spread_length(length, step, count);
    size *= length;
  }
  return size;
}

void BoxWalker::spreads_for(int node, int tensor, const OpBoxes& boxes, const Boxes& now, size_t prefix, Spreads& spreads) {
  spreads.clear();
  for (size_t k = prefix; k < spatial_depth_; ++k) {
    const SpatialLevel& sl = spatial_stack_[k];
    if (sl.count <= 1) continue;
    BoxPool::Lease lease(pool_, boxes);
    (*lease).move_by(sl.delta);
    const Boxes next = slice_of(node, tensor, *lease);
    if (next.n != now.n) continue;
    int axis = -1;
    int64_t step = 0;
    for (int part = 0; part < now.n; ++part)
      for (int j = 0; j < now.part[part].rank; ++j) {
        const int64_t d = next.part[part].r[j].first - now.part[part].r[j].first;
        if (d == 0) continue;
        if (axis >= 0 && (axis != j || step != d)) throw Uncovered{};  // a problem the walk reports
        axis = j, step = d;
      }
    if (axis >= 0) spreads.emplace_back(static_cast<size_t>(axis), step, sl.count);
  }
}

void BoxWalker::add_occupancy(int level, int tensor, int inst, int64_t delta) {
  const uint64_t key = (static_cast<uint64_t>(inst) << 24) | (static_cast<uint64_t>(level) << 16);
  int64_t& lv = level_occupancy_[key];
  if (!recorders_.empty()) note_occupancy(key, level, -1, lv, lv + delta);
  lv += delta;
  r_.level_peak_elems[static_cast<size_t>(level)] = std::max(r_.level_peak_elems[static_cast<size_t>(level)], lv);
  int64_t& tv = occupancy_[key | static_cast<uint64_t>(tensor)];
  if (!recorders_.empty()) note_occupancy(key | static_cast<uint64_t>(tensor), level, tensor, tv, tv + delta);
  tv += delta;
  auto& peak = r_.peak_elems[static_cast<size_t>(level)][static_cast<size_t>(tensor)];
  peak = std::max(peak, tv);
}

void BoxWalker::charge_source(int tensor, int source, int level, bool write, int64_t n) {
  auto& src = r_.traffic[static_cast<size_t>(source)][static_cast<size_t>(tensor)];
  (write ? src.update : src.read) += n;
  if (!a_.addressable(level)) (write ? r_.feed_updates : r_.feed_reads)[static_cast<size_t>(source)] += n;
  const size_t levels = a_.levels.size(), k = static_cast<size_t>(source) * levels + static_cast<size_t>(level);
  if (staging_.empty()) staging_.resize(levels * levels), staging_known_.assign(levels * levels, 0);
  if (!staging_known_[k]) staging_[k] = a_.staging_levels(source, level), staging_known_[k] = 1;
  for (int via : staging_[k]) {
    auto& mid = r_.traffic[static_cast<size_t>(via)][static_cast<size_t>(tensor)];
    mid.update += n;
    mid.read += n;
  }
}

void BoxWalker::add_cover(int id, const Slice& part) {
  BoxStream& s = streams_[static_cast<size_t>(id)];
  if (s.cover.empty()) s.cover.assign(part.size(), IndexSet());
  unite_per_dim(s.cover, part);
  if (representing_) cover_log_.push_back({id, part});
  for (BoxRecording* rec : recorders_) unite_by_stream(rec->covers, id, part);
}

void BoxWalker::drop_for_sibling(int seq_node, int next_child) {
  for (size_t i = 0; i < streams_.size(); ++i) {
    BoxStream& s = streams_[i];
    if (s.resident.empty() || s.owner == seq_node || !inside(s.owner, seq_node) || inside(s.owner, next_child)) continue;
    bool used_next = false;
    for (int o : s.owners) used_next |= inside(o, next_child);
    if (used_next || !contexts_.within(s.inst_ctx, inst_ctx_)) continue;
    if (!recorders_.empty()) note_change(static_cast<int>(i));
    add_occupancy(s.level, s.tensor, s.inst_ctx, -s.resident.size());
    s.resident = Boxes();
    s.dropped = true;
  }
}

// A snapshot is read only through the accesses below its owner: only their ops' boxes move (an
// op that reads the tensor twice, once).
void BoxWalker::move_snapshot(BoxStream& s, const OpBoxes& delta, int64_t k) const {
  int moved = -1;
  for (const BufferAccesses::Access& a : accesses_.of(s.owner, s.tensor))
    if (a.op != moved) s.snapshot.move_op_by(static_cast<size_t>(a.op), delta, k), moved = a.op;
}

void BoxWalker::translate_since(size_t mark, size_t cover_mark, const OpBoxes& delta, int64_t extra) {
  std::vector<int>& ids = translate_ids_;
  ids.assign(touched_.begin() + static_cast<long>(mark), touched_.end());
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  written_.clear();
  for (size_t i = cover_mark; i < cover_log_.size(); ++i) unite_by_stream(written_, cover_log_[i].first, cover_log_[i].second);
  for (int id : ids) {
    BoxStream& s = streams_[static_cast<size_t>(id)];
    auto it = std::find_if(written_.begin(), written_.end(), [&](const auto& e) { return e.first == id; });
    if (s.write && it != written_.end()) extend_cover(s, id, it->second, delta, extra);
    else move_snapshot(s, delta, extra);
    if (s.dropped) continue;
    if (uniform_shift(s.owner, s.tensor, delta, extra, shift_)) {
      for (int p = 0; p < s.resident.n; ++p)
        for (int j = 0; j < s.resident.part[p].rank; ++j) {
          Range& r = s.resident.part[p].r[j];
          r.first += shift_[static_cast<size_t>(j)], r.second += shift_[static_cast<size_t>(j)];
        }
    } else {
      s.resident = slice_of(s.owner, s.tensor, s.snapshot);
    }
  }
}

bool BoxWalker::uniform_shift(int node, int tensor, const OpBoxes& delta, int64_t k, std::vector<int64_t>& shift) const {
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

// Walker::extend_cover: what the representative wrote, repeated at the step its slice moves by.
void BoxWalker::extend_cover(BoxStream& s, int id, const Slice& wrote, const OpBoxes& delta, int64_t extra) {
  const Boxes before = slice_of(s.owner, s.tensor, s.snapshot);
  move_snapshot(s, delta, 1);
  const Boxes one = slice_of(s.owner, s.tensor, s.snapshot);
  move_snapshot(s, delta, extra - 1);
  if (before.empty() || one.empty()) return;
  Slice added = wrote;
  for (size_t j = 0; j < added.size(); ++j) {
    const int64_t step = one.part[0].r[j].first - before.part[0].r[j].first;
    if (step != 0) added[j] = added[j].united(added[j].with_translates(step, 1, extra));
  }
  add_cover(id, added);
}

void BoxWalker::finish_write_streams(size_t from) {
  for (size_t i = from; i < streams_.size(); ++i) {
    BoxStream& s = streams_[i];
    if (s.finished) continue;
    s.finished = true;
    if (!s.write || s.cover.empty()) continue;
    const int64_t distinct = slice_size(s.cover) * s.instance_weight;
    r_.traffic[static_cast<size_t>(s.level)][static_cast<size_t>(s.tensor)].fill += s.write_entries - distinct;
    auto spread_cover = [](const BoxStream& x) {
      Slice c = x.cover;
      for (const auto& [axis, step, count] : x.spreads) c[axis] = spread_set(c[axis], step, count);
      return c;
    };
    const Slice merged_cover = spread_cover(s);
    int64_t merged_distinct = slice_size(merged_cover);
    // A later run of a spatial loop: what the earlier runs wrote was counted with theirs.
    if (!s.twins.empty()) {
      Region before;
      for (int twin : s.twins)
        if (!streams_[static_cast<size_t>(twin)].cover.empty()) before.unite(Region::of(spread_cover(streams_[static_cast<size_t>(twin)])));
      merged_distinct = Region::of(merged_cover).size_outside(before);
    }
    merged_distinct *= s.instance_weight / s.mc_count;
    charge_source(s.tensor, s.source, s.level, false, s.mc_write_entries - merged_distinct);
  }
}

}  // namespace dfx::model
