#pragma once
// A closed-form analysis of the mapper's template trees (docs/closed-form-plan.md): the walk's
// result for a tree template_plan() takes, computed from its groups' step classes with each
// buffer held as one box, instead of walked. The walk (model/walk*.cpp) stays the definition:
// this answers only the trees it models (so far: one group whose loops all divide their
// extents) and is held to the walk, field by field and to the bit, on every one it answers
// (tests/unit/template_eval_test.cpp). Internal to model/; not yet used by walk_tree.
#include <optional>
#include <string>

#include "arch/arch.h"
#include "model/dataflow.h"
#include "model/phase_cache.h"
#include "model/template_plan.h"
#include "model/tree_shape.h"
#include "model/walk.h"
#include "model/workload.h"

namespace dfx::model {

// The walk's result for `f`, or nullopt where the closed form does not model the tree yet (with
// `why`: what it met). `phases` and `give_up` as walk_tree takes them: phases looked up and kept
// as the walk does, and giving up where it would.
std::optional<WalkResult> template_walk(const arch::Arch& a, const Workload& w, const Dataflow& f, const TreeShape& shape,
                                        const TemplatePlan& plan, PhaseCache* phases = nullptr, CyclesBar give_up = {},
                                        std::string* why = nullptr);

}  // namespace dfx::model
