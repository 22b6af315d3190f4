// Brute force on purpose: every loop iteration is visited, every element is a set member.
//
// The semantics, in words:
// - A tile at level X that keeps a tensor at a different level than the tile above it (an
//   "owner") holds, on each activation, exactly the elements its subtree touches with the current
//   loop ranges. Activations of one buffer (same tensor, level, role, spatial instance and
//   Para/Pipe partition) replace each other; elements not held before are filled from the level
//   above (read there). Written elements count as an update of the level above when they enter;
//   an output element that re-enters after being written before is a fill of its partial sum.
// - Seq drops, when the next child starts, the buffers of earlier children that it does not use.
// - A leaf reads each input once per point of its box and updates its output once per point.
// - Not supported: a buffer whose tensor the ops below access in two ways that a spatial loop
//   above it moves apart (A[m,k] beside A[n,k] under instances over m): each instance's slice is
//   no longer the first's shifted, so instances are not alike.
#include "tests/property/oracle.h"

#include <algorithm>
#include <map>
#include <set>

#include "model/placement.h"

namespace dfx::oracle {
namespace {

using model::OpBoxes;

struct Buffer {
  int tensor = 0, level = 0, source = 0, last_owner = 0;
  bool write = false;
  std::vector<int64_t> instance;
  std::set<int64_t> resident;
  std::set<int64_t> written;  // write buffers: elements that ever entered
  std::set<int> owners;
};

class Brute {
 public:
  Brute(const arch::Arch& a, const model::Workload& w, const model::Dataflow& f)
      : a_(a), w_(w), f_(f), p_(model::place(a, w, f)) {
    r_.traffic.assign(a.levels.size(), std::vector<model::Traffic>(w.tensors.size()));
    r_.peak_elems.assign(a.levels.size(), std::vector<int64_t>(w.tensors.size(), 0));
    r_.level_peak_elems.assign(a.levels.size(), 0);
    r_.op_work.assign(w.ops.size(), 0);
  }

  model::WalkResult run() {
    OpBoxes boxes = OpBoxes::whole(w_);
    source_len_.assign(w_.tensors.size(), std::vector<size_t>{0});
    visit(0, boxes);
    charge_sources();
    return r_;
  }

 private:
  const arch::Arch& a_;
  const model::Workload& w_;
  const model::Dataflow& f_;
  model::Placement p_;
  model::WalkResult r_;
  std::vector<int64_t> instance_, partition_;
  std::map<std::vector<int64_t>, Buffer> buffers_;
  std::map<std::vector<int64_t>, int64_t> occupancy_, level_occupancy_;
  std::map<std::pair<int, size_t>, std::pair<int64_t, int64_t>> spatial_split_;  // first (extent, chunk) seen
  std::set<std::pair<int, size_t>> varying_;  // spatial loops whose extent changed between steps
  int partial_ = 0;  // loops whose partial last step encloses the current position
  // Multicast: instances that share a source buffer share what it sends them in one step.
  std::vector<int64_t> step_;                     // temporal iterations and child choices so far
  std::vector<std::vector<size_t>> source_len_;   // per tensor: stack of source-instance lengths
  std::map<std::vector<int64_t>, std::set<int64_t>> sent_;     // (buffer group, step) → elements
  std::map<std::vector<int64_t>, std::set<int64_t>> written_;  // buffer group → elements ever written
  // Per spatial loop entered with two instances or more in its step: how far each op's box moves
  // from one instance to the next, per dim (the second instance's start minus the first's).
  std::vector<std::vector<std::vector<int64_t>>> spatial_moves_;

  // Only spatial loops after loop li in its tile, and no loops below the tile.
  bool nothing_steps_below(int node, size_t li) const {
    const auto& own = f_.nodes[static_cast<size_t>(node)].loops;
    for (size_t k = li + 1; k < own.size(); ++k)
      if (!own[k].spatial) return false;
    for (size_t x = 0; x < f_.nodes.size(); ++x)
      if (static_cast<int>(x) != node && inside(static_cast<int>(x), node) && !f_.nodes[x].loops.empty()) return false;
    return true;
  }

  bool inside(int node, int root) const {
    for (int x = node; x >= 0; x = f_.nodes[static_cast<size_t>(x)].parent)
      if (x == root) return true;
    return false;
  }

