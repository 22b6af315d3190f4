#pragma once
// dfx explore: search the template space (mapper/space.h) for the best dataflows of a workload
// on an arch, next to named baselines whose tiling is searched the same way.
// Contract: the mapper proposes trees; model::analyze answers with a report or the reason the
// tree is invalid. Deterministic for a given seed.
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "arch/arch.h"
#include "mapper/space.h"
#include "model/dataflow.h"
#include "model/report.h"
#include "model/report_io.h"
#include "model/workload.h"

namespace dfx::mapper {

enum class Objective { Cycles, Energy, Edp };

struct Progress {
  int64_t evaluations = 0;  // candidates scored
  int64_t analyses = 0;     // of them, analysed (the others were trees analysed before)
  double best_cost = 0;
  double seconds = 0;
};

struct SearchOptions {
  Objective objective = Objective::Cycles;
  uint64_t seed = 1;
  int64_t evaluations = 10000;  // budget of candidates scored, baselines included (repeats count too)
  double seconds = 0;           // wall-clock budget; 0 = none
  int top = 1;
  int jobs = 1;                 // threads analysing candidates; results do not depend on it
  bool exhaustive = false;      // analyse every point of the space instead of evolving (small spaces)
  bool pareto = false;          // also keep the cycles/energy front of everything analysed
  bool mcts = false;            // baselines' tilings by Monte-Carlo tree search (one thread)
  // Build the named baselines and the chain solver's tree, each tuned on its share of the budget
  // (a third together), and report them; without, the open search gets the whole budget (the
  // chain solver's tiles still seed it) and Outcome::baselines stays empty.
  bool baselines = true;
  // Constraints: the primitives fused groups may use (empty: Seq, Shar, Pipe), and the most
  // bytes a level may hold per instance (by level name); violating candidates count as invalid.
  std::vector<model::Prim> prims;
  std::vector<std::pair<std::string, double>> max_footprint;
  // The fusion, fixed by the user: groups of op names, every op once, each group a run of ops in
  // the workload's order (empty: searched). Throws InputError (at "--groups") otherwise.
  std::vector<std::vector<std::string>> groups;
  // Parts of the tree fixed by hand (Space::pin: "qk:sp=m:16,l:16", "qk+av:prim=Pipe"...); the
  // named baselines that cannot keep them and the chain solver's tree drop out.
  std::vector<std::string> fix;
  // With an element type: only dataflows the lowering can express (mapper::lower) may become the
  // best; a candidate better than the best so far that does not lower counts as invalid (what
  // `dfx explore --emit` asks for). Its buffers may need more room than the model's peak.
  std::optional<arch::DType> lowering;
  // Skip the analysis of candidates whose cycles floor (Space::cycles_floor, model::cycles_floor
  // of their tree; then TreeScorer::visited_floor of the tree built) shows they cannot
  // be used (Outcome::ruled_out). The results are the same either way; off only to check that.
  bool rule_out = true;
  // Replay representative steps in the analyses (model/walk_replay.h). The results are the same
  // either way; off only to check that.
  bool replay_steps = true;
  // Hold buffers as boxes where every access is an interval (model/held.h). The results are the
  // same either way; off only to check that.
  bool boxes = true;
  // After the search, walk the best point's neighbourhood one tiling decision at a time until no
  // single change improves it (Outcome::polished), on up to a tenth of `evaluations` more (at
  // least 1,000, or two sweeps of its neighbourhood) and within `seconds`.
  bool polish = false;
  // Then the same for each named baseline's best point, on as much again each: the comparison
  // is only as fair as the baselines are tuned (`dfx explore --polish` asks for both).
  bool polish_baselines = false;
  std::function<void(const Progress&)> on_progress;  // called now and then
  const std::atomic<bool>* stop = nullptr;           // set it to end early, keeping the best
};

struct Candidate {
  std::string name;
  std::string flow_yaml;  // loads with model::load_dataflow and analyses to `report`
  model::Report report;
  double cost = 0;
  Choice choice;  // its point of the template (empty for a tree from outside it: the chain solver's)
};

// A named baseline that applies but got no valid tiling: how many candidates of its structure
// were scored invalid, and why the one nearest to fitting was (the least overflow of a level's
// capacity or --max-footprint limit; "" when the loader refused them all).
struct BaselineNotFound {
  std::string name;
  int64_t invalid = 0;
  std::string nearest;
};

struct Outcome {
  int64_t not_lowered = 0;           // with SearchOptions::lowering: better candidates refused
  std::vector<Candidate> best;       // up to `top`, best first
  std::vector<Candidate> baselines;  // the named baselines that apply (Space::baselines), best tiling found
  std::vector<BaselineNotFound> baselines_not_found;  // named baselines that apply but got no valid tiling
  std::string closed_form_invalid;  // why the chain solver's tree is not valid here ("": valid, or no such tree)
  std::vector<Candidate> pareto;     // with SearchOptions::pareto: no other is both faster and cheaper; by cycles
  int64_t evaluations = 0;  // candidates scored
  int64_t analyses = 0;     // full analyses run: repeated candidates are answered from a cache, and
                            // trees that cannot fit are rejected before the analysis
  int64_t valid = 0;        // candidates scored valid (repeats answered from the cache included)
  // Candidates not analysed because their cycles floor showed they could not beat any result
  // they would be compared with (the best so far, the climb, a baseline's best): the search's
  // choices and results are the same as with every one analysed.
  int64_t ruled_out = 0;
  double seconds = 0;
  std::vector<std::pair<int64_t, double>> convergence;  // (evaluations, best cost so far)
  // With SearchOptions::polish, the best point of the template is polished: no change of one
  // tiling decision (Space::tiling_options) makes it better. False when its budget ended first.
  bool polished = false;
  // With SearchOptions::polish_baselines: every named baseline's point is polished likewise.
  bool baselines_polished = false;
  bool interrupted = false;  // SearchOptions::stop ended it: the best found so far
  Objective objective = Objective::Cycles;  // what `cost` measures (SearchOptions::objective)
};

double cost_of(const model::Report& r, Objective o);

// The outcome as JSON (schema dfx.explore/1, docs/mapper.md). `clock_ghz`: the arch's clock, so
// that a reader can turn cycles into time (a sweep over clocks); left out when 0.
std::string to_json(const Outcome& out, const std::string& arch, const std::string& workload, const SearchOptions& o,
                    const model::InputChanges& changes = {}, double clock_ghz = 0);

// Contract: throws InputError when the arch or workload does not fit the search template, when
// no valid dataflow was found within the budget, or when an exhaustive search's space is larger
// than the budget.
Outcome explore(const arch::Arch& a, const model::Workload& w, const SearchOptions& options);

// What explore checks of the pair before any candidate (`dfx validate ARCH WORKLOAD` runs it):
// some dataflow can run (model::no_dataflow_runs), and the search template fits the arch (an
// on-chip level to tile into, a unit for every op). Contract: InputError naming each problem.
void check_explorable(const arch::Arch& a, const model::Workload& w);

}  // namespace dfx::mapper
