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
  // A structure that comes with a tiling (a restructured point) starts from it.
  Entry best = evaluate({structure.outer.empty() ? space_.retile(structure, rng_) : structure}).front();
  Entry climb = best;
  int64_t used = 1, stale = 0;
  while (used < budget && !out_of_budget()) {
    const bool restart = stale >= kStaleBatches;
    const bool explore = used < budget / 4 || !climb.valid || restart;
    const size_t n = batch_size(std::min(budget - used, budget_ - out_.evaluations));
    used += static_cast<int64_t>(n);
    const Choice from = climb.choice;
    const std::shared_ptr<const model::Report> from_report = climb.report;
    auto next = [&](std::mt19937_64& rng) { return explore ? draw(structure, best, rng) : step_from(from, from_report.get(), rng); };
    if (restart) climb = Entry{};
    bool improved = false;
    for (Entry& e : evaluate_drawn(n, next, std::max(best.cost, climb.cost))) {
      if (e.cost < best.cost) best = e;
      if (e.cost < climb.cost) climb = std::move(e), improved = true;
      else if (!explore && e.valid && e.cost == climb.cost) climb = std::move(e);
    }
    stale = improved || explore ? 0 : stale + 1;
  }
  return best;
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
