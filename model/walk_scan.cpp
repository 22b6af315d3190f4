// Before a subtree is walked: how many instances each of its spatial loops runs in each step, so
// that one whose count changes (a partial tile above it) is walked in classes from its first step
// on (Walker::Passes). The same visits as loops() makes, without the buffers.
#include "model/walker.h"

namespace dfx::model {

// Without windows or strides, the extents a tile sees are what the loops above leave of each
// dim: if every temporal factor divides that, no step is partial and every spatial loop runs
// the same number of instances each time. (Were this wrong, the walk would find a changed
// count and walk_tree() walk again: needs_classes.)
bool Walker::steps_alike() const {
  auto plain = [](const TensorAccess& acc) {
    for (const auto& ix : acc.index)
      if (ix.terms.size() > 1 || (ix.terms.size() == 1 && ix.terms.front().coef != 1)) return false;
    return true;
  };
  for (const Op& op : w_.ops) {
    if (!plain(op.out)) return false;
    for (const auto& in : op.inputs)
      if (!plain(in)) return false;
  }
  // Nodes are in pre-order: a parent's extents are known before its children's.
  std::vector<std::vector<int64_t>> left(f_.nodes.size());
  for (size_t i = 0; i < f_.nodes.size(); ++i) {
    const TreeNode& n = f_.nodes[i];
    if (n.parent < 0) {
      for (const auto& d : w_.dims) left[i].push_back(d.size);
    } else {
      left[i] = left[static_cast<size_t>(n.parent)];
    }
    for (const Loop& l : n.loops) {
      int64_t& e = left[i][static_cast<size_t>(l.dim)];
      if (!l.spatial && e % l.factor != 0) return false;
      e = (e + l.factor - 1) / l.factor;
    }
  }
  return true;
}

void Walker::scan_classes(int node, const OpBoxes& boxes) {
  if (given_classes_ || alike_steps_) return;
  BoxPool::Lease b(pool_, boxes);
  scan_loops(node, 0, *b);
  // Loops that run one number of instances need no classes (and no look-up in the walk).
  for (auto it = scanned_.begin(); it != scanned_.end();) it = it->second.size() > 1 ? std::next(it) : scanned_.erase(it);
  classes_ = &scanned_;
}

void Walker::scan_loops(int node, size_t li, OpBoxes& boxes) {
  const TreeNode& n = f_.nodes[static_cast<size_t>(node)];
  if (n.is_leaf) return;
  if (li == n.loops.size()) {
    for (int c : n.children) scan_loops(c, 0, boxes);
    return;
  }
  const Loop& loop = n.loops[li];
  const int64_t extent = index_.extent(node, loop.dim, boxes);
  if (extent <= 0) return scan_loops(node, li + 1, boxes);
  const auto [chunk, trips, last] = cut(extent, loop.factor);
  auto at = [&, chunk = chunk](int64_t i) { return step_boxes(node, loop.dim, chunk, i, boxes); };
  auto step = [&](int64_t i) { scan_loops(node, li + 1, *at(i)); };
  if (loop.spatial) {
    std::vector<int64_t>& counts = scanned_[{node, li}];
    const auto pos = std::lower_bound(counts.begin(), counts.end(), trips);
    if (pos == counts.end() || *pos != trips) counts.insert(pos, trips);
    step(0);
    if (last != chunk) step(trips - 1);
    return;
  }
  const int64_t full = last == chunk ? trips : trips - 1;
  if (full >= 1) step(0);
  if (full == 2) step(1);
  if (full > 2) {
    if (evenly_spaced(*at(1), *at(2), *at(full - 1), full - 2)) step(1);
    else for (int64_t i = 1; i < full; ++i) step(i);
  }
  if (full < trips) step(trips - 1);
}

}  // namespace dfx::model
