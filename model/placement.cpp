#include "model/placement.h"

#include <functional>

namespace dfx::model {
namespace {

// The level of `node` that can hold every role the tensor plays below it, or -1.
int holding_level(const arch::Arch& a, const Workload& w, const TreeNode& node, int tensor,
                  const std::vector<bool>& below) {
  for (int lv : node.levels) {
    bool ok = true;
    for (size_t o = 0; o < w.ops.size(); ++o) {
      if (!below[o]) continue;
      const Op& op = w.ops[o];
      bool touches = op.out.tensor == tensor;
      for (const auto& in : op.inputs) touches |= in.tensor == tensor;
      if (touches) ok &= a.levels[static_cast<size_t>(lv)].holds[static_cast<int>(op.role_of(tensor))];
    }
    if (ok) return lv;
  }
  return -1;
}

bool touches(const Op& op, int tensor) {
  if (op.out.tensor == tensor) return true;
  for (const auto& in : op.inputs)
    if (in.tensor == tensor) return true;
  return false;
}

}  // namespace

Placement place(const arch::Arch& a, const Workload& w, const Dataflow& f) {
  Placement p;
  const size_t n = f.nodes.size();
  p.ops_below.assign(n, std::vector<bool>(w.ops.size(), false));
  p.leaf_of_op.assign(w.ops.size(), -1);
  for (size_t i = n; i-- > 0;) {
    const auto& node = f.nodes[i];
    if (node.is_leaf) p.ops_below[i][static_cast<size_t>(node.op)] = true, p.leaf_of_op[static_cast<size_t>(node.op)] = static_cast<int>(i);
    for (int c : node.children)
      for (size_t o = 0; o < w.ops.size(); ++o)
        if (p.ops_below[static_cast<size_t>(c)][o]) p.ops_below[i][o] = true;
  }
  Diagnostics diag;
  for (size_t t = 0; t < w.tensors.size(); ++t) {
    const Tensor& tensor = w.tensors[t];
    TensorPlacement tp;
    tp.level.assign(n, -1);
    tp.owner.assign(n, false);
    tp.source.assign(n, -1);
    tp.writes.assign(n, false);
    std::vector<bool> touch(n, false);
    for (size_t i = 0; i < n; ++i)
      for (size_t o = 0; o < w.ops.size(); ++o)
        if (p.ops_below[i][o] && touches(w.ops[o], static_cast<int>(t))) touch[i] = true;
    for (size_t i = 0; i < n; ++i)
      tp.writes[i] = tensor.producer >= 0 && p.ops_below[i][static_cast<size_t>(tensor.producer)];
    tp.region = 0;
    tp.home = 0;
    if (tensor.is_intermediate()) {
      for (size_t i = 0; i < n; ++i) {
        bool all = p.ops_below[i][static_cast<size_t>(tensor.producer)];
        for (int c : tensor.consumers) all = all && p.ops_below[i][static_cast<size_t>(c)];
        if (all) tp.region = static_cast<int>(i);  // pre-order: the last such node is the deepest
      }
      // Home: the fusion tile's own level, unless the tile keeps the tensor elsewhere.
      const TreeNode& lca = f.nodes[static_cast<size_t>(tp.region)];
      int lca_level = holding_level(a, w, lca, static_cast<int>(t), p.ops_below[static_cast<size_t>(tp.region)]);
      if (lca_level < 0) lca_level = lca.levels.empty() ? 0 : lca.levels[0];
      tp.home = lca_level;
      for (const auto& [kt, kl] : lca.keep)
        if (kt == static_cast<int>(t)) tp.home = kl;
    }
    // Owners: walk down from the region root; a node starts a buffer when its level differs from
    // the level above it. Levels at or outside the home count as the home.
    std::function<void(int, int)> walk = [&](int id, int current) {
      const TreeNode& node = f.nodes[static_cast<size_t>(id)];
      if (!touch[static_cast<size_t>(id)]) return;
      int here = current;
      if (!node.is_leaf && id != tp.region) {
        int lv = holding_level(a, w, node, static_cast<int>(t), p.ops_below[static_cast<size_t>(id)]);
        bool inside_home = lv >= 0 && lv != tp.home && a.encloses(tp.home, lv);
        bool beside_home = lv >= 0 && !a.encloses(lv, tp.home) && !a.encloses(tp.home, lv);
        if (inside_home || beside_home) here = lv;
        tp.level[static_cast<size_t>(id)] = here;
        if (here != current) tp.owner[static_cast<size_t>(id)] = true, tp.source[static_cast<size_t>(id)] = current;
      } else {
        tp.level[static_cast<size_t>(id)] = current;
      }
      if (node.is_leaf) {
        const TreeNode& par = f.nodes[static_cast<size_t>(node.parent)];
        bool held = false;
        for (int lv : par.levels) held |= lv == current;
        const Op& op = w.ops[static_cast<size_t>(node.op)];
        if (!held || !a.levels[static_cast<size_t>(current)].holds[static_cast<int>(op.role_of(static_cast<int>(t)))])
          diag.add(par.loc, "op '" + op.name + "' reads '" + tensor.name + "' (" +
                                arch::role_name(op.role_of(static_cast<int>(t))) +
                                " operand) from level '" + a.levels[static_cast<size_t>(current)].name +
                                "', but its tile does not hold it there: add a level that may hold " +
                                arch::role_name(op.role_of(static_cast<int>(t))) + " data to the tile");
      }
      for (int c : node.children) walk(c, here);
    };
    walk(tp.region, tp.home);
    p.tensors.push_back(tp);
  }
  diag.throw_if_any();
  return p;
}

}  // namespace dfx::model
