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
  bool scored = false;
  climb_round(climbs, scored, true);  // the starts, whatever the budget: every climb has a point
  while (scored && !out_of_budget()) climb_round(climbs, scored);
}

void Searcher::climb_round(std::vector<Climb>& climbs, bool& scored, bool start_anyway) {
  std::vector<size_t> owner;  // per position: its climb
  std::vector<double> bars;
  std::vector<Choice> starts;
  int64_t left = budget_ - out_.evaluations;
  bool only_starts = true;
  for (size_t k = 0; k < climbs.size(); ++k) {
    Climb& c = climbs[k];
    c.batch = 0;
    if (c.used == 0) {
      // A structure that comes with a tiling (a restructured point) starts from it.
      if (left <= 0 && !start_anyway) continue;
      c.start = c.structure.outer.empty() ? space_.retile(c.structure, rng_) : c.structure;
      starts.push_back(c.start);
      c.batch = 1, --left;
      owner.push_back(k), bars.push_back(INFINITY);
      continue;
    }
    if (c.used >= c.budget || left <= 0) continue;
    const bool restart = c.stale >= kStaleBatches;
    c.explore = c.used < c.budget / 4 || !c.climb.valid || restart;
    c.batch = batch_size(std::min(c.budget - c.used, left));
    left -= static_cast<int64_t>(c.batch);
    c.from = c.climb.choice, c.from_report = c.climb.report;
    if (restart) c.climb = Entry{};
    owner.insert(owner.end(), c.batch, k);
    bars.insert(bars.end(), c.batch, std::max(c.best.cost, c.climb.cost));
    only_starts = false;
  }
  scored = !owner.empty();
  if (!scored) return;
  auto next = [&](size_t i, std::mt19937_64& rng) {
    const Climb& c = climbs[owner[i]];
    if (c.used == 0) return c.start;
    return c.explore ? draw(c.structure, c.best, rng) : step_from(c.from, c.from_report.get(), rng);
  };
  // A round of starts alone is scored as fixed points (no draws).
  std::vector<Entry> done = count(only_starts ? analyse(owner.size(), starts, nullptr, [&](size_t i) { return bars[i]; })
                                             : analyse(owner.size(), {}, next, [&](size_t i) { return bars[i]; }));
  size_t i = 0;
  for (Climb& c : climbs) {
    if (c.batch > 0 && c.used == 0) {
      c.best = c.climb = std::move(done[i++]), c.used = 1;
      continue;
    }
    bool improved = false;
    for (size_t j = 0; j < c.batch; ++j, ++i) {
      Entry& e = done[i];
      if (e.cost < c.best.cost) c.best = e;
      if (e.cost < c.climb.cost) c.climb = std::move(e), improved = true;
      else if (!c.explore && e.valid && e.cost == c.climb.cost) c.climb = std::move(e);
    }
    c.used += static_cast<int64_t>(c.batch);
    if (c.batch > 0) c.stale = improved || c.explore ? 0 : c.stale + 1;
  }
}

// An exploring draw. Groups hand their data over through DRAM and run one after another, so
// the cost is a sum over groups: half the draws retile one group of the best point, keeping the
// others (with seven groups, a whole retile rarely draws all seven well at once); the other
// half retile everything (with two groups of which one costs most, that samples it twice as often).
Choice Searcher::draw(const Choice& structure, const Entry& best, std::mt19937_64& rng) const {
  if (best.valid && space_.groups(structure) > 1 && std::bernoulli_distribution(0.5)(rng)) return space_.retile_group(best.choice, rng);
  return space_.retile(structure, rng);
}

// A climb's step: one tiling gene, or now and then two at once — some improvements need two
// genes to move together (the loop over the cores and the spatial choice it frees). Some steps
// are aimed: a fused group's slowest ops spread wider, all of them at once where they tie.
Choice Searcher::step_from(const Choice& c, const model::Report* r, std::mt19937_64& rng) const {
  if (std::bernoulli_distribution(kAimedSteps)(rng)) {
    // Half the aimed steps go to a stage its transfers slow, when the point's analysis shows one.
    if (r && std::bernoulli_distribution(0.5)(rng))
      if (Choice reshaped = space_.reshape_slowest(c, *r, rng); !(reshaped == c)) return reshaped;
    if (Choice wider = space_.widen_slowest(c, rng); !(wider == c)) return wider;
  }
  Choice next = space_.mutate(c, rng, false);
  if (std::bernoulli_distribution(kPairedSteps)(rng)) next = space_.mutate(next, rng, false);
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
