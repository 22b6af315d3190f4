// flow.yaml → Dataflow: resolve names, then check the tree's structure and report every problem.
#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include <boost/container/small_vector.hpp>

#include "arch/config.h"
#include "model/dataflow.h"

namespace dfx::model {
namespace {

std::string hint_for(const std::string& word, const std::vector<std::string>& names) {
  std::string h = closest_match(word, names);
  return h.empty() ? "" : " (did you mean '" + h + "'?)";
}

class TreeReader {
 public:
  TreeReader(const arch::Arch& a, const Workload& w, Diagnostics& diag) : a_(a), w_(w), diag_(diag) {
    for (const auto& l : a.levels) level_names_.push_back(l.name);
    for (const auto& d : w.dims) dim_names_.push_back(d.name);
    for (const auto& o : w.ops) op_names_.push_back(o.name);
  }

  int read(const ConfigNode& n, int parent, Dataflow& f) {
    f_ = &f;
    int id = static_cast<int>(f.nodes.size());
    f.nodes.emplace_back();
    f.nodes[static_cast<size_t>(id)].parent = parent;
    f.nodes[static_cast<size_t>(id)].loc = n.loc();
    MapReader r(n, diag_);
    if (!r.ok()) return id;
    TreeNode node = f.nodes[static_cast<size_t>(id)];
    if (r.has("op")) {
      node.is_leaf = true;
      std::string op = r.str("op", true).value_or("");
      node.op = w_.op_index(op);
      if (node.op < 0) diag_.add(r.node()["op"].loc(), "unknown op '" + op + "'" + hint_for(op, op_names_));
      if (r.has("children") || r.has("loops"))
        diag_.add(n.loc(), "an op leaf has no loops or children; put them in a tile above it");
      r.child("children"), r.child("loops");
    } else {
      read_levels(r, node);
      read_loops(r.child("loops"), node);
      read_prim(r, node);
      read_keep(r, node);
      ConfigNode kids = r.child("children");
      if (!kids.is_seq() || kids.items().empty())
        diag_.add(kids.loc(), "a tile needs a non-empty list of children (tiles or {op: NAME})");
      f.nodes[static_cast<size_t>(id)] = node;
      for (const auto& k : kids.items()) {
        int c = read(k, id, f);
        f.nodes[static_cast<size_t>(id)].children.push_back(c);
      }
      node = f.nodes[static_cast<size_t>(id)];
    }
    r.finish();
    f.nodes[static_cast<size_t>(id)] = node;
    return id;
  }

 private:
  const arch::Arch& a_;
  const Workload& w_;
  Diagnostics& diag_;
  Dataflow* f_ = nullptr;  // the tree being read (its loops' locations go there)
  std::vector<std::string> level_names_, dim_names_, op_names_;

  void read_levels(MapReader& r, TreeNode& node) {
    ConfigNode t = r.child("tile");
    if (!t.valid()) {
      diag_.add(r.node().loc(), "a node needs 'tile: LEVEL' (a tile) or 'op: NAME' (a leaf)");
      return;
    }
    std::vector<ConfigNode> names = t.is_seq() ? t.items() : std::vector<ConfigNode>{t};
    if (names.empty()) diag_.add(t.loc(), "a tile needs a level: 'tile: LEVEL', or a list of them for role-split levels");
    for (const auto& nm : names) {
      if (!nm.is_scalar()) {
        diag_.add(nm.loc(), "expected a level name, found a " + nm.kind_name());
        continue;
      }
      int l = a_.level_index(nm.scalar());
      if (l < 0)
        diag_.add(nm.loc(), "unknown level '" + nm.scalar() + "'" + hint_for(nm.scalar(), level_names_));
      else if (std::find(node.levels.begin(), node.levels.end(), l) != node.levels.end())
        diag_.add(nm.loc(), "level '" + nm.scalar() + "' is listed twice in this tile");
      else
        node.levels.push_back(l);
    }
  }