  int64_t linear(int tensor, const std::vector<int64_t>& idx) const {
    int64_t v = 0;
    const auto& shape = w_.tensors[static_cast<size_t>(tensor)].shape;
    for (size_t j = 0; j < idx.size(); ++j) v = v * shape[j] + idx[j];
    return v;
  }

  // Every point of an op's box, handed to fn as the values of all dimensions.
  template <class Fn>
  void each_point(int op, const OpBoxes& boxes, Fn fn) const {
    const model::Range* box = boxes[static_cast<size_t>(op)];
    const auto& dims = w_.ops[static_cast<size_t>(op)].dims;
    std::vector<int64_t> x(w_.dims.size(), 0);
    for (int d : dims)
      if (box[static_cast<size_t>(d)].first >= box[static_cast<size_t>(d)].second) return;
    for (int d : dims) x[static_cast<size_t>(d)] = box[static_cast<size_t>(d)].first;
    while (true) {
      fn(x);
      size_t i = dims.size();
      while (i-- > 0) {
        const size_t d = static_cast<size_t>(dims[i]);
        if (++x[d] < box[d].second) break;
        x[d] = box[d].first;
      }
      if (i == static_cast<size_t>(-1)) return;
    }
  }

  int64_t element(const model::TensorAccess& acc, const std::vector<int64_t>& x) const {
    std::vector<int64_t> idx;
    for (const auto& ix : acc.index) {
      int64_t v = ix.offset;
      for (const auto& t : ix.terms) v += t.coef * x[static_cast<size_t>(t.dim)];
      idx.push_back(v);
    }
    return linear(acc.tensor, idx);
  }

  std::set<int64_t> touched(int node, int tensor, const OpBoxes& boxes) const {
    std::set<int64_t> s;
    for (size_t o = 0; o < w_.ops.size(); ++o) {
      if (!p_.ops_below[static_cast<size_t>(node)][o]) continue;
      const auto& op = w_.ops[o];
      each_point(static_cast<int>(o), boxes, [&](const std::vector<int64_t>& x) {
        if (op.out.tensor == tensor) s.insert(element(op.out, x));
        for (const auto& in : op.inputs)
          if (in.tensor == tensor) s.insert(element(in, x));
      });
    }
    return s;
  }

  void occupy(int level, int tensor, const std::vector<int64_t>& inst, int64_t delta) {
    std::vector<int64_t> key = inst;
    key.push_back(level);
    int64_t& lv = level_occupancy_[key];
    lv += delta;
    r_.level_peak_elems[static_cast<size_t>(level)] = std::max(r_.level_peak_elems[static_cast<size_t>(level)], lv);
    key.push_back(tensor);
    int64_t& tv = occupancy_[key];
    tv += delta;
    auto& pk = r_.peak_elems[static_cast<size_t>(level)][static_cast<size_t>(tensor)];
    pk = std::max(pk, tv);
  }

  void stage(int tensor, int source, int level, int64_t n) {
    for (int via : a_.staging_levels(source, level)) {
      auto& mid = r_.traffic[static_cast<size_t>(via)][static_cast<size_t>(tensor)];
      mid.update += n;
      mid.read += n;
    }
  }

  // The level the source buffer of `node`'s buffer fills from: that of the nearest owner above
  // (the source buffer's), or -1 when the source is the tensor's home.
  int64_t source_of_source(int node, int tensor) const {
    const auto& tp = p_.tensors[static_cast<size_t>(tensor)];
    for (int y = f_.nodes[static_cast<size_t>(node)].parent; y >= 0; y = f_.nodes[static_cast<size_t>(y)].parent)
      if (tp.owner[static_cast<size_t>(y)])
        return tp.level[static_cast<size_t>(y)] == tp.source[static_cast<size_t>(node)] ? tp.source[static_cast<size_t>(y)] : -1;
    return -1;
  }

