// Space::build: the tile tree of a point of the template (mapper/space.h), and its flow.yaml.
#include <algorithm>
#include <utility>

#include "mapper/space.h"

namespace dfx::mapper {

model::Dataflow Space::build(const Choice& c, const std::string& name) const {
  model::Dataflow f;
  build_into(c, name, f);
  return f;
}

// The tree of a choice (see space.h); nodes in pre-order, as the loader builds them.
void Space::build_into(const Choice& c, const std::string& name, model::Dataflow& f) const {
  f.name = name;
  f.loop_locs.clear();
  f.nodes.reserve(2 + 2 * c.prim.size() + 5 * w_.ops.size());  // the most a template tree has
  size_t used = 0;
  // A node at the end of the tree, a tile holding `levels` unless made a leaf: a node of an
  // earlier tree emptied, its lists' storage kept. Nodes are asked for by index (f.nodes[id]):
  // `kids`, how many children it will have, sizes its list once (a Pipe group's tile has one
  // per op).
  auto add = [&](int parent, const std::vector<int>& levels, model::Prim prim = model::Prim::Seq, size_t kids = 1) {
    if (used == f.nodes.size()) f.nodes.emplace_back();
    model::TreeNode& n = f.nodes[used];
    n.is_leaf = false, n.op = -1, n.prim = prim, n.parent = parent, n.loc = SourceLoc();
    n.levels.assign(levels.begin(), levels.end());
    n.loops.clear(), n.children.clear(), n.keep.clear();
    n.children.reserve(kids);
    const int id = static_cast<int>(used++);
    if (parent >= 0) f.nodes[static_cast<size_t>(parent)].children.push_back(id);
    return id;
  };
  auto loop = [](int dim, int64_t factor, bool spatial) {
    model::Loop l;
    l.dim = dim, l.factor = factor, l.spatial = spatial;
    return l;
  };
  auto loops_of = [&f](int id) -> std::vector<model::Loop>& { return f.nodes[static_cast<size_t>(id)].loops; };
  static const std::vector<int> dram{0};
  auto members = group_members(c);
  const int root = add(-1, dram, model::Prim::Seq, members.size());
  // Outputs that wait for later groups in a shared level: kept there at the root, where the
  // groups meet.
  for (size_t o = 0; o < c.home.size(); ++o)
    if (c.home[o] > 0) f.nodes[static_cast<size_t>(root)].keep.push_back({w_.ops[o].out.tensor, levels_.handover[static_cast<size_t>(c.home[o] - 1)]});
  for (size_t g = 0; g < members.size(); ++g) {
    const std::vector<int>& dims = outer_dims(members[g]);
    const bool own_loops = has_own_loops(c, members[g]);
    // With loops of its ops' own at DRAM (Choice::own_trips) the group's primitive goes on its
    // DRAM tile, which keeps the intermediates that stay inside it in the buffer; otherwise on a
    // tile at the buffer under it.
    const int outer = add(root, dram, own_loops ? c.prim[g] : model::Prim::Seq, own_loops ? members[g].size() : 1);
    loops_of(outer).reserve(dims.size() + 2);
    if (c.core_dim[g] >= 0) {
      const CoreSplit& s = core_splits(members[g])[static_cast<size_t>(c.core_dim[g])];
      loops_of(outer).push_back(loop(dims[s.dim[0]], s.cores[0], true));
      if (s.cores[1] > 1) loops_of(outer).push_back(loop(dims[s.dim[1]], s.cores[1], true));
    }
    for (size_t i = 0; i < dims.size(); ++i)
      if (c.outer[g][i] > 1) loops_of(outer).push_back(loop(dims[i], c.outer[g][i], false));
    const model::OpBoxes& boxes = group_tile_view(c, static_cast<int>(g));  // no other group tile is asked for below
    int group_tile_node = outer;
    if (own_loops) {
      for (int o : members[g]) {
        const int t = w_.ops[static_cast<size_t>(o)].out.tensor;
        const auto& readers = w_.tensors[static_cast<size_t>(t)].consumers;
        const bool inside = !readers.empty() && std::all_of(readers.begin(), readers.end(), [&](int r) { return c.group_of[static_cast<size_t>(r)] == static_cast<int>(g); });
        if (inside) f.nodes[static_cast<size_t>(outer)].keep.push_back({t, levels_.group.front()});
      }
    } else {
      group_tile_node = add(outer, levels_.group, c.prim[g], members[g].size());
    }
    for (int o : members[g]) {
      const model::Op& op = w_.ops[static_cast<size_t>(o)];
      const OpExtents ext = op_tile_extents(boxes, c, static_cast<size_t>(o));
      const Factors& sp = c.spatial[static_cast<size_t>(o)];
      // Temporal loops cover what the spatial ones leave; reductions innermost (the output
      // stays put), the others in the order the choice ranks (Space::nest_order).
      std::vector<size_t> made;
      const std::vector<size_t>& keep = nest_order(static_cast<size_t>(o), c.order[static_cast<size_t>(o)], made);
      const size_t reductions = op.reduction_dims.size();
      int parent = group_tile_node;
      if (own_loops) {  // its own loops at DRAM, in the order of its tile's
        parent = add(parent, dram);
        loops_of(parent).reserve(keep.size());
        for (size_t i : keep)
          if (!c.own_trips[static_cast<size_t>(o)].empty() && c.own_trips[static_cast<size_t>(o)][i] > 1)
            loops_of(parent).push_back(loop(op.dims[i], c.own_trips[static_cast<size_t>(o)][i], false));
      }
      const bool matrix = op.unit == arch::UnitKind::Matrix;
      // A cube's inputs stage through their own level (L1): the loops over its output go there,
      // the operand levels below hold a spatial block and run its whole reduction (one
      // instruction accumulates in L0C).
      const bool stage = matrix && levels_.matrix_staging >= 0;
      const int staged = stage ? add(parent, staging_tile_) : -1;
      const int op_tile = add(stage ? staged : parent, matrix ? levels_.matrix_op : levels_.vector_op);
      loops_of(op_tile).reserve(2 * op.dims.size());
      if (stage) loops_of(staged).reserve(op.dims.size());
      for (size_t k = 0; k < keep.size(); ++k) {
        const size_t i = keep[k];
        const bool reduction = k >= keep.size() - reductions;
        const int64_t steps = ceil_div(ext[i], sp[i]);  // a padded spread's last step runs fewer
        if (steps > 1) loops_of(stage && !reduction ? staged : op_tile).push_back(loop(op.dims[i], steps, false));
      }
      // After the temporal loops: a spread that idles instances in some steps (padded, or over
      // an extent the group's last tile changes) may only have spatial loops after it.
      for (size_t i = 0; i < op.dims.size(); ++i)
        if (sp[i] > 1) loops_of(op_tile).push_back(loop(op.dims[i], sp[i], true));
      parent = op_tile;
      if (matrix && levels_.registers >= 0) parent = add(parent, registers_tile_);
      const int leaf = add(parent, {}, model::Prim::Seq, 0);
      f.nodes[static_cast<size_t>(leaf)].is_leaf = true, f.nodes[static_cast<size_t>(leaf)].op = o;
    }
  }
  f.nodes.resize(used);
}

std::string Space::flow_yaml(const Choice& c, const std::string& name) const {
  return model::to_yaml(build(c, name), a_, w_);
}

}  // namespace dfx::mapper
