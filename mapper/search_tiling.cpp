// The tiling search of one structure (mapper/searcher.h): climbs from random tilings, or MCTS.
#include "mapper/searcher.h"

#include <algorithm>

#include "mapper/mcts.h"

namespace dfx::mapper {

// Tiling only: random retiles for the first quarter of the budget, then hill-climbing by
// mutations (one group's genes at a time), a batch at a time. A climb that has not improved
// for a while restarts from a fresh random batch's best (iterated local search): one climb
// alone ends on whichever local optimum its start leads to, and seeds then disagree. The climb
// also moves to a point of equal cost: a Pipe's cost is its slowest stage, and where several
// stages are equally slow no single step improves it (Uni-pipe on attention G2 / edge stopped
// at 3.28 M cycles with four stages of 262 K each per batch, where 524 K is reachable).
Searcher::Entry Searcher::tile_search(const Choice& structure, int64_t budget) {
  if (o_.mcts) return mcts_search(structure, budget);
  std::vector<Climb> one(1);
  one[0].structure = structure, one[0].budget = budget;
  climb(one);
  return one[0].best;
}

void Searcher::climb(std::vector<Climb>& climbs) {
  start_climbs(climbs);
  while (!out_of_budget() && climb_round(climbs)) {
  }
}

void Searcher::start_climbs(std::vector<Climb>& climbs) {
  // A structure that comes with a tiling (a restructured point) starts from it. Starts are
  // scored whatever the budget: every climb has a point.
  std::vector<Choice> starts;
  for (const Climb& c : climbs) starts.push_back(c.structure.outer.empty() ? space_.retile(c.structure, rng_) : c.structure);
  std::vector<Entry> first = evaluate(starts);
  for (size_t k = 0; k < climbs.size(); ++k) climbs[k].best = climbs[k].at = std::move(first[k]), climbs[k].used = 1;
}

bool Searcher::climb_round(std::vector<Climb>& climbs) {
  std::vector<size_t> owner;  // per position: its climb
  std::vector<double> bars;
  int64_t left = budget_ - out_.evaluations;
  for (size_t k = 0; k < climbs.size(); ++k) {
    Climb& c = climbs[k];
    c.in_round = 0;
    if (c.used >= c.budget || left <= 0) continue;
    const bool restart = c.stale >= kStaleBatches;
    c.explore = c.used < c.budget / 4 || !c.at.valid || restart;
    c.in_round = batch_size(std::min(c.budget - c.used, left));
    left -= static_cast<int64_t>(c.in_round);
    c.from = c.at.choice, c.from_report = c.at.report;
    if (restart) c.at = Entry{};  // before its bar is taken: a restart's first batch takes anything
    owner.insert(owner.end(), c.in_round, k);
    bars.insert(bars.end(), c.in_round, std::max(c.best.cost, c.at.cost));
  }
  if (owner.empty()) return false;
  auto next = [&](size_t i, Rng& rng) {
    const Climb& c = climbs[owner[i]];
    return c.explore ? draw(c.structure, c.best, rng) : step_from(c.from, c.from_report.get(), rng);
  };
  std::vector<Entry> done = count(analyse(owner.size(), {}, next, [&](size_t i) { return bars[i]; }));
  size_t i = 0;
  for (Climb& c : climbs) {
    bool improved = false;
    for (size_t j = 0; j < c.in_round; ++j, ++i) {
      Entry& e = done[i];
      if (e.cost < c.best.cost) c.best = e;
      if (e.cost < c.at.cost) c.at = std::move(e), improved = true;
      else if (!c.explore && e.valid && e.cost == c.at.cost) c.at = std::move(e);
    }
    c.used += static_cast<int64_t>(c.in_round);
    if (c.in_round > 0) c.stale = improved || c.explore ? 0 : c.stale + 1;
  }
  return true;
}

Choice Searcher::draw(const Choice& structure, const Entry& best, Rng& rng) const {
  if (best.valid && space_.groups(structure) > 1 && chance(rng, 0.5)) return space_.retile_group(best.choice, rng);
  return space_.retile(structure, rng);
}

Choice Searcher::step_from(const Choice& c, const model::Report* r, Rng& rng) const {
  if (chance(rng, kAimedSteps)) {
    // Half the aimed steps go to a stage its transfers slow, when the point's analysis shows one.
    if (r && chance(rng, 0.5))
      if (Choice reshaped = space_.reshape_slowest(c, *r, rng); !(reshaped == c)) return reshaped;
    if (Choice wider = space_.widen_slowest(c, rng); !(wider == c)) return wider;
  }
  Choice next = space_.mutate(c, rng, false);
  if (chance(rng, kPairedSteps)) next = space_.mutate(next, rng, false);
  return next;
}

Searcher::Entry Searcher::mcts_search(const Choice& structure, int64_t budget) {
  Entry best;
  double cost = 0;
  mcts_tiling(space_, structure, std::min(budget, budget_ - out_.evaluations), static_cast<size_t>(kBatch), rng_,
              [&](const std::vector<Choice>& batch) {
                std::vector<double> costs;
                for (Entry& e : evaluate(batch)) {
                  costs.push_back(e.valid ? e.cost : INFINITY);
                  if (e.valid && e.cost < best.cost) best = std::move(e);
                }
                return costs;
              },
              cost, [&] { return out_of_budget(); });
  return best;
}

}  // namespace dfx::mapper
