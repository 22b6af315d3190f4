#include "model/cycles_floor.h"

#include <algorithm>
#include <vector>

namespace dfx::model {
namespace {

// The latency of `node`'s subtree over all its visits, per spatial instance of it, is at least
// this: a leaf's work (all of it, over every visit, when computed in full; else nothing), Seq and
// Shar children one after another, Para and Pipe children beside one another (the longest), and
// the node's spatial instances each doing an equal share (an op that does not use a spatial
// loop's dimension is repeated on every instance: dividing its work is still below).
double subtree_floor(const Workload& w, const Dataflow& f, const std::vector<bool>& full, int node) {
  const TreeNode& n = f.nodes[static_cast<size_t>(node)];
  if (n.is_leaf) {
    const Op& op = w.ops[static_cast<size_t>(n.op)];
    if (!full[static_cast<size_t>(n.op)]) return 0;
    double points = static_cast<double>(op.ops_per_point);
    for (int d : op.dims) points *= static_cast<double>(w.dims[static_cast<size_t>(d)].size);
    return points;
  }
  double kids = 0;
  for (int c : n.children) {
    const double k = subtree_floor(w, f, full, c);
    kids = (n.prim == Prim::Seq || n.prim == Prim::Shar) ? kids + k : std::max(kids, k);
  }
  double spatial = 1;
  for (const auto& l : n.loops)
    if (l.spatial) spatial *= static_cast<double>(l.factor);
  return kids / spatial;
}

}  // namespace

// A fused producer computes what its consumers read: a shifted or strided read (a convolution
// window) clips instances at an edge to less than the others.
bool computed_in_full(const Workload& w, size_t o) {
  const int out = w.ops[o].out.tensor;
  const Tensor& t = w.tensors[static_cast<size_t>(out)];
  for (int c : t.consumers)
    for (const TensorAccess& in : w.ops[static_cast<size_t>(c)].inputs) {
      if (in.tensor != out) continue;
      for (size_t j = 0; j < in.index.size(); ++j) {
        const AffineIndex& ix = in.index[j];
        if (ix.offset != 0 || ix.terms.size() != 1 || ix.terms[0].coef != 1 ||
            w.dims[static_cast<size_t>(ix.terms[0].dim)].size != t.shape[j])
          return false;
      }
    }
  return true;
}

namespace {

std::vector<bool> ops_computed_in_full(const Workload& w) {
  std::vector<bool> full(w.ops.size());
  for (size_t o = 0; o < w.ops.size(); ++o) full[o] = computed_in_full(w, o);
  return full;
}

}  // namespace

double cycles_floor(const arch::Arch& a, const Workload& w, const Dataflow& f) {
  if (a.instruction_timed()) return 0;
  return subtree_floor(w, f, ops_computed_in_full(w), 0);
}

std::vector<double> floors_of_later_children(const arch::Arch& a, const Workload& w, const Dataflow& f, int node) {
  if (a.instruction_timed()) return {};
  const std::vector<bool> full = ops_computed_in_full(w);
  const std::vector<int>& children = f.nodes[static_cast<size_t>(node)].children;
  std::vector<double> later(children.size(), 0);
  for (size_t i = children.size(); i-- > 1;) later[i - 1] = later[i] + subtree_floor(w, f, full, children[i]);
  return later;
}

}  // namespace dfx::model
