// Named baselines of REFERENCE.md §6 as restricted structures of the template.
#include <algorithm>
#include <functional>

#include "mapper/space.h"

namespace dfx::mapper {

Choice Space::grouped(const std::vector<int>& group_of, model::Prim prim) const {
  Choice c;
  c.group_of = group_of;
  c.prim.assign(static_cast<size_t>(group_of.back() + 1), prim);
  return c;
}

std::vector<Baseline> Space::baselines() const {
  const size_t n = w_.ops.size();
  std::vector<size_t> matrix;
  for (size_t o = 0; o < n; ++o)
    if (w_.ops[o].unit == arch::UnitKind::Matrix) matrix.push_back(o);
  std::vector<Baseline> out;
  std::vector<int> alone(n);
  for (size_t o = 0; o < n; ++o) alone[o] = static_cast<int>(o);
  out.push_back({"Layerwise", grouped(alone, model::Prim::Seq)});

  // Restrict a group's tiling to the outer dims that `keep` accepts.
  auto restrict = [&](Choice& c, size_t g, const std::function<bool(int)>& keep, bool spread) {
    auto members = group_members(c);
    std::vector<int> dims = outer_dims(members[g]);
    c.may_tile.resize(members.size());
    c.may_spread.resize(members.size(), 1);
    c.may_tile[g].clear();
    for (int d : dims) c.may_tile[g].push_back(keep(d) ? 1 : 0);
    c.may_spread[g] = spread ? 1 : 0;
  };
  // Dimensions that index every tensor of a group's ops (batch, heads) and the others (rows).
  auto indexes_all = [&](const std::vector<int>& ops, int d) {
    for (int o : ops) {
      const model::Op& op = w_.ops[static_cast<size_t>(o)];
      std::vector<const model::TensorAccess*> all = {&op.out};
      for (const auto& in : op.inputs) all.push_back(&in);
      for (const auto* acc : all) {
        bool has = false;
        for (const auto& ix : acc->index)
          for (const auto& t : ix.terms) has |= t.dim == d;
        if (!has) return false;
      }
    }
    return true;
  };

  const bool attention = matrix.size() >= 2 && matrix[1] > matrix[0] + 1;  // vector ops between two GEMMs
  if (attention) {
    std::vector<int> flat(n);  // Q×K and the softmax fused, ×V after it
    for (size_t o = 0; o < n; ++o) flat[o] = o < matrix[1] ? 0 : static_cast<int>(o - matrix[1]) + 1;
    std::vector<int> first;
    for (size_t o = 0; o < matrix[1]; ++o) first.push_back(static_cast<int>(o));
    // Uni-pipe pipelines Q×K with the softmax without tiling heads or rows: only batch-like
    // dims step in time, on one core.
    Baseline uni{"Uni-pipe", grouped(flat, model::Prim::Pipe)};
    restrict(uni.structure, 0, [&](int d) { return indexes_all(first, d); }, false);
    Baseline hgran{"FLAT-HGran", grouped(flat, model::Prim::Seq)};
    restrict(hgran.structure, 0, [&](int d) { return indexes_all(first, d); }, true);
    Baseline rgran{"FLAT-RGran", grouped(flat, model::Prim::Seq)};
    restrict(rgran.structure, 0, [](int) { return true; }, true);
    out.push_back(uni), out.push_back(hgran), out.push_back(rgran);
  }
  if (matrix.size() >= 2) {
    // A windowed read of the first product by the second: a convolution chain.
    bool windowed = false;
    std::vector<int> window_dims;  // the consumer's output rows/cols that slide a window
    const model::Op& second = w_.ops[matrix[1]];
    for (const auto& in : second.inputs) {
      if (in.tensor != w_.ops[matrix[0]].out.tensor) continue;
      for (const auto& ix : in.index)
        if (ix.terms.size() > 1 || (ix.terms.size() == 1 && ix.terms[0].coef != 1)) {
          windowed = true;
          for (const auto& t : ix.terms)
            if (std::find(second.reduction_dims.begin(), second.reduction_dims.end(), t.dim) == second.reduction_dims.end())
              window_dims.push_back(t.dim);
        }
    }
    std::vector<int> together(n, 0);
    if (windowed) {
      Baseline fused{"Fused-Layer", grouped(together, model::Prim::Seq)};
      restrict(fused.structure, 0, [&](int d) { return std::find(window_dims.begin(), window_dims.end(), d) != window_dims.end(); }, true);
      Baseline isos{"ISOS", grouped(together, model::Prim::Seq)};
      const int rows = window_dims.empty() ? -1 : window_dims.front();
      restrict(isos.structure, 0, [&](int d) { return d == rows; }, true);
      out.push_back(fused), out.push_back(isos);
    } else {
      out.push_back({"Chimera", grouped(together, model::Prim::Seq)});
    }
  }
  out.push_back({"Fused (Pipe)", grouped(std::vector<int>(n, 0), model::Prim::Pipe)});
  // Only what the allowed primitives can build (a lone op's Seq is always allowed).
  auto allowed = [&](const Baseline& b) {
    auto members = group_members(b.structure);
    for (size_t g = 0; g < members.size(); ++g)
      if (members[g].size() > 1 && std::find(prims_.begin(), prims_.end(), b.structure.prim[g]) == prims_.end()) return false;
    return true;
  };
  out.erase(std::remove_if(out.begin(), out.end(), [&](const Baseline& b) { return !allowed(b); }), out.end());
  return out;
}

}  // namespace dfx::mapper
