#pragma once
// One tree's analysis under the search's limits (mapper/search.h): the loader's checks, a
// footprint floor against the capacities and --max-footprint, then model::analyze. (The cycles
// floor rules candidates out before their trees are built, visited_floor() once they are:
// mapper/batch_scorer.h.) Thread-safe (const after construction): the search's worker threads
// share one.
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "arch/arch.h"
#include "mapper/analysis_cache.h"
#include "mapper/search.h"
#include "model/dataflow.h"
#include "model/phase_cache.h"
#include "model/tree_shape.h"
#include "model/walk.h"
#include "model/report.h"
#include "model/workload.h"

namespace dfx::mapper {

class TreeScorer {
 public:
  // Contract: throws InputError when `max_footprint` names a level the arch does not have.
  TreeScorer(const arch::Arch& a, const model::Workload& w, Objective objective,
             const std::vector<std::pair<std::string, double>>& max_footprint,
             model::StepReplay replay = model::StepReplay::Worthwhile, model::HeldAs held = model::HeldAs::Boxes);

  // A pure function of the tree. With a bar, the analysis may give up once the tree's cycles are
  // certainly above it (model::analyze_below): the result is then ruled_out(), with its
  // `at_least`.
  Scored score(const model::Dataflow& f, model::CyclesBar give_up = {}) const;

  // The result of a candidate ruled out by a floor on its cycles: not analysed, since whatever its
  // cost the search would do the same with it.
  Scored ruled_out() const;

  // A floor on the tree's cycles from the walk's visits (model/cycles_floor.h), where it can beat
  // the cycles floor of its choice (Space::cycles_floor): model::instruction_floor on machines
  // timed by instructions, model::visited_compute_floor on the others for workloads whose fused
  // producers have windows; else 0 (and for a tree whose shape does not place). Its shape comes
  // from the cache analyses use.
  double visited_floor(const model::Dataflow& f) const;
  // Whether visited_floor() bounds the tree's compute (not its instructions): a floor the
  // analysis's fill check may add the fill to (model::CyclesBar).
  bool visited_floor_is_compute() const { return !a_.instruction_timed(); }

  // The report keeps every --max-footprint limit.
  bool within_limits(const model::Report& r) const;
  // The limits it does not keep, said as "level 'L1' holds 3.2 MiB per instance, over
  // --max-footprint L1=2.0 MiB" ("" when it keeps them all).
  std::string over_limits(const model::Report& r) const;
  // For a search that found nothing valid: per limited level whose limit every candidate
  // checked exceeded, the least any of them was known to need there — a lower bound, from its
  // footprint floor where that rejected it, else its analysed peak — as "L1: 34 B, ..." ("":
  // none such).
  std::string least_needed() const;

 private:
  const arch::Arch& a_;
  const model::Workload& w_;
  Objective objective_;
  model::StepReplay replay_;
  model::HeldAs held_;
  std::vector<std::pair<int, double>> limits_;  // (level, most bytes per instance)
  std::shared_ptr<const model::Report> ruled_out_report_;
  // Groups hand their data over through DRAM and most candidates share groups with earlier
  // ones: their analyses are kept (model/phase_cache.h). Thread-safe itself.
  mutable model::PhaseCache phases_;
  // What their shapes decide too, placements first (model/tree_shape.h). Thread-safe itself.
  mutable model::ShapeCache shapes_;
  bool windows_ = false;  // some op is not certainly computed in full (model::computed_in_full)

  // least_needed()'s figures, one per limit, lowered by each candidate checked (any thread).
  std::unique_ptr<std::atomic<int64_t>[]> least_;

  // With the need over the bound it exceeds in `overflow`.
  std::shared_ptr<const model::Report> cannot_fit(const model::Dataflow& f, double& overflow) const;
  // The report's fullest level: its peak over its capacity or limit, whichever is less.
  double fullest(const model::Report& r) const;
  void note_needs(const std::vector<int64_t>& bytes_per_level) const;
};

}  // namespace dfx::mapper
