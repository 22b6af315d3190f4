#pragma once
// Which trees a closed-form analysis of the mapper's template could answer, and their parts
// (docs/closed-form-plan.md, step 1): the walk (model/walk*.cpp) stays the definition of the
// semantics; a closed form may answer only trees this plan takes, and is held to the walk on
// every one. Internal to model/.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "arch/arch.h"
#include "model/dataflow.h"
#include "model/tree_shape.h"
#include "model/workload.h"

namespace dfx::model {

// An op of a group: the tile with its own loops (temporal, then spatial), the loop-less tile
// under it that holds its operands (a PE array's registers; -1: the leaf is right below), and
// its leaf.
struct TemplateOp {
  int tile = -1, registers = -1, leaf = -1;
  // Where the group's ops have loops of their own at the root's level (Choice::own_trips): the
  // op's own tile between the group's and its tile (its loops temporal), else -1.
  int own = -1;
  size_t op = 0;
  // Spreads of its tile that run different numbers of instances in different steps: the walk
  // runs their instances in runs (classes), each with buffers of its own; where two are, runs
  // within runs (the first spread's outside, a pair of runs per set of buffers).
  static constexpr size_t kMaxRuns = 8, kMaxClassed = 2;
  struct Classed {
    int loop = -1;  // the spread, its index among the tile's loops
    size_t runs = 1;
    int64_t counts[kMaxRuns] = {0};  // the instance counts it runs, ascending: run r is [counts[r-1], counts[r])
  };
  Classed classed[kMaxClassed];
  size_t classings = 0;  // how many spreads are classed (in loop order)
  size_t runs = 1;       // sets of buffers: run r1 of the first and r2 of the second are r1 * classed[1].runs + r2
};

// A loop of a group's outer tile, as it cuts the whole problem: its chunk, how many steps, and
// the last step's extent (the chunk where it divides).
struct OuterLoop {
  int dim = -1;
  bool spatial = false;
  int64_t chunk = 0, trips = 1, last = 0;
};

// A child of the root: an outer tile at the root's level (loops over cores first, then temporal
// loops) over a loop-less group tile whose children are the ops' tiles; or, where the ops have
// loops of their own at the root's level, an outer tile that is the group's tile too (`tile` ==
// `outer`, keeping the group's intermediates) over each op's own tile.
struct TemplateGroup {
  int outer = -1, tile = -1;
  Prim prim = Prim::Seq;
  std::vector<OuterLoop> loops;
  std::vector<TemplateOp> ops;
  // The group tile's boxes, one per class of outer steps (full or partial in each temporal
  // loop): what the op nests are cut from. [0, classes_used) (the storage is kept from tree to
  // tree), and in how many partial steps each lies.
  std::vector<OpBoxes> classes;
  size_t classes_used = 0;
  std::vector<int> class_partial;
};

struct TemplatePlan {
  std::vector<TemplateGroup> groups;
};

// Fills `plan` for `f` (whose shape is `shape`) and returns nullptr, or returns why a closed form
// would not take it: the first condition it fails, a short phrase (the coverage test tallies
// them). `plan`'s storage is reused: the walk keeps one per thread.
const char* template_plan(const arch::Arch& a, const Workload& w, const Dataflow& f, const TreeShape& shape, TemplatePlan& plan);
// The same, as a value (tests).
struct TemplateVerdict {
  std::optional<TemplatePlan> plan;
  std::string why;
};
TemplateVerdict template_plan(const arch::Arch& a, const Workload& w, const Dataflow& f, const TreeShape& shape);

}  // namespace dfx::model
