#pragma once
// The search behind explore() (mapper/search.h), internal to mapper/: its state and phases.
// mapper/search.cpp runs the phases in turn; search_batches.cpp scores batches of candidates and
// counts them; search_tiling.cpp searches the tiling of one structure (climbs, or MCTS);
// search_phases.cpp holds the others (the chain solver, the open search, exhaustive search,
// --polish).
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "mapper/batch_scorer.h"
#include "mapper/lowering_check.h"
#include "mapper/rng.h"
#include "mapper/search.h"
#include "mapper/space.h"
#include "mapper/time_budget.h"
#include "mapper/tree_scorer.h"

namespace dfx::mapper {

class Searcher {
 public:
  Searcher(const arch::Arch& a, const model::Workload& w, const SearchOptions& o);

  Outcome run();

 private:
  struct Entry {
    Choice choice;
    std::string fixed_yaml;  // a tree from outside the template (the chain solver)
    std::shared_ptr<const model::Report> report;
    double cost = INFINITY;
    bool valid = false;
    bool ruled_out = false;  // not analysed: it could not have been used (TreeScorer::score()); no choice kept
    uint64_t follows = 0;    // the named baselines (a handful) whose structure it follows, a bit each
    double overflow = INFINITY;  // invalid: Scored::overflow
  };

  static constexpr int64_t kPolishShare = 10;  // --polish: 1/10 of the budget more, at least (TimeBudget: of the time)
  static constexpr int64_t kPolishLeast = 1000;
  static constexpr int64_t kBatch = 16;  // candidates drawn before any is scored: fixed, so --jobs never changes results
  static constexpr uint64_t kSlotSeedStride = 0x9e3779b97f4a7c15ull;  // spreads the slots' seeds apart
  static constexpr int64_t kStaleBatches = 8;  // batches without improvement before a climb restarts
  // Open search: the share of steps that change a structure, and the tiling search each new
  // structure gets (measured on G1 attention / edge: with 0.25 and 96, eight seeds of 20,000
  // evaluations all end on the same best; with one random tiling per new structure, two missed).
  static constexpr double kRestructureRate = 0.25;
  static constexpr int64_t kRestructureBudget = 96;
  static constexpr double kPairedSteps = 0.3;  // climb steps that change two genes
  static constexpr double kAimedSteps = 0.2;   // climb steps that widen a group's slowest ops

  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

  bool out_of_budget() const {
    if (out_.evaluations >= budget_) return true;
    if (o_.seconds > 0 && elapsed() >= std::min(o_.seconds, phase_end_)) return true;
    return o_.stop && o_.stop->load();
  }

  // Draws a candidate of a batch from its own generator (Searcher::evaluate_drawn); DrawAt, that
  // of position i.
  using Draw = std::function<Choice(Rng&)>;
  using DrawAt = std::function<Choice(size_t, Rng&)>;

  // Scores a batch on the threads (BatchScorer): position i is `fixed[i]`, or else `draw`n. Each
  // drawn position has its own generator, seeded from the search's: a draw does not depend on
  // which thread makes it, or in which order. Position i's bar (bar_for()) is `bar_at(i)`.
  std::vector<Entry> analyse(size_t n, const std::vector<Choice>& fixed, const DrawAt& draw,
                             const std::function<double(size_t)>& bar_at);

  // The cost below which a candidate's result would be used, given `bar`, the caller's: also
  // below the best of a named baseline whose structure it follows (`follows`, a mask). Infinite
  // (analyse everything) unless the objective is cycles, which the floors of
  // model/cycles_floor.h bound, and no front is kept (any point may join it).
  double bar_for(uint64_t follows, double bar) const;

  // Counts a batch's results in order, so the outcome never depends on the thread count. `bar`:
  // results at or above it are of no use to the caller (it only looks for better ones).
  std::vector<Entry> evaluate(const std::vector<Choice>& batch, double bar = INFINITY) {
    return count(analyse(batch.size(), batch, nullptr, [bar](size_t) { return bar; }));
  }
  // The same for `n` candidates drawn by `draw`, each from a generator of its own.
  std::vector<Entry> evaluate_drawn(size_t n, const Draw& draw, double bar = INFINITY) {
    return count(analyse(n, {}, [&](size_t, Rng& rng) { return draw(rng); }, [bar](size_t) { return bar; }));
  }

  std::vector<Entry> count(std::vector<Entry> done);

  // The cycles/energy front: a new point enters unless one there is at least as good on both.
  void add_to_front(const Entry& e);

  size_t batch_size(int64_t budget_left) const {
    return static_cast<size_t>(std::max<int64_t>(1, std::min<int64_t>(kBatch, budget_left)));
  }

  // A structure's tiling searched (search_tiling.cpp): restarted climbs, or with --mcts MCTS.
  Entry tile_search(const Choice& structure, int64_t budget);
  // One tiling climb as a state that takes a batch at a time, so that several climbs' batches
  // are scored together (climb()).
  struct Climb {
    Choice structure;
    int64_t budget = 0, used = 0, stale = 0;
    Entry best, at;  // the best point seen, and the point it climbs from
    // This round's batch: how many it scores, whether they explore, the point they step from.
    size_t in_round = 0;
    bool explore = false;
    Choice from;
    std::shared_ptr<const model::Report> from_report;
  };
  // Runs the climbs side by side, a batch of each in every round, scored together: the named
  // baselines' climbs give the threads many analyses to share before they wait for the slowest
  // (a batch of 16 holds about 7). Each climb steps as it would alone, from draws of its own;
  // they share the budget (the earlier ones take a round's evaluations first) and a --time end,
  // and one with more evaluations (Layerwise) goes on alone once the others are done.
  void climb(std::vector<Climb>& climbs);
  void start_climbs(std::vector<Climb>& climbs);  // scores their starts, one batch
  // One round: a batch of each climb with evaluations left, within the budget; false when none had.
  bool climb_round(std::vector<Climb>& climbs);

