#include "model/placement.h"

#include <algorithm>
#include <utility>


namespace dfx::model {
namespace {

// The ops that read or write a tensor, each with its role: placement asks about these for every
// node, and scanning every op there showed in the search's profiles.
struct Users {
  std::vector<std::pair<size_t, arch::Role>> ops;
  Users(const Workload& w, int tensor) {
    for (size_t o = 0; o < w.ops.size(); ++o) {
      const Op& op = w.ops[o];
      bool touches = op.out.tensor == tensor;
      for (const auto& in : op.inputs) touches |= in.tensor == tensor;
      if (touches) ops.push_back({o, op.role_of(tensor)});
    }
  }
  bool any_below(const OpSet& below) const {
    for (const auto& [o, role] : ops)
      if (below[o]) return true;
    return false;
  }
};

// The level of `node` that can hold every role the tensor plays below it, or -1.
int holding_level(const arch::Arch& a, const TreeNode& node, const Users& users, const OpSet& below) {
  for (int lv : node.levels) {
    bool ok = true;
    for (const auto& [o, role] : users.ops)
      if (below[o]) ok &= a.levels[static_cast<size_t>(lv)].holds[static_cast<int>(role)];
    if (ok) return lv;
  }
  return -1;
}

}  // namespace

namespace {

// An intermediate's region is its fusion tile (the deepest holding producer and consumers);
// its home is that tile's level, unless the tile keeps it elsewhere.
void fusion_home(const arch::Arch& a, const Workload& w, const Dataflow& f, const Placement& p, int t, const Users& users,
                 TensorPlacement& tp) {
  tp.region = fusion_tile(p.ops_below, w.tensors[static_cast<size_t>(t)]);
  const TreeNode& lca = f.nodes[static_cast<size_t>(tp.region)];
  int lca_level = holding_level(a, lca, users, p.ops_below[static_cast<size_t>(tp.region)]);
  if (lca_level < 0) lca_level = lca.levels.empty() ? 0 : lca.levels[0];
  tp.home = lca_level;
  for (const auto& [kt, kl] : lca.keep)
    if (kt == t) tp.home = kl;
}

// Owners: walk down from the region root; a node starts a buffer when its level differs from
// the level above it (levels at or outside the home count as the home). A leaf must find its
// operand in its own tile.
class OwnerWalk {
 public:
  OwnerWalk(const arch::Arch& a, const Workload& w, const Dataflow& f, const Placement& p, int t, const Users& users,
            TensorPlacement& tp, Diagnostics& diag)
      : a_(a), w_(w), f_(f), p_(p), t_(t), users_(users), tp_(tp), diag_(diag) {}

  void walk(int id, int current) {
    const TreeNode& node = f_.nodes[static_cast<size_t>(id)];
    const OpSet& below = p_.ops_below[static_cast<size_t>(id)];
    if (!users_.any_below(below)) return;
    int here = current;
    if (!node.is_leaf && id != tp_.region) {
      int lv = holding_level(a_, node, users_, below);
      bool inside_home = lv >= 0 && lv != tp_.home && a_.encloses(tp_.home, lv);
      bool beside_home = lv >= 0 && !a_.encloses(lv, tp_.home) && !a_.encloses(tp_.home, lv);
      if (inside_home || beside_home) here = lv;
      if (here != current) tp_.owner[static_cast<size_t>(id)] = true, tp_.source[static_cast<size_t>(id)] = current;
    }
    tp_.level[static_cast<size_t>(id)] = here;
    if (node.is_leaf) check_leaf(node, current);
    for (int c : node.children) walk(c, here);
  }

 private:
  const arch::Arch& a_;
  const Workload& w_;
  const Dataflow& f_;
  const Placement& p_;
  const int t_;
  const Users& users_;
  TensorPlacement& tp_;
  Diagnostics& diag_;

