// The search's phases besides the baselines' tilings (mapper/searcher.h): the chain solver, the
// open search, exhaustive search and --polish.
#include "mapper/searcher.h"

#include <algorithm>

#include "mapper/chain_solver.h"
#include "model/analyze.h"
#include "model/dataflow.h"

namespace dfx::mapper {

void Searcher::chain_solver() {
  std::string why_none;
  auto solved = solve_gemm_chain(a_, w_, &why_none);
  const bool seq_allowed = o_.prims.empty() || std::find(o_.prims.begin(), o_.prims.end(), model::Prim::Seq) != o_.prims.end();
  // Its tree fuses the whole chain: not a candidate when the user fixed another grouping.
  bool one_group = true;
  for (const auto& g : o_.groups) one_group = one_group && g.size() == w_.ops.size();
  if (!seq_allowed || !one_group || space_.pinned() || out_of_budget()) return;
  if (!solved) {
    if (o_.baselines) out_.closed_form_invalid = why_none;  // "" where the workload is no chain of GEMMs
    return;
  }
  // Its tiles as a point of the template (two GEMMs) seed the search.
  if (!solved->group_tile.empty())
    if (auto seed = space_.fused_at(model::Prim::Seq, solved->core_dim, solved->cores, solved->group_tile, solved->own_trips)) {
      Entry e = evaluate({*seed}).front();
      if (e.valid) population_.push_back(std::move(e));
    }
  if (!o_.baselines || out_of_budget()) return;
  ++out_.evaluations;
  ++out_.analyses;
  try {
    model::Dataflow f = model::load_dataflow_from_string(solved->flow_yaml, "chain_solver", a_, w_);
    model::Report r = model::analyze(a_, w_, f, nullptr, o_.replay_steps ? model::StepReplay::Worthwhile : model::StepReplay::Off,
                                     o_.boxes ? model::HeldAs::Boxes : model::HeldAs::Sets);
    if (!r.valid || !scorer_.within_limits(r)) {
      out_.closed_form_invalid = r.valid ? scorer_.over_limits(r) : r.reason;
      return;
    }
    ++out_.valid;
    out_.baselines.push_back(Candidate{"Chimera (closed form)", solved->flow_yaml, r, cost_of(r, o_.objective), {}});
    // Outside the template: it competes for `best` at the end, if it lowers when asked to.
    if (lowering_.lowers(f)) extra_ = out_.baselines.back();
    else ++out_.not_lowered;
    if (o_.pareto) {
      Entry e;
      e.fixed_yaml = solved->flow_yaml;
      e.report = std::make_shared<const model::Report>(r);
      e.cost = out_.baselines.back().cost;
      e.valid = true;
      add_to_front(e);
    }
  } catch (const InputError&) {
  }
}

void Searcher::everything() {
  int64_t size = 0;
  // Counting a large space takes a while too (~0.2 µs a point): --time and Ctrl-C stop it. Past
  // the budget it goes on to kMaxCounted, so that a refusal can say what --evals would do.
  constexpr int64_t kMaxCounted = 10'000'000;
  const int64_t counted = std::max(o_.evaluations, kMaxCounted);
  bool cut_short = false;
  space_.enumerate([&](const Choice&) {
    if ((size & 4095) == 0 && ((o_.stop && o_.stop->load()) || (o_.seconds > 0 && elapsed() >= o_.seconds))) {
      cut_short = true;
      return false;
    }
    return ++size <= counted;
  });
  if (cut_short && o_.stop && o_.stop->load()) return;  // the baselines' best so far
  if (cut_short)
    throw InputError(SourceLoc{"--exhaustive", 0, 0, ""}, "counting the space's points took all of --time (more than " +
                                                            std::to_string(size) + " so far): raise --time or drop --exhaustive");
  const int64_t left = std::max<int64_t>(0, o_.evaluations - out_.evaluations);
  if (size > left)
    throw InputError(SourceLoc{"--exhaustive", 0, 0, ""},
                     (size > counted ? "the space has more than " + std::to_string(counted) + " points"
                                     : "the space has " + std::to_string(size) + " points") +
                         ", and " + std::to_string(left) + " of the " + std::to_string(o_.evaluations) +
                         " evaluations are left" + (o_.baselines ? " after the baselines" : "") + ": " +
                         (size > counted ? std::string("drop --exhaustive")
                                         : "raise --evals to " + std::to_string(size + out_.evaluations) + " or drop --exhaustive"));
  std::vector<Choice> batch;
  const size_t kept = static_cast<size_t>(o_.top) + 8;
  auto flush = [&] {
    double bar = INFINITY;  // the cost a new entry must beat to stay among the kept
    if (population_.size() >= kept) {
      std::vector<double> costs;
      for (const Entry& e : population_) costs.push_back(e.cost);
      std::nth_element(costs.begin(), costs.begin() + static_cast<long>(kept - 1), costs.end());
      bar = costs[kept - 1];
    }
    for (Entry& e : evaluate(batch, bar)) population_.push_back(std::move(e));
    std::sort(population_.begin(), population_.end(), [](const Entry& x, const Entry& y) { return x.cost < y.cost; });
    if (population_.size() > kept) population_.resize(kept);
    batch.clear();
  };
  space_.enumerate([&](const Choice& c) {
    batch.push_back(c);
    if (batch.size() == static_cast<size_t>(kBatch)) flush();
    return !out_of_budget();  // --time or Ctrl-C: the best so far
  });
  if (!batch.empty()) flush();
}

void Searcher::polish() {
  auto best = std::min_element(population_.begin(), population_.end(), [](const Entry& x, const Entry& y) { return x.cost < y.cost; });
  if (best == population_.end() || !best->valid) return;
  auto [at, optimum] = sweep_tiling(*best);
  out_.polished = optimum;
  if (at.cost < best->cost) population_.push_back(std::move(at));
}

void Searcher::polish_baselines() {
  out_.baselines_polished = true;
  for (size_t b = 0; b < named_.size(); ++b)  // evaluate() keeps what a sweep finds in named_best_
    if (named_best_[b].valid) out_.baselines_polished &= sweep_tiling(named_best_[b]).second;
  for (const Entry& e : named_best_)
    if (e.valid) population_.push_back(e);
}

std::pair<Searcher::Entry, bool> Searcher::sweep_tiling(Entry at) {
  phase_end_ = time_.sweep_end(elapsed(), sweeps_left_--);
  const size_t steps = space_.tiling_steps(at.choice);
  int64_t sweep = 0;
  for (size_t step = 0; step < steps; ++step) sweep += static_cast<int64_t>(space_.tiling_options(at.choice, step).size());
  budget_ = out_.evaluations + std::max({o_.evaluations / kPolishShare, kPolishLeast, 2 * sweep});
  auto better = [](const Entry& e, const Entry& than) {
    return e.cost < than.cost || (e.valid && e.cost == than.cost && hardware_used(e) > hardware_used(than));
  };
  bool moved = true;
  while (moved && !out_of_budget()) {
    moved = false;
    for (size_t step = 0; step < steps && !out_of_budget(); ++step) {
      std::vector<Choice> options = space_.tiling_options(at.choice, step);
      options.erase(std::remove(options.begin(), options.end(), at.choice), options.end());
      for (size_t i = 0; i < options.size() && !out_of_budget();) {
        std::vector<Choice> batch;
        for (size_t n = batch_size(budget_ - out_.evaluations); batch.size() < n && i < options.size();) batch.push_back(options[i++]);
        // Ruled out: a floor above the point's cost (an equal cost is analysed).
        for (Entry& e : evaluate(batch, at.cost))
          if (better(e, at)) at = std::move(e), moved = true;
      }
    }
  }
  return {std::move(at), !moved};
}

int64_t Searcher::hardware_used(const Entry& e) {
  return e.report ? e.report->matrix_pes_used + e.report->vector_lanes_used : 0;
}

void Searcher::evolve() {
  const size_t size = 24;
  while (population_.size() < size && !out_of_budget()) {
    const size_t n = std::min(batch_size(budget_ - out_.evaluations), size - population_.size());
    for (Entry& e : evaluate_drawn(n, [&](Rng& rng) { return space_.random(rng); })) population_.push_back(std::move(e));
  }
  auto pick = [&](Rng& rng) -> const Entry& {
    const Entry& x = population_[std::uniform_int_distribution<size_t>(0, population_.size() - 1)(rng)];
    const Entry& y = population_[std::uniform_int_distribution<size_t>(0, population_.size() - 1)(rng)];
    return x.cost <= y.cost ? x : y;
  };
  auto worst = [&] {
    return std::max_element(population_.begin(), population_.end(), [](const Entry& x, const Entry& y) { return x.cost < y.cost; });
  };
  auto replace_worst = [&](Entry&& child) {
    const auto w = worst();
    if (child.cost < w->cost) *w = std::move(child);
  };
  while (!out_of_budget()) {
    if (chance(rng_, kRestructureRate)) {
      // A new structure is judged after a short tiling search of its own: with one random
      // tiling it would lose to every tuned member and never survive.
      const Choice child = space_.restructure(pick(rng_).choice, rng_);
      replace_worst(tile_search(child, kRestructureBudget));
      continue;
    }
    // Genetic: a third of the children cross two winners (then mutate), the rest mutate one.
    auto breed = [&](Rng& rng) {
      Choice child = pick(rng).choice;
      if (chance(rng, 1.0 / 3)) child = space_.crossover(child, pick(rng).choice, rng);
      return space_.mutate(child, rng, false);
    };
    for (Entry& child : evaluate_drawn(batch_size(budget_ - out_.evaluations), breed, worst()->cost)) replace_worst(std::move(child));
  }
}

}  // namespace dfx::mapper
