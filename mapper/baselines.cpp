// Named baselines of REFERENCE.md §6 as restricted structures of the template.
#include <algorithm>
#include <functional>

#include "mapper/space.h"

namespace dfx::mapper {

Choice Space::grouped(const std::vector<int>& group_of, model::Prim prim) const {
  Choice c;
  c.group_of = group_of;
  c.prim.assign(static_cast<size_t>(group_of.back() + 1), prim);
  lone_ops_seq(c);
  return c;
}

namespace {

// Dimensions that index every tensor of the given ops (batch, heads), not rows or columns.
bool indexes_all(const model::Workload& w, const std::vector<int>& ops, int d) {
  for (int o : ops) {
    const model::Op& op = w.ops[static_cast<size_t>(o)];
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
}

// The second product's output dims that slide a window over the first's result, or over what the
// element-wise ops between them made of it (a ReLU between two convolutions); empty: no window.
std::vector<int> window_dims(const model::Workload& w, size_t first, size_t second) {
  std::vector<int> out;
  const model::Op& op = w.ops[second];
  auto made_between = [&](int tensor) {
    for (size_t o = first; o < second; ++o)
      if (w.ops[o].out.tensor == tensor) return true;
    return false;
  };
  for (const auto& in : op.inputs) {
    if (!made_between(in.tensor)) continue;
    for (const auto& ix : in.index)
      if (ix.terms.size() > 1 || (ix.terms.size() == 1 && ix.terms[0].coef != 1))
        for (const auto& t : ix.terms)
          if (std::find(op.reduction_dims.begin(), op.reduction_dims.end(), t.dim) == op.reduction_dims.end())
            out.push_back(t.dim);
  }
  return out;
}

}  // namespace

// Restricts a group's tiling to the outer dims that `keep` accepts, and says whether a loop may
// spread over the cores.
void Space::restrict_group(Choice& c, size_t g, const std::function<bool(int)>& keep, bool spread) const {
  auto members = group_members(c);
  std::vector<int> dims = outer_dims(members[g]);
  c.may_tile.resize(members.size());
  c.may_spread.resize(members.size(), 1);
  c.may_tile[g].clear();
  for (int d : dims) c.may_tile[g].push_back(keep(d) ? 1 : 0);
  c.may_spread[g] = spread ? 1 : 0;
}

// Q×K and the softmax fused, ×V after it: Uni-pipe, FLAT-HGran, FLAT-RGran.
void Space::attention_baselines(size_t second_gemm, std::vector<Baseline>& out) const {
  const size_t n = w_.ops.size();
  std::vector<int> flat(n);
  for (size_t o = 0; o < n; ++o) flat[o] = o < second_gemm ? 0 : static_cast<int>(o - second_gemm) + 1;
  std::vector<int> first;
  for (size_t o = 0; o < second_gemm; ++o) first.push_back(static_cast<int>(o));
  auto batch_like = [&](int d) { return indexes_all(w_, first, d); };
  // Uni-pipe pipelines Q×K with the softmax without tiling heads or rows: only batch-like dims
  // step in time, on one core.
  Baseline uni{"Uni-pipe", grouped(flat, model::Prim::Pipe)};
  restrict_group(uni.structure, 0, batch_like, false);
  Baseline hgran{"FLAT-HGran", grouped(flat, model::Prim::Seq)};
  restrict_group(hgran.structure, 0, batch_like, true);
  Baseline rgran{"FLAT-RGran", grouped(flat, model::Prim::Seq)};
  restrict_group(rgran.structure, 0, [](int) { return true; }, true);
  out.push_back(uni), out.push_back(hgran), out.push_back(rgran);
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
  const std::vector<int> window = matrix.size() >= 2 ? window_dims(w_, matrix[0], matrix[1]) : std::vector<int>{};
  // Vector ops between two products: attention's softmax, unless the second slides a window over
  // the first's result (a convolution chain with its activation between: its baselines are below).
  if (matrix.size() >= 2 && matrix[1] > matrix[0] + 1 && window.empty()) attention_baselines(matrix[1], out);
  if (matrix.size() >= 2) {
    const std::vector<int> together(n, 0);
    if (!window.empty()) {  // a convolution chain
      Baseline fused{"Fused-Layer", grouped(together, model::Prim::Seq)};
      restrict_group(fused.structure, 0, [&](int d) { return std::find(window.begin(), window.end(), d) != window.end(); }, true);
      Baseline isos{"ISOS", grouped(together, model::Prim::Seq)};
      restrict_group(isos.structure, 0, [&](int d) { return d == window.front(); }, true);
      out.push_back(fused), out.push_back(isos);
    } else {
      out.push_back({"Chimera", grouped(together, model::Prim::Seq)});
    }
  }
  if (n > 1) out.push_back({"Fused (Pipe)", grouped(std::vector<int>(n, 0), model::Prim::Pipe)});  // one op: Layerwise
  // Only what the allowed primitives can build (a lone op's Seq is always allowed), grouped as
  // the user fixed it, if they did; those kept take the fixed homes of ops' outputs (they were
  // tiled without them: a baseline row ignored --fix OP:home).
  auto allowed = [&](Baseline& b) {
    if (!fixed_groups_.empty() && b.structure.group_of != fixed_groups_) return false;
    // The parts fixed by hand: the same primitives, and loops where the baseline may have them.
    Choice pinned = b.structure;
    pin_structure(pinned);
    if (pinned.prim != b.structure.prim) return false;
    b.structure.home = pinned.home;
    auto members = group_members(b.structure);
    for (size_t g = 0; g < pins_.loops.size(); ++g) {
      const bool spread = b.structure.may_spread.empty() || b.structure.may_spread[g];
      if (pins_.cores[g] >= 0 && (!spread || core_splits(members[g])[static_cast<size_t>(pins_.cores[g])].cores[1] > 1)) return false;
      for (size_t i = 0; i < pins_.loops[g].size(); ++i)
        if (pins_.loops[g][i] > 1 && !may_tile(b.structure, g, i)) return false;
    }
    for (size_t g = 0; g < members.size(); ++g)
      if (members[g].size() > 1 && std::find(prims_.begin(), prims_.end(), b.structure.prim[g]) == prims_.end()) return false;
    return true;
  };
  out.erase(std::remove_if(out.begin(), out.end(), [&](Baseline& b) { return !allowed(b); }), out.end());
  return out;
}

}  // namespace dfx::mapper
