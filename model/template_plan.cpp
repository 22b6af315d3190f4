// template_plan(): the trees a closed form of the template's groups may answer. Every condition
// below is one under which the walk takes a path a closed form would have to model beyond the
// template's plain cases (a problem to report, a split not even, runs within runs, a slice of
// several boxes): such trees are refused and walked.
#include "model/template_plan.h"

#include <algorithm>

#include "model/held.h"
#include "model/walker.h"

static_assert(dfx::model::TemplateOp::kMaxRuns == dfx::model::kMaxNestRuns, "a nest's runs as the walk counts them");

namespace dfx::model {
namespace {

using Refusal = const char*;  // nullptr: taken

// Temporal loops first, then spatial ones (the template's order in every tile).
bool temporal_then_spatial(const std::vector<Loop>& loops) {
  bool spatial = false;
  for (const Loop& l : loops) {
    if (spatial && !l.spatial) return false;
    spatial = spatial || l.spatial;
  }
  return true;
}

bool loop_less(const TreeNode& n) { return !n.is_leaf && n.loops.empty() && n.keep.empty() && n.levels.size() == 1; }

// How the spatial loops of one op tile split their extents over every step the walk would visit:
// per loop, the chunk and the instance counts met (fixed storage: this runs for every tree).
struct SplitsSeen {
  static constexpr size_t kMaxCounts = 16;
  struct Seen {  // set when a loop is first noted (not zeroed: made for every op of every tree)
    size_t li;
    int64_t chunk;
    int64_t counts[kMaxCounts];  // ascending
    size_t n;
  };
  Seen by_loop[kMaxNestLoops];
  size_t loops = 0;
  const Seen* find(size_t li) const {
    for (size_t k = 0; k < loops; ++k)
      if (by_loop[k].li == li) return &by_loop[k];
    return nullptr;
  }
  Refusal note(size_t li, const Cut& c) {
    if (c.last != c.chunk) return "a spread splits unevenly";
    Seen* it = const_cast<Seen*>(find(li));
    if (!it) {
      it = &by_loop[loops++];
      it->li = li, it->chunk = c.chunk, it->n = 0;
    } else if (it->chunk != c.chunk) {
      return "a spread cuts different chunks in different steps";
    }
    int64_t* at = std::lower_bound(it->counts, it->counts + it->n, c.trips);
    if (at == it->counts + it->n || *at != c.trips) {
      if (it->n == kMaxCounts) return "too many instance counts";
      std::copy_backward(at, it->counts + it->n, it->counts + it->n + 1);
      *at = c.trips, ++it->n;
    }
    return nullptr;
  }
};

// The op's tile in every step its loops take from `extents` (the first step of each temporal loop
// and, where it does not divide, its partial last one), as Walker::loops and leaf_nest cut it.
// `partial`: partial steps enclosing the tile (a loop may then have more trips than elements).
Refusal cut_nest(const Workload& w, const TreeNode& tile, const Op& op, size_t li, int64_t* extents, int partial, bool registers,
                 SplitsSeen& seen) {
  if (li == tile.loops.size()) return nullptr;
  const Loop& l = tile.loops[li];
  int64_t& e = extents[static_cast<size_t>(l.dim)];
  if (!op.uses_dim(l.dim) || e <= 0) {
    if (l.spatial) return "a spread over a dim the op does not use";
    return cut_nest(w, tile, op, li + 1, extents, partial, registers, seen);
  }
  if (l.factor > e && partial == 0) return "a factor above its extent";
  const Cut c = cut(e, l.factor);
  const int64_t saved = e;
  Refusal why = nullptr;
  if (l.spatial) {
    why = seen.note(li, c);
    e = c.chunk;
    if (!why) why = cut_nest(w, tile, op, li + 1, extents, partial, registers, seen);
  } else {
    e = c.chunk;
    why = cut_nest(w, tile, op, li + 1, extents, partial, registers, seen);
    if (!why && c.last != c.chunk) e = c.last, why = cut_nest(w, tile, op, li + 1, extents, partial + 1, registers, seen);
  }
  e = saved;
  return why;
}

// The conditions for counting a nest with registers in closed form (the walk's Walker::plan_nest
// and plan_spatial for one classed spread), on the nest's first step with `extents`: each
// temporal loop with a partial last step has no loop inside it over its dim, and then a spread
// over that dim whose instances run in classes; classed spreads over different dims (check_ops
// has held them to two, of at most kMaxRuns runs each).
Refusal plan_registers_nest(const TreeNode& tile, const Op& op, const int64_t* box_extents, size_t dims, const SplitsSeen& seen) {
  int64_t left[kMaxDims];
  std::copy(box_extents, box_extents + dims, left);
  uint64_t padded = 0, classed = 0;  // dims
  for (size_t li = 0; li < tile.loops.size(); ++li) {
    const Loop& l = tile.loops[li];
    int64_t& e = left[static_cast<size_t>(l.dim)];
    if (!op.uses_dim(l.dim) || e <= 0) continue;
    const Cut c = cut(e, l.factor);
    const uint64_t bit = uint64_t{1} << l.dim;
    if (l.spatial) {
      if (seen.find(li)->n > 1) {
        if (classed & bit) return "two classed spreads over one dim";
        classed |= bit;
      } else if (padded & bit) {
        return "a padded spread without classes";
      }
    } else {
      if (padded & bit) return "a loop inside a partial step over its dim";
      if (c.last != c.chunk) padded |= bit;
    }
    e = c.chunk;
  }
  if (padded & ~classed) return "a partial step whose spread is not classed";
  return nullptr;
}

// Whether two register tiles of a group keep buffers of one class in one context (no spreads of
// their own) and one partition (not a Pipe): the walk's one buffer, which the closed form does
// not model.
bool shared_registers(const Workload& w, const Dataflow& f, const TreeShape& shape, const TemplateGroup& g) {
  if (g.prim == Prim::Pipe) return false;
  auto in_core_context = [&](const TemplateOp& op) {
    const auto& loops = f.nodes[static_cast<size_t>(op.tile)].loops;
    return op.registers >= 0 && std::none_of(loops.begin(), loops.end(), [](const Loop& l) { return l.spatial; });
  };
  auto klass = [&](int node, int t) { return shape.buffer_class[static_cast<size_t>(node) * w.tensors.size() + static_cast<size_t>(t)]; };
  for (size_t i = 0; i < g.ops.size(); ++i)
    for (size_t j = i + 1; j < g.ops.size(); ++j) {
      if (!in_core_context(g.ops[i]) || !in_core_context(g.ops[j])) continue;
      for (const int t : shape.owned[static_cast<size_t>(g.ops[i].registers)])
        for (const int u : shape.owned[static_cast<size_t>(g.ops[j].registers)])
          if (klass(g.ops[i].registers, t) == klass(g.ops[j].registers, u)) return true;
    }
  return false;
}

// The op's extents at its tile in every step its own tile's loops take from `extents` (each
// loop's first step and, where it does not divide, its partial last one), and the partial steps
// around: fn(extents, partial) for each, until one refuses.
template <class Fn>
Refusal own_steps(const TreeNode* own, const Op& op, size_t li, int64_t* extents, int partial, Fn&& fn) {
  if (!own || li == own->loops.size()) return fn(extents, partial);
  const Loop& l = own->loops[li];
  int64_t& e = extents[static_cast<size_t>(l.dim)];
  if (!op.uses_dim(l.dim) || e <= 0) return own_steps(own, op, li + 1, extents, partial, fn);
  if (l.factor > e && partial == 0) return "a factor above its extent";
  const Cut c = cut(e, l.factor);
  const int64_t saved = e;
  e = c.chunk;
  Refusal why = own_steps(own, op, li + 1, extents, partial, fn);
  if (!why && c.last != c.chunk) e = c.last, why = own_steps(own, op, li + 1, extents, partial + 1, fn);
  e = saved;
  return why;
}

// Every op nest of a group, over every class of the group tile's boxes.
Refusal check_ops(const Workload& w, const Dataflow& f, TemplateGroup& g) {
  const std::vector<int>& class_partial = g.class_partial;
  int64_t extents[kMaxDims];  // the workload's dims' (not zeroed: made for every group of every tree)
  auto extents_of = [&](size_t k, size_t op) {
    for (size_t d = 0; d < w.dims.size(); ++d) extents[d] = g.classes[k][op][d].second - g.classes[k][op][d].first;
  };
  for (TemplateOp& t : g.ops) {
    // Spreads are seen across all classes: the walk keeps a spatial loop's splits for the whole walk.
    SplitsSeen seen;
    const Op& op = w.ops[t.op];
    const TreeNode& tile = f.nodes[static_cast<size_t>(t.tile)];
    const TreeNode* own = t.own >= 0 ? &f.nodes[static_cast<size_t>(t.own)] : nullptr;
    for (size_t k = 0; k < g.classes_used; ++k) {
      extents_of(k, t.op);
      if (Refusal why = own_steps(own, op, 0, extents, class_partial[k], [&](int64_t* at, int partial) {
            return cut_nest(w, tile, op, 0, at, partial, t.registers >= 0, seen);
          }))
        return why;
    }
    // In loop order: the walk runs the first one's runs outside the second's.
    t.classings = 0, t.runs = 1;
    for (size_t li = 0; li < tile.loops.size() && t.registers >= 0; ++li) {
      const SplitsSeen::Seen* sp = seen.find(li);
      if (!sp || sp->n <= 1) continue;
      if (t.classings == TemplateOp::kMaxClassed) return "runs within runs within runs";
      if (sp->n > TemplateOp::kMaxRuns) return "too many runs of instances";
      TemplateOp::Classed& c = t.classed[t.classings++];
      c.loop = static_cast<int>(li), c.runs = sp->n;
      std::copy(sp->counts, sp->counts + sp->n, c.counts);
      t.runs *= sp->n;
    }
    if (t.registers < 0) continue;
    for (size_t k = 0; k < g.classes_used; ++k) {
      extents_of(k, t.op);
      if (Refusal why = own_steps(own, op, 0, extents, class_partial[k],
                                  [&](int64_t* at, int) { return plan_registers_nest(tile, op, at, w.dims.size(), seen); }))
        return why;
    }
  }
  return nullptr;
}

}  // namespace

const char* template_plan(const arch::Arch& a, const Workload& w, const Dataflow& f, const TreeShape& shape, TemplatePlan& plan) {
  if (a.instruction_timed()) return "timed by instructions";
  // Every index of every access is one dim (coefficient 1, no offset) or a constant: a loop step
  // moves a slice along its dim by whole chunks, fusion shrinks a producer to its consumers' read
  // box, and the steps of a loop are evenly spaced up to a partial last one (none is clipped).
  if (!shape.plain_boxes || w.dims.size() > kMaxDims) return "accesses not plain";
  const TreeNode& root = f.nodes[0];
  if (root.is_leaf || !root.loops.empty() || !root.keep.empty() || root.prim != Prim::Seq || root.levels.size() != 1)
    return "root not a plain Seq";
  if (!shape.owned[0].empty()) return "buffers at the root";
  // The plan's storage is the caller's, kept from tree to tree: each group's lists are emptied.
  plan.groups.resize(root.children.size());
  const OpBoxes whole = OpBoxes::whole(w);
  BoxPool& pool = walk_kept<BoxPool>();
  for (size_t gi = 0; gi < root.children.size(); ++gi) {
    const int outer = root.children[gi];
    const TreeNode& o = f.nodes[static_cast<size_t>(outer)];
    if (o.is_leaf || o.levels != root.levels || o.children.empty() || !shape.owned[static_cast<size_t>(outer)].empty())
      return "group without an outer tile";
    // Core loops first, then temporal ones.
    bool temporal = false;
    for (const Loop& l : o.loops) {
      if (temporal && l.spatial) return "a core loop after a temporal one";
      temporal = temporal || !l.spatial;
    }
    // Either a loop-less group tile under the outer one, or the ops' own tiles right under it.
    const bool own_loops = std::all_of(o.children.begin(), o.children.end(),
                                       [&](int c) { return f.nodes[static_cast<size_t>(c)].levels == root.levels; });
    if (!own_loops && (o.children.size() != 1 || !o.keep.empty())) return "group without an outer tile";
    const int tile = own_loops ? outer : o.children[0];
    const TreeNode& gt = f.nodes[static_cast<size_t>(tile)];
    if ((!own_loops && !loop_less(gt)) || gt.prim == Prim::Para || gt.children.empty()) return "group tile not loop-less";
    TemplateGroup& g = plan.groups[gi];
    g.outer = outer, g.tile = tile, g.prim = gt.prim;
    g.loops.clear(), g.ops.clear(), g.classes_used = 0, g.class_partial.clear();
    for (const int child : gt.children) {
      TemplateOp op;
      int op_tile = child;
      if (own_loops) {
        const TreeNode& own = f.nodes[static_cast<size_t>(child)];
        if (own.is_leaf || !own.keep.empty() || own.children.size() != 1 || own.loops.size() > kMaxNestLoops ||
            !shape.owned[static_cast<size_t>(child)].empty() ||
            std::any_of(own.loops.begin(), own.loops.end(), [](const Loop& l) { return l.spatial; }))
          return "own tile not of the template";
        op.own = child, op_tile = own.children[0];
      }
      const TreeNode& ot = f.nodes[static_cast<size_t>(op_tile)];
      if (ot.is_leaf || ot.loops.empty() || !ot.keep.empty() || ot.children.size() != 1 || !temporal_then_spatial(ot.loops) ||
          ot.loops.size() > kMaxNestLoops)
        return "op tile not of the template";
      // Below an own tile, the op's tile keeps its operands' buffers: each one access, one box.
      for (const int t : shape.owned[static_cast<size_t>(op_tile)]) {
        const BufferAccesses::Accesses by = shape.accesses.of(op_tile, t);
        if (!own_loops || by.end() - by.begin() != 1) return "op tile owns buffers";
      }
      op.tile = op_tile;
      const int below = ot.children[0];
      const TreeNode& b = f.nodes[static_cast<size_t>(below)];
      if (b.is_leaf) {
        op.leaf = below;
      } else {
        if (!loop_less(b) || b.children.size() != 1 || !f.nodes[static_cast<size_t>(b.children[0])].is_leaf)
          return "registers tile not of the template";
        op.registers = below, op.leaf = b.children[0];
        if (shape.owned[static_cast<size_t>(below)].size() > kMaxNestOperands) return "too many operands";
      }
      op.op = static_cast<size_t>(f.nodes[static_cast<size_t>(op.leaf)].op);
      g.ops.push_back(op);
    }
    // A Seq whose children hand an intermediate over through a level no program addresses runs
    // them as phases (runs_in_phases): not modelled inside a group.
    if (runs_in_phases(a, f, shape.placement, shape.fused, tile)) return "a group tile in phases";
    if (shared_registers(w, f, shape, g)) return "two register tiles of one buffer";
    // The outer loops over the whole problem, and the group tile's classes of boxes (each loop's
    // first step, and its partial last one where it has one).
    Refusal why = nullptr;
    auto next_class = [&]() -> OpBoxes& {
      if (g.classes_used == g.classes.size()) g.classes.emplace_back();
      return g.classes[g.classes_used++];
    };
    auto classes = [&](auto&& self, size_t li, const OpBoxes& boxes, int partial) -> void {
      if (why) return;
      if (li == o.loops.size()) {
        next_class() = boxes;
        g.class_partial.push_back(partial);
        return;
      }
      const Loop& l = o.loops[li];
      const int64_t extent = shape.index.extent(outer, l.dim, boxes);
      if (extent <= 0) return self(self, li + 1, boxes, partial);
      if (l.factor > extent && partial == 0) return void(why = "a factor above its extent");
      const Cut c = cut(extent, l.factor);
      if (g.loops.size() <= li) g.loops.push_back({l.dim, l.spatial, c.chunk, c.trips, c.last});
      if (l.spatial && c.last != c.chunk) return void(why = "an uneven core split");
      // Leased copies: a fresh one per loop was a tenth of the plan.
      // The first loop's boxes are the whole problem's; the others', cut at this tile before.
      auto restrict = [&](int64_t lo, OpBoxes& b) {
        if (li == 0) shape.index.restrict(outer, l.dim, lo, lo + c.chunk, b);
        else shape.index.restrict_projected(outer, l.dim, lo, lo + c.chunk, b);
      };
      BoxPool::Lease first(pool, boxes);
      restrict(0, *first);
      self(self, li + 1, *first, partial);
      if (!l.spatial && c.last != c.chunk) {
        BoxPool::Lease last(pool, boxes);
        restrict((c.trips - 1) * c.chunk, *last);
        self(self, li + 1, *last, partial + 1);
      }
    };
    classes(classes, 0, whole, 0);
    if (why) return why;
    // One box per buffer at the group tile in every class: nothing moves apart.
    for (size_t k = 0; k < g.classes_used; ++k)
      for (const int t : shape.owned[static_cast<size_t>(tile)]) {
        const BufferAccesses::Accesses by = shape.accesses.of(tile, t);
        if (by.end() - by.begin() < 2) continue;  // one access: one box
        Boxes held;
        try {
          take_slice(held, by, g.classes[k]);
        } catch (const TooManyBoxes&) {
          return "a slice of several boxes";
        }
        if (held.n > 1) return "a slice of several boxes";
      }
    if (Refusal r = check_ops(w, f, g)) return r;
  }
  return nullptr;
}

TemplateVerdict template_plan(const arch::Arch& a, const Workload& w, const Dataflow& f, const TreeShape& shape) {
  TemplateVerdict v;
  TemplatePlan plan;
  if (const char* why = template_plan(a, w, f, shape, plan)) v.why = why;
  else v.plan = std::move(plan);
  return v;
}

}  // namespace dfx::model