  // True where a spatial loop above moves the accesses of `tensor` below `node` by different
  // amounts (in the tensor's coordinates) from one instance to the next.
  bool read_apart(int node, int tensor) const {
    std::vector<std::pair<size_t, const model::TensorAccess*>> accesses;
    for (size_t o = 0; o < w_.ops.size(); ++o) {
      if (!p_.ops_below[static_cast<size_t>(node)][o]) continue;
      const model::Op& op = w_.ops[o];
      if (op.out.tensor == tensor) accesses.push_back({o, &op.out});
      for (const auto& in : op.inputs)
        if (in.tensor == tensor) accesses.push_back({o, &in});
    }
    if (accesses.size() < 2) return false;
    for (const auto& moves : spatial_moves_) {
      std::vector<int64_t> first;
      for (const auto& [o, acc] : accesses) {
        std::vector<int64_t> shift;
        for (const auto& ix : acc->index) {
          int64_t by = 0;
          for (const auto& t : ix.terms) by += t.coef * moves[o][static_cast<size_t>(t.dim)];
          shift.push_back(by);
        }
        if (first.empty()) first = shift;
        else if (shift != first) return true;
      }
    }
    return false;
  }

  void activate(int node, int tensor, const OpBoxes& boxes) {
    if (read_apart(node, tensor)) {
      const std::string msg = "'" + w_.tensors[static_cast<size_t>(tensor)].name + "' is read along different dimensions below this tile";
      if (std::none_of(r_.problems.begin(), r_.problems.end(), [&](const auto& pr) { return pr.message == msg; }))
        r_.problems.push_back({f_.nodes[static_cast<size_t>(node)].loc, msg});
    }
    const auto& tp = p_.tensors[static_cast<size_t>(tensor)];
    std::vector<int64_t> key = {tensor, tp.level[static_cast<size_t>(node)], tp.source[static_cast<size_t>(node)],
                                tp.writes[static_cast<size_t>(node)] ? 1 : 0, -1};
    // The group: this buffer with the instances that share its source buffer merged. The source
    // buffer is named by its own source too: two buffers of one level fed from different ones
    // (L1 under U under L1 under U) are not one group because their instances merge alike.
    std::vector<int64_t> group = key;
    group.push_back(source_of_source(node, tensor));
    // Without multicast at the source every instance is its own group.
    const bool multicast = a_.levels[static_cast<size_t>(tp.source[static_cast<size_t>(node)])].multicast;
    const size_t shared = multicast ? source_len_[static_cast<size_t>(tensor)].back() : instance_.size();
    group.insert(group.end(), instance_.begin(), instance_.begin() + static_cast<long>(shared));
    group.push_back(-2);
    group.insert(group.end(), partition_.begin(), partition_.end());
    key.insert(key.end(), instance_.begin(), instance_.end());
    key.push_back(-2);
    key.insert(key.end(), partition_.begin(), partition_.end());
    std::vector<int64_t> at_step = group;
    at_step.push_back(-3);
    at_step.insert(at_step.end(), step_.begin(), step_.end());
    Buffer& b = buffers_[key];
    b.tensor = tensor;
    b.level = tp.level[static_cast<size_t>(node)];
    b.source = tp.source[static_cast<size_t>(node)];
    b.write = tp.writes[static_cast<size_t>(node)];
    b.instance = instance_;
    b.last_owner = node;
    b.owners.insert(node);
    std::set<int64_t> now = touched(node, tensor, boxes);
    std::set<int64_t>& sent = sent_[at_step];
    auto& fill = r_.traffic[static_cast<size_t>(b.level)][static_cast<size_t>(tensor)].fill;
    for (int64_t e : now) {
      if (b.resident.count(e)) continue;
      sent.insert(e);
      if (!b.write) {
        fill += 1;
      } else {
        if (!b.written.insert(e).second) fill += 1;  // a partial sum comes back
        written_[group].insert(e);
      }
    }
    occupy(b.level, tensor, b.instance, static_cast<int64_t>(now.size()) - static_cast<int64_t>(b.resident.size()));
    b.resident = std::move(now);
  }

