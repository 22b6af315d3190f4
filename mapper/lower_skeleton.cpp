// The program skeleton of a tile tree (see lower_internal.h).
#include <algorithm>

#include "mapper/lower_internal.h"
#include "model/placement.h"

namespace dfx::mapper::lowering {
namespace {

class Builder {
 public:
  Builder(const arch::Arch& a, const model::Workload& w, const model::Dataflow& f) : a_(a), w_(w), f_(f) {}

  Skeleton run() {
    find_instruction_tiles();
    std::vector<int64_t> ext;
    for (const auto& d : w_.dims) ext.push_back(d.size);
    s_.root = build(0, ext);
    return std::move(s_);
  }

 private:
  const arch::Arch& a_;
  const model::Workload& w_;
  const model::Dataflow& f_;
  Skeleton s_;

  [[noreturn]] void refuse(const model::TreeNode& n, const std::string& msg) const { throw InputError(n.loc, msg); }

  // An operator's instruction tile: its deepest ancestor tile in an addressable level.
  void find_instruction_tiles() {
    s_.instruction_tile.assign(w_.ops.size(), -1);
    for (size_t n = 0; n < f_.nodes.size(); ++n) {
      const model::TreeNode& leaf = f_.nodes[n];
      if (!leaf.is_leaf) continue;
      for (int p = leaf.parent; p >= 0; p = f_.nodes[static_cast<size_t>(p)].parent)
        if (a_.addressable(f_.nodes[static_cast<size_t>(p)].levels.front())) {
          s_.instruction_tile[static_cast<size_t>(leaf.op)] = p;
          break;
        }
      if (s_.instruction_tile[static_cast<size_t>(leaf.op)] < 0)
        refuse(leaf, "operator '" + w_.ops[static_cast<size_t>(leaf.op)].name +
                         "' has no tile in an on-chip level the program can address; lowering needs one");
    }
  }

  // Cores exchange no data, so none may hold a partial sum another core must add to.
  void refuse_core_reduction(int n, const model::Loop& l) const {
    std::vector<int> ops;
    leaves_below(n, ops);
    for (int op : ops)
      for (int d : w_.ops[static_cast<size_t>(op)].reduction_dims)
        if (d == l.dim)
          throw InputError(f_.loc_of(l), "this loop spreads '" + w_.dims[static_cast<size_t>(d)].name + "', a reduction of operator '" +
                                      w_.ops[static_cast<size_t>(op)].name + "', over cores; lowering needs each core to finish "
                                      "its own results: cores do not add each other's partial sums");
  }

  bool is_instruction_tile(int n) const {
    for (int t : s_.instruction_tile)
      if (t == n) return true;
    return false;
  }

  void leaves_below(int n, std::vector<int>& ops) const {
    const model::TreeNode& t = f_.nodes[static_cast<size_t>(n)];
    if (t.is_leaf) ops.push_back(t.op);
    for (int c : t.children) leaves_below(c, ops);
  }