  // An exploring draw. Groups hand their data over through DRAM and run one after another, so
  // the cost is a sum over groups: half the draws retile one group of the best point, keeping the
  // others (with seven groups, a whole retile rarely draws all seven well at once); the other
  // half retile everything (with two groups of which one costs most, that samples it twice as often).
  Choice draw(const Choice& structure, const Entry& best, Rng& rng) const;

  // A climb's step: one tiling gene, or now and then two at once — some improvements need two
  // genes to move together (the loop over the cores and the spatial choice it frees). Some steps
  // are aimed: a fused group's slowest ops spread wider, all of them at once where they tie.
  Choice step_from(const Choice& c, const model::Report* r, Rng& rng) const;

  // A structure's tiling by MCTS (mapper/mcts.h, `--mcts`), its batches scored like the climbs'.
  Entry mcts_search(const Choice& structure, int64_t budget);

  // REFERENCE.md §3's closed form for GEMM chains: one more baseline, outside the template, and
  // a seed of the search where the template has its tiles.
  void chain_solver();

  // Every point of the space, a batch at a time; the population keeps the best `top`.
  void everything();

  // --polish, after the search: from its best point, every option of one tiling decision at a
  // time (Space::tiling_options: the split over the cores, each outer factor, each op's spatial
  // choice and loop order — every order, where random draws take rotations only), the best one
  // kept, until a sweep over all decisions improves nothing or the budget ends. Where the climbs
  // sample a neighbourhood, this goes through it (docs/mapper.md).
  void polish();

  // --polish, then: each named baseline's best point. A baseline's share of the budget can end
  // on a poor local optimum (attention G2 / edge, seed 1: Uni-pipe left four of its six stages
  // on one vector lane, 0.23x of Layerwise, where 100,000 evaluations reach 1.91x).
  // A baseline may end faster than the best so far: it joins the population `best` is taken from.
  void polish_baselines();

  // Changes `at` one tiling decision at a time (Space::tiling_options), keeping the best option
  // of each, until a sweep over all decisions changes nothing (then it is a coordinate optimum:
  // true) or the budget ends. Beyond the budget so far: a tenth of --evals (at least 1,000) or two
  // sweeps of the start's neighbourhood, whichever is more (an op with three spatial ways on cloud
  // has ~700 spatial choices alone), and the time left. A change that keeps the cost but uses more
  // PEs or lanes is taken too: a Pipe costs its slowest stage, and where several stages are
  // equally slow no single change makes it faster (the moves are bounded: PEs only grow).
  std::pair<Entry, bool> sweep_tiling(Entry at);

  static int64_t hardware_used(const Entry& e);

  // Order × resource × tiling: a small population, children by mutation of tournament winners.
  void evolve();

  Candidate candidate(const Entry& e, const std::string& name) const;

  const arch::Arch& a_;
  const model::Workload& w_;
  const SearchOptions& o_;
  Space space_;
  TreeScorer scorer_;
  LoweringCheck lowering_{a_, w_, o_.lowering};  // only improvements are asked (a lowering costs a few analyses)
  Rng rng_;
  std::chrono::steady_clock::time_point start_;
  Outcome out_;
  std::vector<Entry> population_;
  std::vector<Entry> front_;
  std::vector<Baseline> named_;      // the named baselines that apply
  std::vector<Entry> named_best_;    // per named baseline: the best point of its structure seen
  // Per named baseline without a valid point yet: what its invalid candidates said (note_invalid).
  struct Unfitting {
    int64_t invalid = 0;
    double overflow = INFINITY;  // of the nearest: Scored::overflow
    std::string reason;
  };
  std::vector<Unfitting> named_unfitting_;
  // Counts an invalid analysed candidate against the baselines it follows that have no valid
  // point, keeping the reason of the one nearest to fitting: where a structure cannot fit at all
  // (whole rows of a 64 K sequence in L1), that says why, where "none found" alone would suggest
  // a larger budget.
  void note_invalid(const Entry& e);
  // Why the analysed candidates were invalid: per problem (its message, without the node it
  // names), how many said it first. Said when nothing valid is found and one problem is most of
  // them: "check capacities" alone misled where no tree of the template can hold (a tensor read
  // along different dims).
  std::map<std::string, int64_t> invalid_because_;
  std::string commonest_problem() const;
  std::optional<Candidate> extra_;  // a baseline from outside the template (the chain solver)
  // The best valid points counted, whatever phase found them (--top lists them; the population
  // keeps only what the search climbs from): up to --top, distinct trees (two choices can make
  // one, and --polish sweeps many such), by cost then the other measure (Searcher::before).
  std::vector<Entry> kept_;
  std::vector<TreeKey> kept_trees_;  // their trees' keys
  void keep(const Entry& e);
  bool before(const model::Report& x, double x_cost, const model::Report& y, double y_cost) const;
  // With --top K above 1, the cost under which a point would join the K kept (INFINITY while
  // fewer are kept): a floor above it rules a candidate out, not the best's.
  double kth_cost() const;
  BatchScorer batches_{space_, scorer_, o_.jobs};
  double best_ = INFINITY;
  int64_t budget_ = o_.evaluations;  // the evaluations the current phase may reach (--polish adds some)
  TimeBudget time_;                  // with --time: when each phase ends
  double phase_end_ = INFINITY;      // when the current phase ends, in seconds (TimeBudget)
  int sweeps_left_ = 0;              // --polish sweeps still to run
};

}  // namespace dfx::mapper