  // Source side, once the walk is over: per step, what the merged instances took together.
  void charge_sources() {
    std::map<std::vector<int64_t>, int64_t> write_entries;  // group → merged write entries
    for (const auto& [at_step, elems] : sent_) {
      const int tensor = static_cast<int>(at_step[0]), level = static_cast<int>(at_step[1]);
      const int source = static_cast<int>(at_step[2]);
      const bool write = at_step[3] == 1;
      const int64_t n = static_cast<int64_t>(elems.size());
      auto& src = r_.traffic[static_cast<size_t>(source)][static_cast<size_t>(tensor)];
      (write ? src.update : src.read) += n;
      stage(tensor, source, level, n);
      if (write) {
        std::vector<int64_t> group(at_step.begin(), std::find(at_step.begin(), at_step.end(), -3));
        write_entries[group] += n;
      }
    }
    for (const auto& [group, entries] : write_entries) {
      const int tensor = static_cast<int>(group[0]), level = static_cast<int>(group[1]);
      const int source = static_cast<int>(group[2]);
      const int64_t refills = entries - static_cast<int64_t>(written_[group].size());
      r_.traffic[static_cast<size_t>(source)][static_cast<size_t>(tensor)].read += refills;
      stage(tensor, source, level, refills);
    }
  }

  void drop_for_sibling(int seq_node, int next_child) {
    for (auto& [key, b] : buffers_) {
      if (b.resident.empty() || b.last_owner == seq_node || !inside(b.last_owner, seq_node) ||
          inside(b.last_owner, next_child))
        continue;
      bool used_next = false;
      for (int o : b.owners) used_next |= inside(o, next_child);
      if (used_next) continue;
      if (b.instance.size() < instance_.size() || !std::equal(instance_.begin(), instance_.end(), b.instance.begin()))
        continue;
      occupy(b.level, b.tensor, b.instance, -static_cast<int64_t>(b.resident.size()));
      b.resident.clear();
    }
  }

  void visit(int node, const OpBoxes& boxes) {
    const model::TreeNode& n = f_.nodes[static_cast<size_t>(node)];
    if (n.is_leaf) {
      const auto& op = w_.ops[static_cast<size_t>(n.op)];
      int64_t points = 0;
      each_point(n.op, boxes, [&](const std::vector<int64_t>&) { ++points; });
      (op.unit == arch::UnitKind::Matrix ? r_.macs : r_.vector_ops) += points * op.ops_per_point;
      r_.op_work[static_cast<size_t>(n.op)] += points * op.ops_per_point;
      for (const auto& in : op.inputs)
        r_.traffic[static_cast<size_t>(p_.tensors[static_cast<size_t>(in.tensor)].level[static_cast<size_t>(node)])]
                  [static_cast<size_t>(in.tensor)].read += points;
      r_.traffic[static_cast<size_t>(p_.tensors[static_cast<size_t>(op.out.tensor)].level[static_cast<size_t>(node)])]
                [static_cast<size_t>(op.out.tensor)].update += points;
      return;
    }
    for (size_t t = 0; t < w_.tensors.size(); ++t)
      if (p_.tensors[t].owner[static_cast<size_t>(node)]) activate(node, static_cast<int>(t), boxes);
    for (size_t t = 0; t < w_.tensors.size(); ++t)
      if (p_.tensors[t].owner[static_cast<size_t>(node)]) source_len_[t].push_back(instance_.size());
    loop(node, 0, boxes);
    for (size_t t = 0; t < w_.tensors.size(); ++t)
      if (p_.tensors[t].owner[static_cast<size_t>(node)]) source_len_[t].pop_back();
  }

