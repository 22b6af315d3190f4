#include "model/cycles_floor.h"

#include <algorithm>


namespace dfx::model {
namespace {

// Whether op `o` certainly computes every point, and its spatial instances alike: each consumer
// reads its output plainly (every index one of its dimensions, whole), so a fusion that clips
// `o`'s box to what a consumer's step reads clips it to a box of that step's size. Shifted or
// strided reads (convolution windows) clip instances at an edge to less than the others.
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

}  // namespace

int64_t pes_needed(const Dataflow& f, const Workload& w, int node, arch::UnitKind kind) {
  const TreeNode& n = f.nodes[static_cast<size_t>(node)];
  if (n.is_leaf) return w.ops[static_cast<size_t>(n.op)].unit == kind ? 1 : 0;
  int64_t kids = 0;
  for (int c : n.children) {
    const int64_t k = pes_needed(f, w, c, kind);
    kids = (n.prim == Prim::Seq || n.prim == Prim::Shar) ? std::max(kids, k) : kids + k;
  }
  int64_t spatial = 1;
  for (const auto& l : n.loops)
    if (l.spatial) spatial *= l.factor;
  return spatial * kids;
}

double cycles_floor(const arch::Arch& a, const Workload& w, const Dataflow& f) {
  for (const auto& u : a.units)
    if (u.schedule == arch::ComputeUnit::Schedule::Instruction) return 0;
  double floor = 0;
  for (auto kind : {arch::UnitKind::Matrix, arch::UnitKind::Vector}) {
    double work = 0;
    for (size_t o = 0; o < w.ops.size(); ++o) {
      const Op& op = w.ops[o];
      if (op.unit != kind || !computed_in_full(w, o)) continue;
      double points = static_cast<double>(op.ops_per_point);
      for (int d : op.dims) points *= static_cast<double>(w.dims[static_cast<size_t>(d)].size);
      work += points;
    }
    const int64_t pes = pes_needed(f, w, 0, kind);
    if (work > 0 && pes > 0) floor = std::max(floor, work / static_cast<double>(pes));
  }
  return floor;
}

}  // namespace dfx::model
