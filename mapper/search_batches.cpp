// A search's batches (mapper/searcher.h): drawn and scored on the threads, counted in order.
#include "mapper/searcher.h"

#include <algorithm>

namespace dfx::mapper {

// Scores a batch on the threads (BatchScorer): position i is `fixed[i]`, or else `draw`n. Each
// drawn position has its own generator, seeded from the search's: a draw does not depend on
// which thread makes it, or in which order. Bars: see bar_for().
std::vector<Searcher::Entry> Searcher::analyse(size_t n, const std::vector<Choice>& fixed, const DrawAt& draw,
                                               const std::function<double(size_t)>& bar_at) {
  const uint64_t seed = draw ? rng_() : 0;
  auto choose = [&](size_t i) {
    if (!draw) return fixed[i];
    Rng slot_rng(seed + kSlotSeedStride * (i + 1));
    return draw(i, slot_rng);
  };
  std::vector<uint64_t> follows(n, 0);  // per position: the named baselines whose structure it follows
  auto bar_of = [&](size_t i, const Choice& c) {
    for (size_t b = 0; b < named_.size(); ++b)
      if (space_.follows(named_[b].structure, c)) follows[i] |= uint64_t{1} << b;
    return bar_for(follows[i], bar_at(i));
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
    out[i].overflow = s.overflow;
  }
  return out;
}

double Searcher::bar_for(uint64_t follows, double bar) const {
  if (!o_.rule_out || o_.objective != Objective::Cycles || o_.pareto) return INFINITY;
  if (o_.top > 1) bar = std::max(bar, kth_cost());
  for (size_t b = 0; b < named_.size() && bar < INFINITY; ++b)
    if (named_best_[b].cost > bar && (follows >> b & 1)) bar = named_best_[b].cost;
  return bar;
}

std::vector<Searcher::Entry> Searcher::count(std::vector<Entry> done) {
  for (Entry& e : done) {
    ++out_.evaluations;
    out_.ruled_out += e.ruled_out;
    if (!e.valid) note_invalid(e);
    // Ties too: a point as good as the best so far may end up first.
    if (o_.lowering && e.valid && e.cost <= best_ && !lowering_.lowers(space_.build(e.choice, "candidate"))) {
      e.valid = false, e.cost = INFINITY;
      ++out_.not_lowered;
    }
    if (!e.valid) continue;
    ++out_.valid;
    if (o_.pareto) add_to_front(e);
    keep(e);
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

void Searcher::note_invalid(const Entry& e) {
  if (e.ruled_out || !e.report) return;
  if (!e.report->problems.empty()) ++invalid_because_[e.report->problems.front().message];
  for (size_t b = 0; b < named_.size(); ++b) {
    if (!(e.follows >> b & 1) || named_best_[b].valid) continue;
    Unfitting& u = named_unfitting_[b];
    ++u.invalid;
    if (e.overflow < u.overflow) {
      u.overflow = e.overflow;
      // A valid report the scorer refused broke a --max-footprint limit.
      u.reason = e.report->valid ? scorer_.over_limits(*e.report) : e.report->reason;
    }
  }
}

std::string Searcher::commonest_problem() const {
  int64_t all = 0;
  auto most = invalid_because_.end();
  for (auto it = invalid_because_.begin(); it != invalid_because_.end(); ++it) {
    all += it->second;
    if (most == invalid_because_.end() || it->second > most->second) most = it;
  }
  // Said where one problem is most of them: problems that name sizes differ from tree to tree.
  if (most == invalid_because_.end() || 2 * most->second <= all) return "";
  return most->first + " (said of " + std::to_string(most->second) + " of the " + std::to_string(all) + " invalid candidates)";
}

bool Searcher::before(const model::Report& x, double x_cost, const model::Report& y, double y_cost) const {
  if (x_cost != y_cost) return x_cost < y_cost;
  return o_.objective == Objective::Cycles ? x.energy_pj < y.energy_pj : x.cycles < y.cycles;
}

void Searcher::keep(const Entry& e) {
  const auto most = static_cast<size_t>(o_.top);
  if (kept_.size() >= most && !before(*e.report, e.cost, *kept_.back().report, kept_.back().cost)) return;
  TreeKey key = tree_key(e.fixed_yaml.empty() ? space_.build(e.choice, "kept")
                                              : model::load_dataflow_from_string(e.fixed_yaml, "kept", a_, w_));
  const auto same = std::find(kept_trees_.begin(), kept_trees_.end(), key);
  if (same != kept_trees_.end()) {  // the tree is kept already: as the better of the two
    const auto i = static_cast<size_t>(same - kept_trees_.begin());
    if (!before(*e.report, e.cost, *kept_[i].report, kept_[i].cost)) return;
    kept_.erase(kept_.begin() + static_cast<std::ptrdiff_t>(i)), kept_trees_.erase(same);
  }
  const auto at = static_cast<size_t>(
      std::find_if(kept_.begin(), kept_.end(), [&](const Entry& k) { return before(*e.report, e.cost, *k.report, k.cost); }) - kept_.begin());
  kept_.insert(kept_.begin() + static_cast<std::ptrdiff_t>(at), e);
  kept_trees_.insert(kept_trees_.begin() + static_cast<std::ptrdiff_t>(at), std::move(key));
  if (kept_.size() > most) kept_.pop_back(), kept_trees_.pop_back();
}

double Searcher::kth_cost() const {
  const auto k = static_cast<size_t>(o_.top);
  return kept_.size() < k ? INFINITY : kept_[k - 1].cost;
}

void Searcher::add_to_front(const Entry& e) {
  auto dominates = [](const Entry& x, const Entry& y) {
    return x.report->cycles <= y.report->cycles && x.report->energy_pj <= y.report->energy_pj;
  };
  for (const Entry& f : front_)
    if (dominates(f, e)) return;
  front_.erase(std::remove_if(front_.begin(), front_.end(), [&](const Entry& f) { return dominates(e, f); }), front_.end());
  front_.push_back(e);
}

}  // namespace dfx::mapper