  void loop(int node, size_t li, const OpBoxes& boxes) {
    const model::TreeNode& n = f_.nodes[static_cast<size_t>(node)];
    if (li == n.loops.size()) return children(node, boxes);
    const model::Loop& l = n.loops[li];
    const auto& below = p_.ops_below[static_cast<size_t>(node)];
    const int64_t extent = model::extent_below(w_, below, l.dim, boxes);
    if (extent <= 0) return loop(node, li + 1, boxes);
    // Partial tiles step element by element (a spatial loop leaves its other instances idle).
    if (l.factor > extent && partial_ == 0) {
      std::string msg = "factor " + std::to_string(l.factor) + " for '" + w_.dims[static_cast<size_t>(l.dim)].name +
                        "' exceeds its extent " + std::to_string(extent) + " here";
      for (const auto& pr : r_.problems)
        if (pr.message == msg) return;
      r_.problems.push_back({f_.loc_of(l), msg});
      return;
    }
    const int64_t chunk = (extent + l.factor - 1) / l.factor;
    if (l.spatial) {  // instances are hardware: the same chunk every time, only how many run may differ
      auto [it, fresh] = spatial_split_.insert({{node, li}, {extent, chunk}});
      const bool even = extent % chunk == 0;
      const bool was_even = it->second.first % it->second.second == 0;
      if (!fresh && it->second.first != extent && (it->second.second != chunk || !even || !was_even)) {
        r_.problems.push_back({f_.loc_of(l), "spatial split of a varying extent into different chunks"});
        return;
      }
      if (it->second.first != extent) varying_.insert({node, li});
      // Instances that are not all alike (73 rows over 8: seven of 10, one of 3; or fewer
      // instances in a partial tile) only where nothing below steps (only spatial loops after
      // it in its tile, and no loops below it), or where what buffers below share by multicast
      // allows it (model::runs_may_step_below).
      if ((!even || varying_.count({node, li})) && !nothing_steps_below(node, li) &&
          !model::runs_may_step_below(a_, f_, p_, node, model::dim_uses(w_, p_, node, l.dim))) {
        r_.problems.push_back({f_.loc_of(l), "spatial instances not alike above other loops"});
        return;
      }
    }
    const bool several = l.spatial && chunk < extent;
    if (several) {
      OpBoxes first = boxes, second = boxes;
      model::restrict_and_project(w_, below, l.dim, 0, chunk, first);
      model::restrict_and_project(w_, below, l.dim, chunk, 2 * chunk, second);
      std::vector<std::vector<int64_t>> moves(w_.ops.size(), std::vector<int64_t>(w_.dims.size(), 0));
      for (size_t o = 0; o < w_.ops.size(); ++o)
        for (size_t d = 0; d < w_.dims.size(); ++d)
          moves[o][d] = second[o][static_cast<size_t>(d)].first - first[o][static_cast<size_t>(d)].first;
      spatial_moves_.push_back(std::move(moves));
    }
    for (int64_t i = 0; i * chunk < extent; ++i) {
      OpBoxes b = boxes;
      model::restrict_and_project(w_, below, l.dim, i * chunk, i * chunk + chunk, b);
      if (l.spatial) instance_.push_back(static_cast<int64_t>(node) * 100000 + static_cast<int64_t>(li) * 1000 + i);
      step_.push_back(l.spatial ? -1 : i);
      const bool partial = (i + 1) * chunk > extent;
      partial_ += partial;
      loop(node, li + 1, b);
      partial_ -= partial;
      step_.pop_back();
      if (l.spatial) instance_.pop_back();
    }
    if (several) spatial_moves_.pop_back();
  }

  void children(int node, const OpBoxes& boxes) {
    const model::TreeNode& n = f_.nodes[static_cast<size_t>(node)];
    std::vector<std::pair<int, int64_t>> homes;
    for (size_t t = 0; t < w_.tensors.size(); ++t) {
      const auto& tp = p_.tensors[t];
      if (!w_.tensors[t].is_intermediate() || tp.region != node) continue;
      const int prod = w_.tensors[t].producer;
      std::set<int64_t> s;
      each_point(prod, boxes, [&](const std::vector<int64_t>& x) { s.insert(element(w_.ops[static_cast<size_t>(prod)].out, x)); });
      occupy(tp.home, static_cast<int>(t), instance_, static_cast<int64_t>(s.size()));
      homes.push_back({static_cast<int>(t), static_cast<int64_t>(s.size())});
      source_len_[t].push_back(instance_.size());  // the home buffer: one per instance of this tile
    }
    const bool split = (n.prim == model::Prim::Para || n.prim == model::Prim::Pipe) && n.children.size() > 1;
    const bool drop = n.prim == model::Prim::Seq && n.children.size() > 1;
    for (size_t i = 0; i < n.children.size(); ++i) {
      if (drop) drop_for_sibling(node, n.children[i]);
      if (split) partition_.push_back(static_cast<int64_t>(node) * 1024 + static_cast<int64_t>(i));
      step_.push_back(static_cast<int64_t>(i));
      visit(n.children[i], boxes);
      step_.pop_back();
      if (split) partition_.pop_back();
    }
    for (const auto& [t, elems] : homes) {
      occupy(p_.tensors[static_cast<size_t>(t)].home, t, instance_, -elems);
      source_len_[static_cast<size_t>(t)].pop_back();
    }
  }
};

}  // namespace

model::WalkResult brute_force(const arch::Arch& a, const model::Workload& w, const model::Dataflow& f) {
  return Brute(a, w, f).run();
}

}  // namespace dfx::oracle
