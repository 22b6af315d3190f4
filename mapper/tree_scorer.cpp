#include "mapper/tree_scorer.h"

#include <cmath>
#include <limits>

#include "model/analyze.h"
#include "model/cycles_floor.h"
#include "model/footprint_floor.h"
#include "model/report_io.h"

namespace dfx::mapper {

TreeScorer::TreeScorer(const arch::Arch& a, const model::Workload& w, Objective objective,
                       const std::vector<std::pair<std::string, double>>& max_footprint, model::StepReplay replay,
                       model::HeldAs held)
    : a_(a), w_(w), objective_(objective), replay_(replay), held_(held) {
  for (const auto& [level, bytes] : max_footprint) {
    const int l = a.level_index(level);
    if (l < 0) {
      std::vector<std::string> names;
      for (const auto& lv : a.levels) names.push_back(lv.name);
      throw InputError(SourceLoc{"--max-footprint", 0, 0, ""}, "unknown level '" + level + "'" + names_hint(level, names, "levels"));
    }
    // The outermost level holds the workload's tensors whole, whatever the tree: its capacity
    // (checked by the analysis) is the arch's, not a choice between dataflows.
    if (l == 0) {
      std::string inner;
      for (size_t i = 1; i < a.levels.size(); ++i) inner += (i == 1 ? "" : ", ") + a.levels[i].name;
      throw InputError(SourceLoc{"--max-footprint", 0, 0, ""}, "'" + level + "' holds the workload's tensors whole; bound it with --set levels." + level +
                                                                   ".capacity=SIZE, or limit one of " + inner);
    }
    for (const auto& [seen, earlier] : limits_)
      if (seen == l) throw InputError(SourceLoc{"--max-footprint", 0, 0, ""}, "'" + level + "' is limited twice; give one limit per level");
    limits_.push_back({l, bytes});
  }
  least_ = std::make_unique<std::atomic<int64_t>[]>(limits_.size());
  for (size_t i = 0; i < limits_.size(); ++i) least_[i] = std::numeric_limits<int64_t>::max();
  for (size_t o = 0; o < w.ops.size(); ++o) windows_ = windows_ || !model::computed_in_full(w, o);
  auto r = std::make_shared<model::Report>();
  r->valid = false;
  r->reason = "a floor on its cycles (its compute or its instructions alone, or its compute and its pipeline's fill) is above "
              "what it would be compared with";
  ruled_out_report_ = std::move(r);
}

Scored TreeScorer::score(const model::Dataflow& f, model::CyclesBar give_up) const {
  Scored s;
  try {
    model::check_dataflow(f, a_, w_);
    if (auto over = cannot_fit(f, s.overflow)) {
      s.report = std::move(over);
      return s;
    }
    model::BarredReport barred = model::analyze_below(a_, w_, f, give_up, &phases_, replay_, held_, &shapes_);
    if (!barred.report) {
      s = ruled_out();
      s.at_least = barred.at_least;
      return s;
    }
    s.analysed = true;
    s.report = std::make_shared<const model::Report>(std::move(*barred.report));
    if (s.report->valid && !limits_.empty()) {
      std::vector<int64_t> peaks;
      for (const auto& level : s.report->levels) peaks.push_back(level.peak_bytes);
      note_needs(peaks);
    }
    s.valid = s.report->valid && within_limits(*s.report);
    if (!s.valid) s.overflow = fullest(*s.report);
  } catch (const InputError&) {
    s.report = std::make_shared<const model::Report>();  // the template drew a tree the loader rejects
  }
  if (s.valid) s.cost = cost_of(*s.report, objective_);
  return s;
}

double TreeScorer::visited_floor(const model::Dataflow& f) const {
  const bool timed = a_.instruction_timed();
  if (!timed && !windows_) return 0;
  // Not checked first (score() checks): the template draws trees the loader rejects only for
  // where their loops sit, not for their structure, and one would not be used either way.
  try {
    const auto shape = shapes_.shape(a_, w_, f);
    return timed ? model::instruction_floor(a_, w_, f, *shape) : model::visited_compute_floor(a_, w_, f, *shape);
  } catch (const InputError&) {
    return 0;  // no placement: score() says why
  }
}

Scored TreeScorer::ruled_out() const {
  Scored s;
  s.report = ruled_out_report_;
  s.ruled_out = true;
  return s;
}

double TreeScorer::fullest(const model::Report& r) const {
  if (r.levels.empty()) return INFINITY;
  double most = 0;
  for (const model::LevelReport& l : r.levels)
    if (l.capacity_bytes > 0) most = std::max(most, static_cast<double>(l.peak_bytes) / l.capacity_bytes);
  for (const auto& [level, bytes] : limits_)
    most = std::max(most, static_cast<double>(r.levels[static_cast<size_t>(level)].peak_bytes) / bytes);
  return most;
}

bool TreeScorer::within_limits(const model::Report& r) const {
  for (const auto& [level, bytes] : limits_)
    if (static_cast<double>(r.levels[static_cast<size_t>(level)].peak_bytes) > bytes) return false;
  return true;
}

// A report saying why the tree cannot fit, when a lower bound on some level's footprint
// (model::footprint_floor, ~1/20 of an analysis) already exceeds its capacity or the user's
// limit; null otherwise. Sound: the floor never exceeds the analysis's peak. Only with
// --max-footprint: without it few candidates overflow (G1 / edge: 49 of 7,436 analyses, for
// 7% more instructions), with L1=1MiB 15% of the trees are dropped (3% fewer instructions).
std::shared_ptr<const model::Report> TreeScorer::cannot_fit(const model::Dataflow& f, double& overflow) const {
  if (limits_.empty()) return nullptr;
  const std::vector<int64_t> floor = model::footprint_floor(a_, w_, f);
  // The bound it overflows most, as fullest() measures a report: how near a tree is to fitting
  // is taken against the tighter of a level's capacity and its limit (a floor over the capacity
  // was said against the capacity even where the limit was 15 times smaller).
  size_t worst = floor.size();
  double worst_ratio = 1;
  std::string worst_bound;
  auto consider = [&](size_t l, double bytes, const std::string& bound) {
    const double ratio = static_cast<double>(floor[l]) / bytes;
    if (ratio > worst_ratio) worst = l, worst_ratio = ratio, worst_bound = bound;
  };
  for (size_t l = 0; l < floor.size(); ++l)
    if (!a_.levels[l].unlimited()) consider(l, a_.levels[l].capacity_bytes, "its capacity, " + model::human_bytes(a_.levels[l].capacity_bytes));
  for (const auto& [level, bytes] : limits_)
    consider(static_cast<size_t>(level), bytes,
             "--max-footprint " + a_.levels[static_cast<size_t>(level)].name + "=" + model::human_bytes(bytes));
  if (worst == floor.size()) return nullptr;
  note_needs(floor);  // what it needs is known no closer: it is not analysed
  overflow = worst_ratio;
  auto r = std::make_shared<model::Report>();
  r->valid = false;
  r->reason = "level '" + a_.levels[worst].name + "' needs at least " + model::human_bytes(static_cast<double>(floor[worst])) +
              " per instance, more than " + worst_bound;
  return r;
}

void TreeScorer::note_needs(const std::vector<int64_t>& bytes_per_level) const {
  for (size_t i = 0; i < limits_.size(); ++i) {
    const int64_t bytes = bytes_per_level[static_cast<size_t>(limits_[i].first)];
    for (int64_t least = least_[i].load(std::memory_order_relaxed); bytes < least;)
      if (least_[i].compare_exchange_weak(least, bytes, std::memory_order_relaxed)) break;
  }
}

std::string TreeScorer::over_limits(const model::Report& r) const {
  std::string out;
  for (const auto& [level, bytes] : limits_) {
    const auto& lv = r.levels[static_cast<size_t>(level)];
    if (static_cast<double>(lv.peak_bytes) <= bytes) continue;
    out += std::string(out.empty() ? "" : "; ") + "level '" + lv.name + "' holds " + model::human_bytes(static_cast<double>(lv.peak_bytes)) +
           " per instance, over --max-footprint " + lv.name + "=" + model::human_bytes(bytes);
  }
  return out;
}

std::string TreeScorer::least_needed() const {
  std::string out;
  for (size_t i = 0; i < limits_.size(); ++i) {
    const int64_t least = least_[i].load();
    if (least == std::numeric_limits<int64_t>::max() || static_cast<double>(least) <= limits_[i].second) continue;  // not what bound
    out += (out.empty() ? "" : ", ") + a_.levels[static_cast<size_t>(limits_[i].first)].name + ": " + std::to_string(least) + " B";
  }
  return out;
}

}  // namespace dfx::mapper
