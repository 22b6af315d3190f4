#include "mapper/search.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>

#include "mapper/space.h"
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
      : a_(a), w_(w), o_(o), space_(a, w), rng_(o.seed), start_(std::chrono::steady_clock::now()) {}

  Outcome run() {
    const std::vector<Baseline> named = space_.baselines();
    // Baselines share a third of the budget; the open search gets the rest.
    const int64_t per_baseline = std::max<int64_t>(1, o_.evaluations / 3 / static_cast<int64_t>(named.size()));
    for (const Baseline& b : named) {
      Entry best = tile_search(b.structure, per_baseline);
      if (best.valid) {
        out_.baselines.push_back(candidate(best, b.name));
        population_.push_back(best);
      }
    }
    evolve();
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
    if (out_.best.empty())
      throw InputError(SourceLoc{}, "no valid dataflow found in " + std::to_string(out_.evaluations) +
                                        " evaluations: raise --evals, or check capacities and PE counts");
    out_.seconds = elapsed();
    return out_;
  }

 private:
  struct Entry {
    Choice choice;
    model::Report report;
    double cost = INFINITY;
    bool valid = false;
  };

  const arch::Arch& a_;
  const model::Workload& w_;
  const SearchOptions& o_;
  Space space_;
  std::mt19937_64 rng_;
  std::chrono::steady_clock::time_point start_;
  Outcome out_;
  std::vector<Entry> population_;
  double best_ = INFINITY;

  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

  bool out_of_budget() const {
    if (out_.evaluations >= o_.evaluations) return true;
    if (o_.seconds > 0 && elapsed() >= o_.seconds) return true;
    return o_.stop && o_.stop->load();
  }

  Entry evaluate(const Choice& c) {
    Entry e{c, {}, INFINITY, false};
    ++out_.evaluations;
    try {
      model::Dataflow f = model::load_dataflow_from_string(space_.flow_yaml(c, "candidate"), "candidate", a_, w_);
      e.report = model::analyze(a_, w_, f);
      e.valid = e.report.valid;
    } catch (const InputError&) {
      e.valid = false;  // the template drew a tree the loader rejects: just not a candidate
    }
    if (e.valid) {
      ++out_.valid;
      e.cost = cost_of(e.report, o_.objective);
      if (e.cost < best_) {
        best_ = e.cost;
        out_.convergence.push_back({out_.evaluations, best_});
      }
    }
    if (o_.on_progress && out_.evaluations % 64 == 0) o_.on_progress({out_.evaluations, best_, elapsed()});
    return e;
  }

  // Tiling only: random retiles, then mutations of the best.
  Entry tile_search(const Choice& structure, int64_t budget) {
    Entry best = evaluate(space_.retile(structure, rng_));
    for (int64_t i = 1; i < budget && !out_of_budget(); ++i) {
      Entry next = evaluate(i % 2 ? space_.retile(structure, rng_) : space_.mutate(best.choice, rng_, false));
      if (next.cost < best.cost) best = next;
    }
    return best;
  }

  // Order × resource × tiling: a small population, children by mutation of tournament winners.
  void evolve() {
    const size_t size = 24;
    while (population_.size() < size && !out_of_budget()) population_.push_back(evaluate(space_.random(rng_)));
    while (!out_of_budget()) {
      auto pick = [&]() -> const Entry& {
        const Entry& x = population_[std::uniform_int_distribution<size_t>(0, population_.size() - 1)(rng_)];
        const Entry& y = population_[std::uniform_int_distribution<size_t>(0, population_.size() - 1)(rng_)];
        return x.cost <= y.cost ? x : y;
      };
      Entry child = evaluate(space_.mutate(pick().choice, rng_, std::bernoulli_distribution(0.2)(rng_)));
      auto worst = std::max_element(population_.begin(), population_.end(),
                                    [](const Entry& x, const Entry& y) { return x.cost < y.cost; });
      if (child.cost < worst->cost) *worst = child;
    }
  }

  Candidate candidate(const Entry& e, const std::string& name) const {
    return Candidate{name, space_.flow_yaml(e.choice, name), e.report, e.cost};
  }
};

}  // namespace

Outcome explore(const arch::Arch& a, const model::Workload& w, const SearchOptions& options) {
  return Searcher(a, w, options).run();
}

}  // namespace dfx::mapper
