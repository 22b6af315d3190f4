#pragma once
// Per-search memo of analyses. The analysis is a pure function of the tree, and the search often
// proposes a tree it has already analysed (a climb steps back, a mutation redraws the same
// factor, two choices differ only in genes the tree ignores): those cost a look-up instead.
#include <cstdint>
#include <cmath>
#include <memory>
#include <unordered_map>
#include <vector>

#include "model/dataflow.h"
#include "model/phase_cache.h"
#include "model/report.h"

namespace dfx::mapper {

// Everything in a tree the analysis reads (not the name, not source locations, which built trees
// do not have), as integers: equal keys mean equal trees, so equal reports.
using TreeKey = model::PhaseKey;
TreeKey tree_key(const model::Dataflow& f);
struct TreeKeyHash {
  size_t operator()(const TreeKey& k) const;
};

// What the search keeps of one analysis: the report (shared: entries copy it often) and whether it
// is a valid candidate under the search's limits, with its cost.
struct Scored {
  std::shared_ptr<const model::Report> report;
  bool valid = false;
  double cost = 0;
  bool analysed = false;  // false when rejected before the analysis (it cannot fit, or cannot win)
  bool ruled_out = false;  // its cycles floor was no better than what it would be compared with
  double at_least = 0;     // ruled out during its analysis: its cycles are at least this (else 0)
  // Invalid: its fullest level's need over what that level may hold (its capacity, or the
  // --max-footprint limit); infinite where no need is known (the loader refused the tree).
  double overflow = INFINITY;
};

class AnalysisCache {
 public:
  const Scored* find(const TreeKey& key) const;
  // Keeps at most `kMaxEntries`; beyond that it starts again empty (every report held costs a
  // few KiB). The contents only decide which candidates are analysed again, never their result.
  void insert(TreeKey key, Scored s);

  static constexpr size_t kMaxEntries = size_t{1} << 16;

 private:
  std::unordered_map<TreeKey, Scored, TreeKeyHash> entries_;
};

}  // namespace dfx::mapper
