#include "model/walk_support.h"

#include <algorithm>

namespace dfx::model {

int Contexts::enter(int ctx, int64_t value) {
  for (const auto& [v, id] : kids_[static_cast<size_t>(ctx)])
    if (v == value) return id;
  const int id = static_cast<int>(parent_.size());
  parent_.push_back(ctx), depth_.push_back(depth_[static_cast<size_t>(ctx)] + 1);
  if (kids_.size() <= static_cast<size_t>(id)) kids_.emplace_back();
  else kids_[static_cast<size_t>(id)].clear();
  kids_[static_cast<size_t>(ctx)].push_back({value, id});
  return id;
}

bool Contexts::within(int ctx, int ancestor) const {
  while (depth_[static_cast<size_t>(ctx)] > depth_[static_cast<size_t>(ancestor)]) ctx = parent_[static_cast<size_t>(ctx)];
  return ctx == ancestor;
}

std::vector<int> subtree_ends(const Dataflow& f) {
  std::vector<int> end(f.nodes.size(), 0);
  for (size_t i = f.nodes.size(); i-- > 0;) {
    end[i] = static_cast<int>(i) + 1;
    for (int c : f.nodes[i].children) end[i] = std::max(end[i], end[static_cast<size_t>(c)]);
  }
  return end;
}

std::vector<int> own_ops(const Dataflow& f) {
  // Children come after their parent: per node, bottom-up, its leaves and the op of its only one.
  std::vector<int> leaves(f.nodes.size(), 0), only_op(f.nodes.size(), -1);
  for (size_t i = f.nodes.size(); i-- > 0;) {
    const TreeNode& n = f.nodes[i];
    if (n.is_leaf) leaves[i] = 1, only_op[i] = n.op;
    for (int c : n.children) {
      leaves[i] += leaves[static_cast<size_t>(c)];
      if (leaves[static_cast<size_t>(c)] == 1) only_op[i] = only_op[static_cast<size_t>(c)];
    }
  }
  std::vector<int> own(f.nodes.size(), -1);
  for (size_t i = 0; i < f.nodes.size(); ++i) {
    const int parent = f.nodes[i].parent;
    if (leaves[i] == 1 && (parent < 0 || leaves[static_cast<size_t>(parent)] > 1)) own[i] = only_op[i];
  }
  return own;
}

std::vector<int> source_anchors(const Workload& w, const Dataflow& f, const Placement& p) {
  const size_t n = f.nodes.size(), tensors = w.tensors.size();
  std::vector<int> out(n * tensors, -1);
  for (size_t t = 0; t < tensors; ++t) {
    const auto& tp = p.tensors[t];
    for (size_t i = 0; i < n; ++i) {
      if (!tp.owner[i]) continue;
      int a = f.nodes[i].parent;
      while (a >= 0 && a != tp.region && !tp.owner[static_cast<size_t>(a)]) a = f.nodes[static_cast<size_t>(a)].parent;
      if (a >= 0 && tp.owner[static_cast<size_t>(a)]) out[i * tensors + t] = a;
      else if (w.tensors[t].is_intermediate()) out[i * tensors + t] = -2 - tp.region;
    }
  }
  return out;
}

std::vector<int> source_prefixes(const Dataflow& f, const std::vector<int>& anchors) {
  const size_t n = f.nodes.size();
  std::vector<int> above(n, 0), own(n, 0);  // spatial loops in strict ancestors, and a node's own
  for (size_t i = 0; i < n; ++i) {
    for (const auto& l : f.nodes[i].loops) own[i] += l.spatial;
    if (i > 0) above[i] = above[static_cast<size_t>(f.nodes[i].parent)] + own[static_cast<size_t>(f.nodes[i].parent)];
  }
  std::vector<int> out(anchors.size(), 0);
  for (size_t k = 0; k < anchors.size(); ++k) {  // [node * tensors + tensor]
    const int a = anchors[k];
    if (a >= 0) out[k] = above[static_cast<size_t>(a)];
    else if (a <= -2) out[k] = above[static_cast<size_t>(-2 - a)] + own[static_cast<size_t>(-2 - a)];
  }
  return out;
}

int64_t merged_fresh(const MultiSlice& now, const MultiSlice& before, int64_t fresh, const Spreads& spreads) {
  if (spreads.empty()) return fresh;  // the instances need the same elements: sent once
  // Instances move alike: when the representative holds all it needs, so does every instance.
  if (fresh == 0) return 0;
  if (before.empty() && now.parts.size() == 1) {  // nothing held yet: the spread slice itself
    Slice all = now.parts.front();
    for (const auto& [axis, step, count] : spreads) all[axis] = spread_set(all[axis], step, count);
    return slice_size(all);
  }
  if (now.parts.size() == 1 && before.parts.size() == 1) {
    // One slice each: now − before is the union of the peeled products (A1∩B1)×…×(Aj−Bj)×Aj+1×…,
    // and spreading a product spreads each of its dimensions; the union is then sized by
    // inclusion–exclusion (MultiSlice::size), with no disjoint pieces to build.
    const Slice& a = now.parts.front();
    const Slice& b = before.parts.front();
    MultiSlice spread;
    Slice lead = a;
    for (size_t j = 0; j < a.size(); ++j) {
      IndexSet outside = a[j].minus(b[j]);
      if (!outside.empty()) {
        Slice piece = lead;
        piece[j] = std::move(outside);
        for (const auto& [axis, step, count] : spreads) piece[axis] = spread_set(piece[axis], step, count);
        spread.add(std::move(piece));
      }
      lead[j] = a[j].intersect(b[j]);
      if (lead[j].empty()) break;
    }
    return spread.size();
  }
  Region region = Region::difference(now, before);
  for (const auto& [axis, step, count] : spreads) region.spread(axis, step, count);
  return region.size();
}

BufferAccesses::BufferAccesses(const Workload& w, const Dataflow& f, const Placement& p)
    : tensors_(w.tensors.size()), at_(f.nodes.size() * w.tensors.size() + 1, 0) {
  // Counted, then placed: per (node, tensor) in the order of the ops, an op's output before its
  // inputs, as a slice adds them.
  auto each = [&](auto&& visit) {
    for (size_t node = 0; node < f.nodes.size(); ++node)
      for (size_t o = 0; o < w.ops.size(); ++o) {
        if (!p.ops_below[node][o]) continue;
        const Op& op = w.ops[o];
        visit(node * tensors_ + static_cast<size_t>(op.out.tensor), Access{static_cast<int>(o), &op.out});
        for (const auto& in : op.inputs) visit(node * tensors_ + static_cast<size_t>(in.tensor), Access{static_cast<int>(o), &in});
      }
  };
  each([&](size_t k, const Access&) { ++at_[k + 1]; });
  for (size_t k = 1; k < at_.size(); ++k) at_[k] += at_[k - 1];
  std::vector<const TensorAccess*> first(w.tensors.size(), nullptr);
  auto note = [&](const TensorAccess& acc) {
    const TensorAccess*& seen = first[static_cast<size_t>(acc.tensor)];
    if (!seen) seen = &acc;
    if (!seen->indexes_alike(acc) && !read_two_ways(acc.tensor)) read_two_ways_.push_back(acc.tensor);
  };
  for (const Op& op : w.ops) {
    note(op.out);
    for (const auto& in : op.inputs) note(in);
  }
  table_.resize(at_.back());
  std::vector<uint32_t> next(at_.begin(), at_.end() - 1);
  each([&](size_t k, const Access& a) { table_[next[k]++] = a; });
}

MultiSlice BufferAccesses::slice(int node, int tensor, const OpBoxes& boxes) const {
  MultiSlice s;
  for (const Access& a : of(node, tensor)) s.add_access(*a.access, boxes[static_cast<size_t>(a.op)]);
  return s;
}

// True if boxes step by the same offset from `first` to `second` and on to `last`, `steps`
// steps after `first`. Box ends are convex (starts) or concave (ends) in the step, so three
// points on one line mean every step in between is on it too.
int64_t box_points(const Workload& w, int o, const OpBoxes& boxes) {
  int64_t points = 1;
  for (int d : w.ops[static_cast<size_t>(o)].dims) {
    const Range& r = boxes[static_cast<size_t>(o)][static_cast<size_t>(d)];
    points *= r.second - r.first;
  }
  return points;
}

bool runs_in_phases(const arch::Arch& a, const Dataflow& f, const Placement& p, const std::vector<std::vector<int>>& fused, int node) {
  const TreeNode& n = f.nodes[static_cast<size_t>(node)];
  if (n.prim != Prim::Seq || n.children.size() < 2) return false;
  for (int t : fused[static_cast<size_t>(node)])
    if (!a.addressable(p.tensors[static_cast<size_t>(t)].home)) return true;
  return false;
}

bool evenly_spaced(const OpBoxes& first, const OpBoxes& second, const OpBoxes& last, int64_t steps) {
  if (first.empty()) return true;
  const Range *a = first[0], *b = second[0], *z = last[0];  // boxes are flat: one pass over them all
  for (size_t i = 0, n = first.size() * first.dims(); i < n; ++i) {
    const int64_t dlo = b[i].first - a[i].first;
    if (b[i].second - a[i].second != dlo || z[i].first != a[i].first + steps * dlo ||
        z[i].second != a[i].second + steps * dlo)
      return false;
  }
  return true;
}

void unite_per_dim(Slice& into, const Slice& part) {
  for (size_t j = 0; j < part.size(); ++j)
    if (!into[j].contains(part[j])) into[j].unite(part[j]);
}

void unite_by_stream(std::vector<std::pair<int, Slice>>& covers, int id, const Slice& part) {
  auto at = std::find_if(covers.begin(), covers.end(), [&](const auto& e) { return e.first == id; });
  if (at == covers.end()) covers.emplace_back(id, part);
  else unite_per_dim(at->second, part);
}

}  // namespace dfx::model
