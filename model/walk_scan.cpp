// Before a subtree is walked: how many instances each of its spatial loops runs in each step, so
// that one whose count changes (a partial tile above it) is walked in classes from its first step
// on (Walker::Passes). The same visits as the walks' loops make, without the buffers.
#include "model/walk_scan.h"

#include <algorithm>

namespace dfx::model {

InstanceScan::InstanceScan(const Workload& w, const Dataflow& f, const TileIndex& index, const std::vector<char>& buffers_below,
                           const ScanBasis& basis)
    : w_(w), f_(f), index_(index), buffers_below_(buffers_below), basis_(basis) {
  plain_ = basis.plain;
  to_scan_ = subtrees_to_scan();
}

void InstanceScan::note_spreads() {
  spread_below_.assign(f_.nodes.size(), 0);
  for (size_t i = f_.nodes.size(); i-- > 0;) {  // children after their parent
    for (const Loop& l : f_.nodes[i].loops)
      if (l.spatial) spread_below_[i] |= basis_.tied[static_cast<size_t>(l.dim)];
    for (int c : f_.nodes[i].children) spread_below_[i] |= spread_below_[static_cast<size_t>(c)];
  }
}

uint64_t InstanceScan::spread_after(int node, size_t li) const {
  const TreeNode& n = f_.nodes[static_cast<size_t>(node)];
  uint64_t dims = 0;
  for (size_t k = li + 1; k < n.loops.size(); ++k)
    if (n.loops[k].spatial) dims |= basis_.tied[static_cast<size_t>(n.loops[k].dim)];
  for (int c : n.children) dims |= spread_below_[static_cast<size_t>(c)];
  return dims;
}

ScanBasis scan_basis(const Workload& w) {
  ScanBasis b;
  auto plain = [](const TensorAccess& acc) {
    for (const auto& ix : acc.index)
      if (ix.terms.size() > 1 || (ix.terms.size() == 1 && ix.terms.front().coef != 1)) return false;
    return true;
  };
  b.plain = w.every_access(plain);
  if (w.dims.size() > 64) return b;
  auto plain_index = [](const AffineIndex& ix) { return ix.terms.size() == 1 && ix.terms.front().coef == 1; };
  auto dims_of = [](const AffineIndex& ix) {
    uint64_t m = 0;
    for (const auto& t : ix.terms) m |= uint64_t{1} << t.dim;
    return m;
  };
  w.every_access([&](const TensorAccess& acc) {
    for (const auto& ix : acc.index)
      if (!plain_index(ix)) b.irregular |= dims_of(ix);
    return true;
  });
  b.tied.resize(w.dims.size());
  for (size_t d = 0; d < b.tied.size(); ++d) b.tied[d] = uint64_t{1} << d;
  for (bool grew = true; grew;) {
    grew = false;
    for (const Op& op : w.ops)
      for (const auto& in : op.inputs) {
        const int producer = w.tensors[static_cast<size_t>(in.tensor)].producer;
        if (producer < 0) continue;
        const TensorAccess& out = w.ops[static_cast<size_t>(producer)].out;
        for (size_t j = 0; j < in.index.size() && j < out.index.size(); ++j) {
          if (in.index[j].terms.empty() || out.index[j].terms.empty()) continue;
          auto& x = b.tied[static_cast<size_t>(in.index[j].terms[0].dim)];
          auto& y = b.tied[static_cast<size_t>(out.index[j].terms[0].dim)];
          if (x != y) x = y = x | y, grew = true;
        }
      }
  }
  for (size_t d = 0; d < b.tied.size(); ++d)
    if (b.irregular >> d & 1) b.irregular |= b.tied[d];
  return b;
}

std::vector<char> owners_below(const Workload& w, const Dataflow& f, const Placement& p) {
  // Children come after their parent: bottom-up, whether a node or one below it owns a buffer.
  std::vector<char> owns(f.nodes.size(), 0), below(f.nodes.size(), 0);
  for (size_t i = f.nodes.size(); i-- > 0;) {
    for (size_t t = 0; t < w.tensors.size() && !owns[i]; ++t) owns[i] = p.tensors[t].owner[i];
    for (int c : f.nodes[i].children) below[i] |= owns[static_cast<size_t>(c)] | below[static_cast<size_t>(c)];
  }
  return below;
}

// Along plain dims the extents a tile sees are what the loops above leave of each dim, and a step
// is partial only along the dim of a loop that does not divide what it sees (and along the dims
// fusion ties to it: a producer's box follows what its consumers read). Dims that windows or
// strides index (ScanBasis::irregular) are taken as partial everywhere. A spatial loop over a
// dim no such loop has cut runs the same number of instances in every step, so a subtree
// holding only those needs no scan, nor one with no buffers below its spatial loops (its
// instances' runs only split their work). Per node: whether its subtree needs one. (Were this
// wrong, the walk would find a changed count and walk_tree() walk again: needs_classes.)
std::vector<char> InstanceScan::subtrees_to_scan() const {
  std::vector<char> scan(f_.nodes.size(), 1);
  if (w_.dims.size() > 64) return scan;
  const std::vector<uint64_t>& tied = basis_.tied;  // dims a fused read ties together
  // Nodes are in pre-order: a parent's extents and cut dims are known before its children's.
  const size_t dims = w_.dims.size();
  std::vector<int64_t> left(f_.nodes.size() * dims);  // [node * dims + dim]: what the loops above leave
  std::vector<uint64_t> cut(f_.nodes.size(), 0);  // dims some step above may leave partial
  std::fill(scan.begin(), scan.end(), 0);
  for (size_t i = 0; i < f_.nodes.size(); ++i) {
    const TreeNode& n = f_.nodes[i];
    int64_t* here = left.data() + i * dims;
    if (n.parent < 0) {
      for (size_t d = 0; d < dims; ++d) here[d] = w_.dims[d].size;
      // Windows and strides: a fused producer's extent along them follows where the step lies
      // (clipped at the edges), not the loops alone — taken as cut everywhere. Plain dims still
      // see what the loops above leave (fusion ties them to plain dims only).
      cut[i] = basis_.irregular;
    } else {
      std::copy_n(left.data() + static_cast<size_t>(n.parent) * dims, dims, here), cut[i] = cut[static_cast<size_t>(n.parent)];
    }
    for (const Loop& l : n.loops) {
      const auto dim = static_cast<size_t>(l.dim);
      if (l.spatial && (cut[i] >> dim & 1) && buffers_below_[i]) scan[i] = 1;
      int64_t& e = here[dim];
      if (e % l.factor != 0) cut[i] |= tied[dim];
      e = (e + l.factor - 1) / l.factor;
    }
  }
  for (size_t i = f_.nodes.size(); i-- > 1;)
    if (scan[i]) scan[static_cast<size_t>(f_.nodes[i].parent)] = 1;
  return scan;
}

bool InstanceScan::scan(int node, const OpBoxes& boxes, InstanceCounts& found) {
  if (!to_scan_[static_cast<size_t>(node)]) return false;
  if (spread_below_.empty() && w_.dims.size() <= 64) note_spreads();  // made for the first scan only
  BoxPool::Lease b(pool_, boxes);
  loops(node, 0, *b, found);
  // Loops that run one number of instances need no classes (and no look-up in the walk).
  for (auto it = found.begin(); it != found.end();) it = it->second.size() > 1 ? std::next(it) : found.erase(it);
  return true;
}

void InstanceScan::loops(int node, size_t li, OpBoxes& boxes, InstanceCounts& found) {
  const TreeNode& n = f_.nodes[static_cast<size_t>(node)];
  if (n.is_leaf) return;
  if (li == n.loops.size()) {
    for (int c : n.children)
      if (to_scan_[static_cast<size_t>(c)]) loops(c, 0, boxes, found);  // the others' counts never change
    return;
  }
  const Loop& loop = n.loops[li];
  const int64_t extent = index_.extent(node, loop.dim, boxes);
  if (extent <= 0) return loops(node, li + 1, boxes, found);
  const auto [chunk, trips, last] = cut(extent, loop.factor);
  auto at = [&, chunk = chunk](int64_t i) {
    BoxPool::Lease b(pool_, boxes);
    index_.restrict(node, loop.dim, i * chunk, i * chunk + chunk, *b);
    return b;
  };
  auto step = [&](int64_t i) { loops(node, li + 1, *at(i), found); };
  if (loop.spatial) {
    std::vector<int64_t>& counts = found[{node, li}];
    const auto pos = std::lower_bound(counts.begin(), counts.end(), trips);
    if (pos == counts.end() || *pos != trips) counts.insert(pos, trips);
    step(0);
    if (last != chunk) step(trips - 1);
    return;
  }
  // A loop over dims no spatial loop below is tied to moves nothing their counts follow: a step
  // cuts only its own dim and the dims fusion ties to it (restrict_and_project). One step stands
  // for all.
  if (!spread_below_.empty() && !(spread_after(node, li) >> loop.dim & 1)) return step(0);
  const int64_t full = last == chunk ? trips : trips - 1;
  if (full >= 1) step(0);
  // Plain accesses: every full step leaves the tiles below the same extents as the first, and
  // instance counts follow extents alone.
  if (plain_) {
    if (full < trips) step(trips - 1);
    return;
  }
  if (full == 2) step(1);
  if (full > 2) {
    if (evenly_spaced(*at(1), *at(2), *at(full - 1), full - 2)) step(1);
    else for (int64_t i = 1; i < full; ++i) step(i);
  }
  if (full < trips) step(trips - 1);
}

}  // namespace dfx::model
