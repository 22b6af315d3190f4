#pragma once
// One self-contained HTML page for a `dfx explore` run: the best tree, traffic per level, a
// roofline chart, search convergence and the baseline table. No scripts, no network.
#include <functional>
#include <string>

#include "arch/arch.h"
#include "mapper/search.h"
#include "model/workload.h"

namespace dfx::cli {

// `changes`: what was changed in the inputs, as typed (" --set levels.L1.capacity=2MB"), or empty.
std::string html_report(const arch::Arch& a, const model::Workload& w, const mapper::Outcome& out, const std::string& changes = "");

// Cycles and energy as both reports print them: with the decimals that tell apart the ranked
// rows (the best, the --pareto front) whose values differ (model::telling_apart).
struct Figures {
  std::function<std::string(double)> cycles, energy;
};
Figures ranked_figures(const mapper::Outcome& out);

// Why a named baseline has no row, as both reports say it: how many of its structure's tilings
// were invalid and the nearest to fitting's reason, where that is known.
std::string not_found_text(const mapper::BaselineNotFound& b);

// The roofline chart's roof, in ops per cycle at `ops_per_dram_byte`: the peak of the units the
// workload's ops run on, or DRAM's read and write bandwidth together (its points count reads and
// writes).
double roof(const arch::Arch& a, const model::Workload& w, double ops_per_dram_byte);

}  // namespace dfx::cli