  void check_leaf(const TreeNode& leaf, int level) {
    const TreeNode& par = f_.nodes[static_cast<size_t>(leaf.parent)];
    bool held = false;
    for (int lv : par.levels) held |= lv == level;
    const Op& op = w_.ops[static_cast<size_t>(leaf.op)];
    const char* role = arch::role_name(op.role_of(t_));
    if (!held || !a_.levels[static_cast<size_t>(level)].holds[static_cast<int>(op.role_of(t_))])
      diag_.add(par.loc, "op '" + op.name + "' reads '" + w_.tensors[static_cast<size_t>(t_)].name + "' (" + role +
                             " operand) from level '" + a_.levels[static_cast<size_t>(level)].name +
                             "', but its tile does not hold it there: add a level that may hold " + role +
                             " data to the tile");
  }
};

}  // namespace

Placement place(const arch::Arch& a, const Workload& w, const Dataflow& f) {
  Placement p;
  const size_t n = f.nodes.size();
  p.ops_below = ops_below(f, w.ops.size());
  Diagnostics diag;
  p.tensors.reserve(w.tensors.size());
  for (size_t t = 0; t < w.tensors.size(); ++t) {
    const Tensor& tensor = w.tensors[t];
    TensorPlacement tp;
    tp.level.assign(n, -1);
    tp.owner.assign(n, false);
    tp.source.assign(n, -1);
    tp.writes.assign(n, false);
    for (size_t i = 0; i < n; ++i)
      tp.writes[i] = tensor.producer >= 0 && p.ops_below[i][static_cast<size_t>(tensor.producer)];
    const Users users(w, static_cast<int>(t));
    if (tensor.is_intermediate()) fusion_home(a, w, f, p, static_cast<int>(t), users, tp);
    OwnerWalk(a, w, f, p, static_cast<int>(t), users, tp, diag).walk(tp.region, tp.home);
    p.tensors.push_back(std::move(tp));
  }
  diag.throw_if_any();
  return p;
}

std::vector<DimUse> dim_uses(const Workload& w, const Placement& p, int node, int dim) {
  const OpSet& below = p.ops_below[static_cast<size_t>(node)];
  // Ops whose boxes a step over `dim` moves: those that use it, and the fused producers whose
  // boxes follow such consumers'. A producer read plainly by `dim` where its output is indexed
  // plainly by `dim` too (C[m,l] written by one GEMM, read as C[m,l] by the next) moves as its
  // consumer does; any other (a window's halo) counts as moved otherwise in every access.
  std::vector<bool> projected(w.ops.size(), false), moved(w.ops.size(), false);
  for (size_t o = 0; o < w.ops.size(); ++o) moved[o] = below[o] && w.ops[o].uses_dim(dim);
  for (size_t o = w.ops.size(); o-- > 0;) {  // consumers after producers: walk backwards
    if (!below[o]) continue;
    const TensorAccess& out = w.ops[o].out;
    for (int c : w.tensors[static_cast<size_t>(out.tensor)].consumers) {
      if (!below[static_cast<size_t>(c)] || !moved[static_cast<size_t>(c)]) continue;
      moved[o] = true;
      projected[o] = projected[o] || projected[static_cast<size_t>(c)];
      for (const TensorAccess& in : w.ops[static_cast<size_t>(c)].inputs) {
        if (in.tensor != out.tensor) continue;
        for (size_t j = 0; j < in.index.size(); ++j)
          if (in.index[j].uses(dim) && !(in.index[j].is(dim) && out.index[j].is(dim))) projected[o] = true;
      }
    }
  }
  std::vector<DimUse> uses(w.tensors.size(), DimUse::None);
  auto look = [&](size_t o, const TensorAccess& acc) {
    DimUse& use = uses[static_cast<size_t>(acc.tensor)];
    if (!moved[o] || use == DimUse::Other) return;
    if (projected[o]) {
      use = DimUse::Other;
      return;
    }
    for (const AffineIndex& ix : acc.index) {
      if (!ix.uses(dim)) continue;
      if (!ix.is(dim)) {
        use = DimUse::Other;
        return;
      }
      use = DimUse::Plain;
    }
  };
  for (size_t o = 0; o < w.ops.size(); ++o) {
    if (!below[o]) continue;
    look(o, w.ops[o].out);
    for (const TensorAccess& in : w.ops[o].inputs) look(o, in);
  }
  return uses;
}

bool runs_may_step_below(const arch::Arch& a, const Dataflow& f, const Placement& p, int node, const std::vector<DimUse>& uses) {
  auto parent = [&](int x) { return f.nodes[static_cast<size_t>(x)].parent; };
  auto strictly_below = [&](int x) {
    for (int y = parent(x); y >= 0; y = parent(y))
      if (y == node) return true;
    return false;
  };
  for (size_t t = 0; t < p.tensors.size(); ++t) {
    const TensorPlacement& tp = p.tensors[t];
    for (int x = node + 1; x < static_cast<int>(f.nodes.size()); ++x) {
      if (!tp.owner[static_cast<size_t>(x)] || !strictly_below(x)) continue;
      if (!a.levels[static_cast<size_t>(tp.source[static_cast<size_t>(x)])].multicast) continue;
      // Its source is the nearest buffer above it: the instances' own when it is below `node`
      // (an owner's, or the tensor's home at its region).
      bool own_source = false;
      for (int y = parent(x); y != node && !own_source; y = parent(y)) own_source = tp.owner[static_cast<size_t>(y)] || y == tp.region;
      if (own_source) continue;
      if (uses[t] == DimUse::Other || (uses[t] == DimUse::None && tp.writes[static_cast<size_t>(x)])) return false;
    }
  }
  return true;
}

}  // namespace dfx::model