  void read_loop_text(const ConfigNode& item, TreeNode& node) {
    // "m:8" temporal, "m:8:sp" spatial.
    std::string s = item.scalar();
    Loop loop;
    loop.loc = f_->add_loop_loc(item.loc());
    size_t c1 = s.find(':');
    std::string dim = s.substr(0, c1);
    std::string rest = c1 == std::string::npos ? "" : s.substr(c1 + 1);
    size_t c2 = rest.find(':');
    std::string factor = rest.substr(0, c2);
    std::string kind = c2 == std::string::npos ? "" : rest.substr(c2 + 1);
    if (c1 == std::string::npos || factor.empty()) {
      diag_.add(item.loc(), "a loop is 'dim:factor' or 'dim:factor:sp', found '" + s + "'");
      return;
    }
    loop.dim = w_.dim_index(dim);
    if (loop.dim < 0) diag_.add(item.loc(), "unknown dimension '" + dim + "'" + hint_for(dim, dim_names_));
    try {
      size_t used = 0;
      loop.factor = std::stoll(factor, &used);
      if (used != factor.size() || loop.factor < 1) throw std::invalid_argument("");
    } catch (...) {
      diag_.add(item.loc(), "loop factor must be a positive integer, found '" + factor + "'");
      return;
    }
    // "m:8:" names no kind: a slip, not a temporal loop.
    if (kind == "sp" || kind == "spatial") loop.spatial = true;
    else if ((!kind.empty() || c2 != std::string::npos) && kind != "tp" && kind != "temporal")
      diag_.add(item.loc(), "loop kind must be 'sp' (spatial) or 'tp' (temporal), found '" + kind + "'");
    if (loop.dim >= 0) node.loops.push_back(loop);
  }

  void read_loops(const ConfigNode& n, TreeNode& node) {
    if (!n.valid() || n.is_null()) return;
    if (!n.is_seq()) {
      diag_.add(n.loc(), "loops must be a list such as [m:8, k:4, n:16:sp]");
      return;
    }
    for (const auto& item : n.items()) {
      if (item.is_scalar()) {
        read_loop_text(item, node);
        continue;
      }
      MapReader lr(item, diag_);
      Loop loop;
      loop.loc = f_->add_loop_loc(item.loc());
      std::string dim = lr.str("dim", true).value_or("");
      loop.dim = w_.dim_index(dim);
      if (lr.ok() && loop.dim < 0)
        diag_.add(lr.node()["dim"].loc(), "unknown dimension '" + dim + "'" + hint_for(dim, dim_names_));
      loop.factor = lr.integer("factor", true, 1).value_or(1);
      std::string kind = lr.str_or("kind", "temporal");
      if (kind != "temporal" && kind != "spatial")
        diag_.add(lr.node()["kind"].loc(), "kind must be 'temporal' or 'spatial'");
      loop.spatial = kind == "spatial";
      lr.finish();
      if (loop.dim >= 0) node.loops.push_back(loop);
    }
  }

  void read_keep(MapReader& r, TreeNode& node) {
    ConfigNode k = r.child("keep");
    if (!k.valid() || k.is_null()) return;
    if (!k.is_map()) {
      diag_.add(k.loc(), "keep must map intermediate tensors to levels, e.g. {C: L1}");
      return;
    }
    std::vector<std::string> tensor_names;
    for (const auto& t : w_.tensors) tensor_names.push_back(t.name);
    for (const auto& [tensor, level] : k.entries()) {
      int t = w_.tensor_index(tensor);
      int l = a_.level_index(level.scalar());
      if (t < 0) diag_.add(level.loc(), "unknown tensor '" + tensor + "'" + hint_for(tensor, tensor_names));
      else if (!w_.tensors[static_cast<size_t>(t)].is_intermediate())
        diag_.add(level.loc(), "'" + tensor + "' is not an intermediate tensor: only intermediates can be kept");
      if (l < 0) diag_.add(level.loc(), "unknown level '" + level.scalar() + "'" + hint_for(level.scalar(), level_names_));
      if (t >= 0 && l >= 0) node.keep.push_back({t, l});
    }
  }

