#include "mapper/search.h"

#include <algorithm>
#include <cmath>

#include "mapper/searcher.h"
#include "model/analyze.h"

namespace dfx::mapper {

double cost_of(const model::Report& r, Objective o) {
  switch (o) {
    case Objective::Cycles: return r.cycles;
    case Objective::Energy: return r.energy_pj;
    case Objective::Edp: return r.cycles * r.energy_pj;
  }
  return r.cycles;
}

namespace {

// A flow.yaml's text after its first line, the name (to_yaml and the chain solver write it first).
std::string tree_text(const std::string& yaml) {
  return yaml.rfind("name:", 0) == 0 ? yaml.substr(std::min(yaml.size(), yaml.find('\n') + 1)) : yaml;
}

std::string renamed(const std::string& yaml, const std::string& name) {
  return yaml.rfind("name:", 0) == 0 ? "name: " + model::yaml_scalar(name) + "\n" + tree_text(yaml) : yaml;
}

}  // namespace

Searcher::Searcher(const arch::Arch& a, const model::Workload& w, const SearchOptions& o)
    : a_(a), w_(w), o_(o), space_(a, w, o.prims, o.lowering.has_value()), scorer_(a, w, o.objective, o.max_footprint, o.replay_steps ? model::StepReplay::Worthwhile : model::StepReplay::Off, o.boxes ? model::HeldAs::Boxes : model::HeldAs::Sets), rng_(o.seed),
      start_(std::chrono::steady_clock::now()) {
  if (!o.groups.empty()) space_.fix_groups(o.groups);
  if (!o.fix.empty()) space_.pin(o.fix);
}

Outcome Searcher::run() {
  if (o_.baselines) named_ = space_.baselines();
  named_best_.assign(named_.size(), Entry{});
  named_unfitting_.assign(named_.size(), Unfitting{});
  // Baselines share a third of the budget, the open search gets the rest; an exhaustive search
  // covers them anyway, so they only get a glance then.
  const int64_t per_baseline = o_.exhaustive ? 32 : std::max<int64_t>(1, o_.evaluations / 3 / std::max<int64_t>(1, static_cast<int64_t>(named_.size())));
  // Layerwise is the reference every speed-up divides by: it gets a double part of the
  // evaluations. With --time the phases share the time as they share the evaluations
  // (mapper/time_budget.h: a large --evals would otherwise give the baselines the whole time, and
  // the open search none); the baselines' climbs, side by side, share their third alike
  // (Layerwise's double part is of evaluations only), MCTS searches take their parts in turn.
  std::vector<int> parts;
  for (const Baseline& b : named_) parts.push_back(b.name == "Layerwise" ? 2 : 1);
  const int sweeps = o_.exhaustive ? 0 : (o_.polish ? 1 : 0) + (o_.polish_baselines ? static_cast<int>(named_.size()) : 0);
  time_ = TimeBudget(o_.seconds, parts, sweeps / static_cast<double>(kPolishShare));
  if (o_.mcts) {
    for (size_t b = 0; b < named_.size(); ++b) {
      phase_end_ = time_.baseline_end(b);
      Entry best = tile_search(named_[b].structure, parts[b] * per_baseline);
      if (best.valid) population_.push_back(best);
    }
  } else if (!named_.empty()) {
    // The baselines' climbs side by side (climb()): their third of the time is theirs together.
    std::vector<Climb> climbs(named_.size());
    for (size_t b = 0; b < named_.size(); ++b) climbs[b].structure = named_[b].structure, climbs[b].budget = parts[b] * per_baseline;
    phase_end_ = time_.baseline_end(named_.size() - 1);
    climb(climbs);
    for (const Climb& c : climbs)
      if (c.best.valid) population_.push_back(c.best);
  }
  phase_end_ = time_.search_end();
  chain_solver();
  if (o_.exhaustive) {
    everything();
  } else {
    evolve();
    sweeps_left_ = o_.polish ? 1 : 0;
    if (o_.polish_baselines)
      for (const Entry& e : named_best_) sweeps_left_ += e.valid;
    if (o_.polish) polish();
    if (o_.polish_baselines) polish_baselines();
  }
  // A baseline is its structure with the best tiling found for it anywhere in the search (the
  // open search often tiles a baseline's structure better than its own share did).
  std::vector<Candidate> solved = std::move(out_.baselines);
  out_.baselines.clear();
  for (size_t b = 0; b < named_.size(); ++b) {
    if (named_best_[b].valid) out_.baselines.push_back(candidate(named_best_[b], named_[b].name));
    else out_.baselines_not_found.push_back({named_[b].name, named_unfitting_[b].invalid, named_unfitting_[b].reason});
  }
  out_.baselines.insert(out_.baselines.end(), solved.begin(), solved.end());
  // The kept points are distinct trees in order (Searcher::keep); the chain solver's tree, from
  // outside the template, joins them where it ranks unless one of them is the same tree.
  for (const Entry& e : kept_) out_.best.push_back(candidate(e, "best"));  // numbered below
  const auto listed = [&](const Candidate& c) {
    return std::any_of(out_.best.begin(), out_.best.end(), [&](const Candidate& b) { return tree_text(b.flow_yaml) == tree_text(c.flow_yaml); });
  };
  if (extra_ && (out_.best.size() < static_cast<size_t>(o_.top) ||
                 before(extra_->report, extra_->cost, out_.best.back().report, out_.best.back().cost)) &&
      !listed(*extra_)) {
    Candidate c = *extra_;
    auto at = std::find_if(out_.best.begin(), out_.best.end(),
                           [&](const Candidate& b) { return before(c.report, c.cost, b.report, b.cost); });
    out_.best.insert(at, c);
    if (out_.best.size() > static_cast<size_t>(o_.top)) out_.best.pop_back();
  }
  for (size_t i = 0; i < out_.best.size(); ++i) out_.best[i].flow_yaml = renamed(out_.best[i].flow_yaml, out_.best[i].name = "best" + std::to_string(i + 1));
  if (out_.best.empty() && out_.not_lowered > 0)
    throw InputError(SourceLoc{}, "no dataflow found in " + std::to_string(out_.evaluations) + " evaluations that the lowering (--emit) can express; it refused " +
                                      std::to_string(out_.not_lowered) + " valid ones:" + lowering_.refusals());
  if (out_.best.empty()) {
    const std::string least = scorer_.least_needed(), commonest = commonest_problem();
    throw InputError(SourceLoc{}, "no valid dataflow found in " + std::to_string(out_.evaluations) +
                                      " evaluations: raise --evals, " + (o_.max_footprint.empty() ? "" : "relax --max-footprint, ") +
                                      "or check capacities and PE counts" +
                                      (least.empty() ? "" : " (no candidate checked could hold less than " + least + ", a bound from their footprints, not a tree that fits)") +
                                      (commonest.empty() ? "" : "; most often: " + commonest));
  }
  std::sort(front_.begin(), front_.end(), [](const Entry& x, const Entry& y) { return x.report->cycles < y.report->cycles; });
  for (size_t i = 0; i < front_.size(); ++i) out_.pareto.push_back(candidate(front_[i], "pareto" + std::to_string(i + 1)));
  out_.seconds = elapsed();
  out_.interrupted = o_.stop && o_.stop->load();
  out_.objective = o_.objective;
  return out_;
}

Candidate Searcher::candidate(const Entry& e, const std::string& name) const {
  if (!e.fixed_yaml.empty()) return Candidate{name, e.fixed_yaml, *e.report, e.cost, {}};
  return Candidate{name, space_.flow_yaml(e.choice, name), *e.report, e.cost, e.choice};
}

void check_explorable(const arch::Arch& a, const model::Workload& w) {
  // No tree can run an op the arch has no unit or instruction for: said up front, not as "no
  // valid dataflow found" after the whole budget.
  if (std::vector<Problem> cannot = model::no_dataflow_runs(a, w); !cannot.empty()) throw InputError(cannot);
  Space(a, w, {}, false);  // its constructor refuses an arch the template cannot tile
}

Outcome explore(const arch::Arch& a, const model::Workload& w, const SearchOptions& options) {
  if (std::vector<Problem> cannot = model::no_dataflow_runs(a, w); !cannot.empty()) throw InputError(cannot);
  return Searcher(a, w, options).run();
}

}  // namespace dfx::mapper
