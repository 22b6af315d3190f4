#include "mapper/search.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <memory>
#include <optional>
#include <random>

#include "mapper/batch_scorer.h"
#include "mapper/chain_solver.h"
#include "mapper/lowering_check.h"
#include "mapper/mcts.h"
#include "mapper/space.h"
#include "mapper/time_budget.h"
#include "mapper/tree_scorer.h"
#include "model/analyze.h"
#include "model/dataflow.h"

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

class Searcher {
 public:
  Searcher(const arch::Arch& a, const model::Workload& w, const SearchOptions& o)
      : a_(a), w_(w), o_(o), space_(a, w, o.prims, o.lowering.has_value()), scorer_(a, w, o.objective, o.max_footprint, o.replay_steps ? model::StepReplay::Worthwhile : model::StepReplay::Off), rng_(o.seed),
        start_(std::chrono::steady_clock::now()) {
    if (!o.groups.empty()) space_.fix_groups(o.groups);
    if (!o.fix.empty()) space_.pin(o.fix);
  }

  Outcome run() {
    if (o_.baselines) named_ = space_.baselines();
    named_best_.assign(named_.size(), Entry{});
    // Baselines share a third of the budget, the open search gets the rest; an exhaustive search
    // covers them anyway, so they only get a glance then.
    const int64_t per_baseline = o_.exhaustive ? 32 : std::max<int64_t>(1, o_.evaluations / 3 / std::max<int64_t>(1, static_cast<int64_t>(named_.size())));
    // Layerwise is the reference every speed-up divides by: it gets a double part. With --time
    // the phases share it as they share the evaluations (mapper/time_budget.h): a large --evals
    // would otherwise give the first baseline the whole time, and the open search none.
    std::vector<int> parts;
    for (const Baseline& b : named_) parts.push_back(b.name == "Layerwise" ? 2 : 1);
    const int sweeps = o_.exhaustive ? 0 : (o_.polish ? 1 : 0) + (o_.polish_baselines ? static_cast<int>(named_.size()) : 0);
    time_ = TimeBudget(o_.seconds, parts, sweeps / static_cast<double>(kPolishShare));
    for (size_t b = 0; b < named_.size(); ++b) {
      phase_end_ = time_.baseline_end(b);
      Entry best = tile_search(named_[b].structure, parts[b] * per_baseline);
      if (best.valid) population_.push_back(best);
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
    for (size_t b = 0; b < named_.size(); ++b)
      if (named_best_[b].valid) out_.baselines.push_back(candidate(named_best_[b], named_[b].name));
    out_.baselines.insert(out_.baselines.end(), solved.begin(), solved.end());
    std::sort(population_.begin(), population_.end(), [](const Entry& x, const Entry& y) { return x.cost < y.cost; });
    std::vector<const Choice*> taken;
    for (const Entry& e : population_) {
      if (!e.valid || static_cast<int>(taken.size()) >= o_.top) break;
      bool dup = false;
      for (const Choice* t : taken) dup |= *t == e.choice;
      if (dup) continue;
      taken.push_back(&e.choice);
      out_.best.push_back(candidate(e, "best" + std::to_string(taken.size())));
    }
    if (extra_ && (out_.best.size() < static_cast<size_t>(o_.top) || extra_->cost < out_.best.back().cost)) {
      Candidate c = *extra_;
      auto at = std::find_if(out_.best.begin(), out_.best.end(), [&](const Candidate& b) { return c.cost < b.cost; });
      out_.best.insert(at, c);
      if (out_.best.size() > static_cast<size_t>(o_.top)) out_.best.pop_back();
      for (size_t i = 0; i < out_.best.size(); ++i) out_.best[i].name = "best" + std::to_string(i + 1);
    }
    if (out_.best.empty() && out_.not_lowered > 0)
      throw InputError(SourceLoc{}, "no dataflow found in " + std::to_string(out_.evaluations) + " evaluations that the lowering (--emit) can express; it refused " +
                                        std::to_string(out_.not_lowered) + " valid ones:" + lowering_.refusals());
    if (out_.best.empty())
      throw InputError(SourceLoc{}, "no valid dataflow found in " + std::to_string(out_.evaluations) +
                                        " evaluations: raise --evals, or check capacities and PE counts");
    std::sort(front_.begin(), front_.end(), [](const Entry& x, const Entry& y) { return x.report->cycles < y.report->cycles; });
    for (size_t i = 0; i < front_.size(); ++i) out_.pareto.push_back(candidate(front_[i], "pareto" + std::to_string(i + 1)));
    out_.seconds = elapsed();
    return out_;
  }

 private:
  struct Entry {
    Choice choice;
    std::string fixed_yaml;  // a tree from outside the template (the chain solver)
    std::shared_ptr<const model::Report> report;
    double cost = INFINITY;
    bool valid = false;
    bool ruled_out = false;  // not analysed: it could not have been used (TreeScorer::score())
    uint64_t follows = 0;    // the named baselines (a handful) whose structure it follows, a bit each
  };

  const arch::Arch& a_;
  const model::Workload& w_;
  const SearchOptions& o_;
  Space space_;
  TreeScorer scorer_;
  LoweringCheck lowering_{a_, w_, o_.lowering};  // only improvements are asked (a lowering costs a few analyses)
  std::mt19937_64 rng_;
  std::chrono::steady_clock::time_point start_;
  Outcome out_;
  std::vector<Entry> population_;
  std::vector<Entry> front_;
  std::vector<Baseline> named_;      // the named baselines that apply
  std::vector<Entry> named_best_;    // per named baseline: the best point of its structure seen
  std::optional<Candidate> extra_;  // a baseline from outside the template (the chain solver)
  BatchScorer batches_{space_, scorer_, o_.jobs};
  double best_ = INFINITY;
  int64_t budget_ = o_.evaluations;  // the evaluations the current phase may reach (--polish adds some)
  TimeBudget time_;                  // with --time: when each phase ends
  double phase_end_ = INFINITY;      // when the current phase ends, in seconds (TimeBudget)
  int sweeps_left_ = 0;              // --polish sweeps still to run
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

  // Draws a candidate of a batch from its own generator (Searcher::evaluate_drawn).
  using Draw = std::function<Choice(std::mt19937_64&)>;

  // Scores a batch on the threads (BatchScorer): position i is `fixed[i]`, or else `draw`n. Each
  // drawn position has its own generator, seeded from the search's: a draw does not depend on
  // which thread makes it, or in which order. `bar`: see bar_for().
  std::vector<Entry> analyse(size_t n, const std::vector<Choice>& fixed, const Draw& draw, double bar) {
    const uint64_t seed = draw ? rng_() : 0;
    auto choose = [&](size_t i) {
      if (!draw) return fixed[i];
      std::mt19937_64 slot_rng(seed + kSlotSeedStride * (i + 1));
      return draw(slot_rng);
    };
    std::vector<uint64_t> follows(n, 0);  // per position: the named baselines whose structure it follows
    auto bar_of = [&](size_t i, const Choice& c) {
      for (size_t b = 0; b < named_.size(); ++b)
        if (space_.follows(named_[b].structure, c)) follows[i] |= uint64_t{1} << b;
      return bar_for(follows[i], bar);
    };
    ScoredBatch batch = batches_.score(n, choose, bar_of);
    out_.analyses += batch.analyses;
    std::vector<Entry> out(n);
    for (size_t i = 0; i < n; ++i) {
      const Scored& s = batch.scored[i];
      out[i].choice = std::move(batch.chosen[i]);
      out[i].follows = follows[i];
      out[i].report = s.report;
      out[i].valid = s.valid;
      out[i].cost = s.valid ? s.cost : INFINITY;
      out[i].ruled_out = s.ruled_out;
    }
    return out;
  }

  // The cost below which a candidate's result would be used, given `bar`, the caller's: also
  // below the best of a named baseline whose structure it follows (`follows`, a mask). Infinite
  // (analyse everything) unless the objective is cycles, for which model::cycles_floor bounds
  // the cost, and no front is kept (any point may join it).
  double bar_for(uint64_t follows, double bar) const {
    if (!o_.rule_out || o_.objective != Objective::Cycles || o_.pareto) return INFINITY;
    for (size_t b = 0; b < named_.size() && bar < INFINITY; ++b)
      if (named_best_[b].cost > bar && (follows >> b & 1)) bar = named_best_[b].cost;
    return bar;
  }

  // Counts a batch's results in order, so the outcome never depends on the thread count. `bar`:
  // results at or above it are of no use to the caller (it only looks for better ones).
  std::vector<Entry> evaluate(const std::vector<Choice>& batch, double bar = INFINITY) {
    return count(analyse(batch.size(), batch, nullptr, bar));
  }
  // The same for `n` candidates drawn by `draw`, each from a generator of its own.
  std::vector<Entry> evaluate_drawn(size_t n, const Draw& draw, double bar = INFINITY) {
    return count(analyse(n, {}, draw, bar));
  }

  std::vector<Entry> count(std::vector<Entry> done) {
    for (Entry& e : done) {
      ++out_.evaluations;
      out_.ruled_out += e.ruled_out;
      // Ties too: a point as good as the best so far may end up first.
      if (o_.lowering && e.valid && e.cost <= best_ && !lowering_.lowers(space_.build(e.choice, "candidate"))) {
        e.valid = false, e.cost = INFINITY;
        ++out_.not_lowered;
      }
      if (!e.valid) continue;
      ++out_.valid;
      if (o_.pareto) add_to_front(e);
      for (size_t b = 0; b < named_.size(); ++b)
        if (e.cost < named_best_[b].cost && (e.follows >> b & 1)) named_best_[b] = e;
      if (e.cost < best_) {
        best_ = e.cost;
        out_.convergence.push_back({out_.evaluations, best_});
      }
    }
    if (o_.on_progress) o_.on_progress({out_.evaluations, out_.analyses, best_, elapsed()});
    return done;
  }

  // The cycles/energy front: a new point enters unless one there is at least as good on both.
  void add_to_front(const Entry& e) {
    auto dominates = [](const Entry& x, const Entry& y) {
      return x.report->cycles <= y.report->cycles && x.report->energy_pj <= y.report->energy_pj;
    };
    for (const Entry& f : front_)
      if (dominates(f, e)) return;
    front_.erase(std::remove_if(front_.begin(), front_.end(), [&](const Entry& f) { return dominates(e, f); }), front_.end());
    front_.push_back(e);
  }

  size_t batch_size(int64_t budget_left) const {
    return static_cast<size_t>(std::max<int64_t>(1, std::min<int64_t>(kBatch, budget_left)));
  }

  // Tiling only: random retiles for the first quarter of the budget, then hill-climbing by
  // mutations (one group's genes at a time), a batch at a time. A climb that has not improved
  // for a while restarts from a fresh random batch's best (iterated local search): one climb
  // alone ends on whichever local optimum its start leads to, and seeds then disagree. The climb
  // also moves to a point of equal cost: a Pipe's cost is its slowest stage, and where several
  // stages are equally slow no single step improves it (Uni-pipe on attention G2 / edge stopped
  // at 3.28 M cycles with four stages of 262 K each per batch, where 524 K is reachable).
  Entry tile_search(const Choice& structure, int64_t budget) {
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
  Choice draw(const Choice& structure, const Entry& best, std::mt19937_64& rng) const {
    if (best.valid && space_.groups(structure) > 1 && std::bernoulli_distribution(0.5)(rng)) return space_.retile_group(best.choice, rng);
    return space_.retile(structure, rng);
  }

  // A climb's step: one tiling gene, or now and then two at once — some improvements need two
  // genes to move together (the loop over the cores and the spatial choice it frees). Some steps
  // are aimed: a fused group's slowest ops spread wider, all of them at once where they tie.
  Choice step_from(const Choice& c, const model::Report* r, std::mt19937_64& rng) const {
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

  Entry mcts_search(const Choice& structure, int64_t budget) {
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

  // REFERENCE.md §3's closed form for GEMM chains: one more baseline, outside the template, and
  // a seed of the search where the template has its tiles.
  void chain_solver() {
    auto solved = solve_gemm_chain(a_, w_);
    const bool seq_allowed = o_.prims.empty() || std::find(o_.prims.begin(), o_.prims.end(), model::Prim::Seq) != o_.prims.end();
    // Its tree fuses the whole chain: not a candidate when the user fixed another grouping.
    bool one_group = true;
    for (const auto& g : o_.groups) one_group = one_group && g.size() == w_.ops.size();
    if (!solved || !seq_allowed || !one_group || space_.pinned() || out_of_budget()) return;
    // Its tiles as a point of the template (two GEMMs) seed the search.
    if (!solved->group_tile.empty())
      if (auto seed = space_.fused_at(model::Prim::Seq, solved->core_dim, solved->group_tile, solved->own_trips)) {
        Entry e = evaluate({*seed}).front();
        if (e.valid) population_.push_back(std::move(e));
      }
    if (!o_.baselines || out_of_budget()) return;
    ++out_.evaluations;
    ++out_.analyses;
    try {
      model::Dataflow f = model::load_dataflow_from_string(solved->flow_yaml, "chain_solver", a_, w_);
      model::Report r = model::analyze(a_, w_, f, nullptr, o_.replay_steps ? model::StepReplay::Worthwhile : model::StepReplay::Off);
      if (!r.valid || !scorer_.within_limits(r)) return;
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

  // Every point of the space, a batch at a time; the population keeps the best `top`.
  void everything() {
    int64_t size = 0;
    space_.enumerate([&](const Choice&) { return ++size <= o_.evaluations; });
    const int64_t left = std::max<int64_t>(0, o_.evaluations - out_.evaluations);
    if (size > left)
      throw InputError(SourceLoc{"--exhaustive", 0, 0, ""},
                       (size > o_.evaluations ? "the space has more than " + std::to_string(o_.evaluations) + " points"
                                              : "the space has " + std::to_string(size) + " points") +
                           ", and " + std::to_string(left) + " of the " + std::to_string(o_.evaluations) +
                           " evaluations are left after the baselines: raise --evals or drop --exhaustive");
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

  // --polish, after the search: from its best point, every option of one tiling decision at a
  // time (Space::tiling_options: the split over the cores, each outer factor, each op's spatial
  // choice and loop order — every order, where random draws take rotations only), the best one
  // kept, until a sweep over all decisions improves nothing or the budget ends. Where the climbs
  // sample a neighbourhood, this goes through it (docs/mapper.md).
  void polish() {
    auto best = std::min_element(population_.begin(), population_.end(), [](const Entry& x, const Entry& y) { return x.cost < y.cost; });
    if (best == population_.end() || !best->valid) return;
    auto [at, optimum] = sweep_tiling(*best);
    out_.polished = optimum;
    if (at.cost < best->cost) population_.push_back(std::move(at));
  }

  // --polish, then: each named baseline's best point. A baseline's share of the budget can end
  // on a poor local optimum (attention G2 / edge, seed 1: Uni-pipe left four of its six stages
  // on one vector lane, 0.23x of Layerwise, where 100,000 evaluations reach 1.91x).
  // A baseline may end faster than the best so far: it joins the population `best` is taken from.
  void polish_baselines() {
    out_.baselines_polished = true;
    for (size_t b = 0; b < named_.size(); ++b)  // evaluate() keeps what a sweep finds in named_best_
      if (named_best_[b].valid) out_.baselines_polished &= sweep_tiling(named_best_[b]).second;
    for (const Entry& e : named_best_)
      if (e.valid) population_.push_back(e);
  }

  // Changes `at` one tiling decision at a time (Space::tiling_options), keeping the best option
  // of each, until a sweep over all decisions changes nothing (then it is a coordinate optimum:
  // true) or the budget ends. Beyond the budget so far: a tenth of --evals (at least 1,000) or two
  // sweeps of the start's neighbourhood, whichever is more (an op with three spatial ways on cloud
  // has ~700 spatial choices alone), and the time left. A change that keeps the cost but uses more
  // PEs or lanes is taken too: a Pipe costs its slowest stage, and where several stages are
  // equally slow no single change makes it faster (the moves are bounded: PEs only grow).
  std::pair<Entry, bool> sweep_tiling(Entry at) {
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

  static int64_t hardware_used(const Entry& e) {
    return e.report ? e.report->matrix_pes_used + e.report->vector_lanes_used : 0;
  }

  // Order × resource × tiling: a small population, children by mutation of tournament winners.
  void evolve() {
    const size_t size = 24;
    while (population_.size() < size && !out_of_budget()) {
      const size_t n = std::min(batch_size(budget_ - out_.evaluations), size - population_.size());
      for (Entry& e : evaluate_drawn(n, [&](std::mt19937_64& rng) { return space_.random(rng); })) population_.push_back(std::move(e));
    }
    auto pick = [&](std::mt19937_64& rng) -> const Entry& {
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
      if (std::bernoulli_distribution(kRestructureRate)(rng_)) {
        // A new structure is judged after a short tiling search of its own: with one random
        // tiling it would lose to every tuned member and never survive.
        const Choice child = space_.restructure(pick(rng_).choice, rng_);
        replace_worst(tile_search(child, kRestructureBudget));
        continue;
      }
      // Genetic: a third of the children cross two winners (then mutate), the rest mutate one.
      auto breed = [&](std::mt19937_64& rng) {
        Choice child = pick(rng).choice;
        if (std::bernoulli_distribution(1.0 / 3)(rng)) child = space_.crossover(child, pick(rng).choice, rng);
        return space_.mutate(child, rng, false);
      };
      for (Entry& child : evaluate_drawn(batch_size(budget_ - out_.evaluations), breed, worst()->cost)) replace_worst(std::move(child));
    }
  }

  Candidate candidate(const Entry& e, const std::string& name) const {
    if (!e.fixed_yaml.empty()) return Candidate{name, e.fixed_yaml, *e.report, e.cost, {}};
    return Candidate{name, space_.flow_yaml(e.choice, name), *e.report, e.cost, e.choice};
  }
};

}  // namespace

Outcome explore(const arch::Arch& a, const model::Workload& w, const SearchOptions& options) {
  return Searcher(a, w, options).run();
}

}  // namespace dfx::mapper