  void read_prim(MapReader& r, TreeNode& node) {
    static const std::map<std::string, Prim> prims = {
        {"Seq", Prim::Seq}, {"Shar", Prim::Shar}, {"Para", Prim::Para}, {"Pipe", Prim::Pipe}};
    std::string p = r.str_or("prim", "Seq");
    auto it = prims.find(p);
    if (it == prims.end())
      diag_.add(r.node()["prim"].loc(), "unknown primitive '" + p + "' (known: Seq, Shar, Para, Pipe)");
    else
      node.prim = it->second;
  }
};

void check_structure(const Dataflow& f, const arch::Arch& a, const Workload& w, const OpsBelow& below,
                     Diagnostics& diag) {
  const auto& root = f.root();
  if (root.is_leaf) diag.add(root.loc, "the root must be a tile, not an op");
  if (!root.levels.empty() && root.levels[0] != 0)
    diag.add(root.loc, "the root tile must be at the outermost level '" + a.levels[0].name + "'");
  std::vector<int> seen(w.ops.size(), 0);
  for (const auto& n : f.nodes)
    if (n.is_leaf && n.op >= 0) ++seen[static_cast<size_t>(n.op)];
  for (size_t o = 0; o < w.ops.size(); ++o) {
    if (seen[o] == 0) diag.add(root.loc, "op '" + w.ops[o].name + "' does not appear in the tree");
    if (seen[o] > 1)
      diag.add(root.loc, "op '" + w.ops[o].name + "' appears " + std::to_string(seen[o]) + " times");
  }
  std::vector<OpSet> users(w.dims.size(), OpSet(w.ops.size()));  // per dim: the ops that use it
  for (size_t o = 0; o < w.ops.size(); ++o)
    for (int d : w.ops[o].dims) users[static_cast<size_t>(d)].insert(o);
  for (size_t i = 0; i < f.nodes.size(); ++i) {
    const auto& n = f.nodes[i];
    if (n.parent >= 0 && !n.is_leaf) {
      for (int cl : n.levels)
        for (int pl : f.nodes[static_cast<size_t>(n.parent)].levels)
          if (cl != pl && a.encloses(cl, pl))
            diag.add(n.loc, "tile at '" + a.levels[static_cast<size_t>(cl)].name +
                                "' is inside a tile at the inner level '" +
                                a.levels[static_cast<size_t>(pl)].name + "'");
    }
    for (const auto& loop : n.loops) {
      if (!below[i].intersects(users[static_cast<size_t>(loop.dim)]))
        diag.add(f.loc_of(loop), "loop over '" + w.dims[static_cast<size_t>(loop.dim)].name +
                               "' but no op below this tile uses that dimension");
    }
    if (n.prim == Prim::Para) {
      for (int c1 : n.children)
        for (int c2 : n.children) {
          if (c1 == c2) continue;
          for (size_t o = 0; o < w.ops.size(); ++o) {
            if (!below[static_cast<size_t>(c1)][o]) continue;
            for (int cons : w.tensors[static_cast<size_t>(w.ops[o].out.tensor)].consumers)
              if (below[static_cast<size_t>(c2)][static_cast<size_t>(cons)])
                diag.add(n.loc, "Para children depend on each other: '" + w.ops[o].name +
                                    "' feeds '" + w.ops[static_cast<size_t>(cons)].name +
                                    "' (use Seq, Shar or Pipe)");
          }
        }
    }
  }
}

// keep: {T: LEVEL} must name an intermediate fused exactly at that tile, and a level inside it.
void check_keeps(const Dataflow& f, const arch::Arch& a, const Workload& w, const OpsBelow& below, Diagnostics& diag) {
  for (size_t i = 0; i < f.nodes.size(); ++i)
    for (const auto& [kt, kl] : f.nodes[i].keep) {
      const Tensor& tensor = w.tensors[static_cast<size_t>(kt)];
      if (fusion_tile(below, tensor) != static_cast<int>(i))
        diag.add(f.nodes[i].loc, "keep: '" + tensor.name + "' is not fused at this tile (its producer and consumers meet elsewhere)");
      bool below_tile = false;
      for (int lv : f.nodes[i].levels) below_tile |= a.encloses(lv, kl);
      if (!below_tile)
        diag.add(f.nodes[i].loc, "keep: level '" + a.levels[static_cast<size_t>(kl)].name + "' is not inside this tile's level");
      // The level holds every role the tensor plays (QA pass 9: C kept in ascend_like's L0B,
      // which holds right operands only, was analysed and lowered to wrong outputs).
      std::string refused;
      auto role_held = [&](int op, arch::Role role, const char* how) {
        if (a.levels[static_cast<size_t>(kl)].holds[static_cast<int>(role)]) return;
        refused += std::string(refused.empty() ? "" : ", ") + how + " '" + w.ops[static_cast<size_t>(op)].name + "' as " +
                   arch::role_name(role) + " data";
      };
      role_held(tensor.producer, w.ops[static_cast<size_t>(tensor.producer)].role_of(kt), "written by");
      // Each read in its own role: X·Xᵀ reads one tensor as both operands.
      for (int c : tensor.consumers) {
        const Op& op = w.ops[static_cast<size_t>(c)];
        for (size_t slot = 0; slot < op.inputs.size(); ++slot)
          if (op.inputs[slot].tensor == kt)
            role_held(c, op.unit == arch::UnitKind::Vector ? arch::Role::Vector : slot == 0 ? arch::Role::Left : arch::Role::Right,
                      "read by");
      }
      if (!refused.empty())
        diag.add(f.nodes[i].loc, "keep: level '" + a.levels[static_cast<size_t>(kl)].name + "' may not hold '" + tensor.name +
                                     "' (" + refused + "); keep it in a level whose holds include those roles");
    }
}

// A producer's reduction loop above the point where its output meets its consumers would
// consume partial results: reject it.
void check_fusion_points(const Dataflow& f, const Workload& w, const OpsBelow& below, Diagnostics& diag) {
  for (const auto& t : w.tensors) {
    if (!t.is_intermediate()) continue;
    const Op& prod = w.ops[static_cast<size_t>(t.producer)];
    // The producer's share of a fused tile follows from what its consumers read; a loop over one
    // of its output dimensions that the consumers index differently (a conv window) would cut it
    // twice, so only the consumers' dimensions may be tiled there. Per output position, the last
    // such read (found once per tensor: the search checks every tree it builds).
    boost::container::small_vector<const AffineIndex*, 8> read_otherwise(prod.out.index.size(), nullptr);
    for (size_t j = 0; j < prod.out.index.size(); ++j)
      for (int c : t.consumers)
        for (const auto& in : w.ops[static_cast<size_t>(c)].inputs) {
          if (in.tensor != prod.out.tensor) continue;
          const AffineIndex& ix = in.index[j];
          const int dim = prod.out.index[j].terms[0].dim;
          if (!(ix.terms.size() == 1 && ix.terms[0].dim == dim && ix.terms[0].coef == 1 && ix.offset == 0)) read_otherwise[j] = &ix;
        }
    // Nothing to find where every position is read plainly and nothing is reduced (most
    // element-wise producers): their fusion tile is not looked for.
    const bool plain = std::none_of(read_otherwise.begin(), read_otherwise.end(), [](const AffineIndex* ix) { return ix != nullptr; });
    if (plain && prod.reduction_dims.empty()) continue;
    const int lca = fusion_tile(below, t);
    for (int n = lca; n >= 0; n = f.nodes[static_cast<size_t>(n)].parent)
      for (const auto& loop : f.nodes[static_cast<size_t>(n)].loops)
        for (size_t j = 0; j < prod.out.index.size(); ++j)
          if (read_otherwise[j] && prod.out.index[j].terms[0].dim == loop.dim)
            diag.add(f.loc_of(loop), "loop over '" + w.dims[static_cast<size_t>(loop.dim)].name +
                                   "', an output dimension of '" + prod.name + "' that its consumers read as '" +
                                   w.index_text(*read_otherwise[j]) +
                                   "', sits at or above where '" + t.name +
                                   "' is fused: tile the consumers' dimensions there instead");
    for (int n = lca; n >= 0; n = f.nodes[static_cast<size_t>(n)].parent)
      for (const auto& loop : f.nodes[static_cast<size_t>(n)].loops)
        for (int rd : prod.reduction_dims)
          if (loop.dim == rd)
            diag.add(f.loc_of(loop), "loop over '" + w.dims[static_cast<size_t>(rd)].name +
                                   "', a reduction of '" + prod.name + "', sits at or above where '" +
                                   t.name + "' is consumed: its consumers would read partial sums");
  }
}

Dataflow build(const ConfigNode& root, const arch::Arch& a, const Workload& w) {
  Diagnostics diag;
  Dataflow f;
  MapReader r(root, diag);
  if (!r.ok()) diag.throw_if_any();
  f.name = r.str_or("name", "dataflow");
  r.str("workload", false);  // informative only
  ConfigNode tree = r.child("tree");
  if (!tree.valid()) diag.add(tree.loc(), "missing required key 'tree'");
  r.finish();
  if (tree.valid()) TreeReader(a, w, diag).read(tree, -1, f);
  diag.throw_if_any();
  check_dataflow(f, a, w);
  return f;
}

}  // namespace

const char* prim_name(Prim p) {
  switch (p) {
    case Prim::Seq: return "Seq";
    case Prim::Shar: return "Shar";
    case Prim::Para: return "Para";
    case Prim::Pipe: return "Pipe";
  }
  return "?";
}

OpsBelow ops_below(const Dataflow& f, size_t n_ops) {
  OpsBelow below(f.nodes.size(), OpSet(n_ops));
  for (size_t i = f.nodes.size(); i-- > 0;) {
    const auto& n = f.nodes[i];
    if (n.is_leaf && n.op >= 0) below[i].insert(static_cast<size_t>(n.op));
    for (int c : n.children) below[i] |= below[static_cast<size_t>(c)];
  }
  return below;
}

int fusion_tile(const OpsBelow& below, const Tensor& t) {
  if (below.empty()) return 0;
  OpSet meet = below[0];  // sized alike, then just the producer and its consumers
  meet.clear();
  meet.insert(static_cast<size_t>(t.producer));
  for (int c : t.consumers) meet.insert(static_cast<size_t>(c));
  for (size_t i = below.size(); i-- > 1;)
    if (below[i].contains(meet)) return static_cast<int>(i);  // pre-order: the last such node is the deepest
  return 0;
}

void check_dataflow(const Dataflow& f, const arch::Arch& a, const Workload& w) {
  Diagnostics diag;
  const OpsBelow below = ops_below(f, w.ops.size());
  check_structure(f, a, w, below, diag);
  check_fusion_points(f, w, below, diag);
  check_keeps(f, a, w, below, diag);
  diag.throw_if_any();
}

Dataflow load_dataflow(const std::string& path, const arch::Arch& a, const Workload& w) {
  return build(ConfigNode::load_file(path), a, w);
}

Dataflow load_dataflow_from_string(const std::string& text, const std::string& name,
                                   const arch::Arch& a, const Workload& w) {
  return build(ConfigNode::load_string(text, name), a, w);
}

}  // namespace dfx::model