  Item build(int n, std::vector<int64_t> ext) {
    const model::TreeNode& t = f_.nodes[static_cast<size_t>(n)];
    Item g;
    g.node = n;
    if (is_instruction_tile(n)) {
      std::vector<int> ops;
      leaves_below(n, ops);
      for (int op : ops) {
        if (s_.instruction_tile[static_cast<size_t>(op)] != n)
          refuse(t, "this tile holds operator '" + w_.ops[static_cast<size_t>(op)].name +
                        "' through another on-chip tile and other operators directly; lowering needs each on-chip "
                        "tile to be either an operator's innermost one or a tile of tiles");
        Item c;
        c.kind = Item::Kind::Compute;
        c.op = op;
        c.block = ext;
        g.body.push_back(std::move(c));
      }
      return g;
    }
    std::vector<Item>* cur = &g.body;
    for (const model::Loop& l : t.loops) {
      const auto d = static_cast<size_t>(l.dim);
      if (ext[d] % l.factor != 0)
        throw InputError(f_.loc_of(l), "lowering needs every factor to divide its extent: " + std::to_string(l.factor) + " does not divide " +
                                    w_.dims[d].name + " = " + std::to_string(ext[d]));
      ext[d] /= l.factor;
      if (l.factor == 1) continue;
      // Spatial loops of DRAM tiles spread over cores. Spatial loops of on-chip tiles above an
      // instruction tile run in turn on one core (the instruction covers the spatial loops of
      // its own tile, which is where the PE array's parallelism is).
      Item loop;
      loop.kind = Item::Kind::Loop;
      loop.on_cores = l.spatial && a_.levels[static_cast<size_t>(t.levels.front())].parent < 0;
      if (loop.on_cores) refuse_core_reduction(n, l);
      loop.dim = l.dim;
      loop.count = l.factor;
      loop.chunk = ext[d];
      cur->push_back(std::move(loop));
      cur = &cur->back().body;
    }
    for (int c : t.children) cur->push_back(build(c, ext));
    return g;
  }
};

// Whether every access to `tensor` that involves dim `d` indexes it by `d` alone, at the same
// position: the producer writes and the consumers read the slice a loop over `d` selects.
bool indexed_alike(const model::Workload& w, int tensor, int d) {
  const model::Tensor& t = w.tensors[static_cast<size_t>(tensor)];
  std::vector<const model::TensorAccess*> accesses = {&w.ops[static_cast<size_t>(t.producer)].out};
  for (int c : t.consumers)
    for (const auto& in : w.ops[static_cast<size_t>(c)].inputs)
      if (in.tensor == tensor) accesses.push_back(&in);
  for (size_t j = 0; j < accesses.front()->index.size(); ++j) {
    bool uses = false;
    for (const auto* acc : accesses)
      for (const auto& term : acc->index[j].terms) uses = uses || term.dim == d;
    if (!uses) continue;
    for (const auto* acc : accesses) {
      const model::AffineIndex& ix = acc->index[j];
      if (ix.terms.size() != 1 || ix.terms[0].dim != d || ix.terms[0].coef != 1 || ix.offset != 0) return false;
    }
  }
  return true;
}

// A loop at or above the tile where operators meet over an intermediate steps the program's
// addresses of it by its dim. Where the producer and a consumer index it otherwise (C[m1,l]
// written, C[m2,l] read; a convolution's O1[p1] read as O1[p2 + r2]) the producer's tile would
// have to follow the consumer's window step by step, which the lowering does not do: the
// programs computed the whole intermediate at every step and read its first tile (QA pass 9:
// wrong outputs from `explore --emit` on fused convolution chains).
void refuse_projected_fusion(const arch::Arch& a, const model::Workload& w, const model::Dataflow& f) {
  const model::Placement p = model::place(a, w, f);
  for (size_t t = 0; t < w.tensors.size(); ++t) {
    if (!w.tensors[t].is_intermediate()) continue;
    for (int n = p.tensors[t].region; n >= 0; n = f.nodes[static_cast<size_t>(n)].parent)
      for (const model::Loop& l : f.nodes[static_cast<size_t>(n)].loops) {
        if (l.factor <= 1 || indexed_alike(w, static_cast<int>(t), l.dim)) continue;
        const model::Op& producer = w.ops[static_cast<size_t>(w.tensors[t].producer)];
        throw InputError(f.loc_of(l), "this loop steps '" + w.dims[static_cast<size_t>(l.dim)].name + "' above where '" + producer.name +
                                          "' hands '" + w.tensors[t].name + "' to the operators that read it, and they index it by "
                                          "different dims; lowering needs a loop there to select the same slice for the producer "
                                          "and its readers (loop over a dim they share, or below)");
      }
  }
}

}  // namespace

namespace {

// The on-core loops above every instruction must agree, so that each core works on its own
// slice of every tensor and needs no other core's results.
// The most cores any operator's on-core loops spread over.
int64_t cores_used(const Item& it, int64_t above) {
  const int64_t here = it.on_cores ? above * it.count : above;
  int64_t most = it.kind == Item::Kind::Compute ? here : 1;
  for (const Item& c : it.body) most = std::max(most, cores_used(c, here));
  return most;
}

}  // namespace

Skeleton build_skeleton(const arch::Arch& a, const model::Workload& w, const model::Dataflow& f) {
  refuse_projected_fusion(a, w, f);
  Skeleton s = Builder(a, w, f).run();
  s.cores = cores_used(s.root, 1);
  const int64_t cores = s.cores;
  if (cores > a.cores)
    throw InputError(f.root().loc, "the root tile's spatial loops need " + std::to_string(cores) + " cores; the arch has " +
                                       std::to_string(a.cores));
  // Each core's program addresses its own instance of every on-chip level, from address 0:
  // cores sharing one instance would overwrite one another's data.
  for (size_t l = 1; cores > 1 && l < a.levels.size(); ++l) {
    const arch::MemoryLevel& lv = a.levels[l];
    if (a.addressable(static_cast<int>(l)) && lv.instances < cores)
      throw InputError(lv.loc, "lowering gives each of the " + std::to_string(cores) + " cores its own '" + lv.name +
                                   "', but the arch has " + std::to_string(lv.instances) + " for " + std::to_string(a.cores) +
                                   " cores: make it 'per: core', or keep the root's spatial loops to one core");
  }
  return s;
}

// The skeleton in program order: each item's instructions before, a loop's `loop` … `end`
// around its code and body (on-core loops are addresses, not loops), its instructions after.
void flatten(const Item& it, std::vector<arch::Instruction>& out) {
  out.insert(out.end(), it.before.begin(), it.before.end());
  const bool loop_here = it.kind == Item::Kind::Loop && !it.on_cores;
  if (loop_here) {
    arch::Instruction loop;
    loop.op = arch::Opcode::Loop;
    loop.count = it.count;
    out.push_back(loop);
  }
  out.insert(out.end(), it.code.begin(), it.code.end());
  for (const Item& child : it.body) flatten(child, out);
  if (loop_here) {
    arch::Instruction end;
    end.op = arch::Opcode::EndLoop;
    out.push_back(end);
  }
  out.insert(out.end(), it.after.begin(), it.after.end());
}

}  // namespace dfx::mapper::lowering
