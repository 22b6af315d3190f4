// The only translation unit of mapper/ that includes nlohmann_json.
#include <nlohmann/json.hpp>

#include "mapper/search.h"

namespace dfx::mapper {
namespace {

nlohmann::json summary(const Candidate& c) {
  int64_t peak = 0;
  for (size_t l = 1; l < c.report.levels.size(); ++l) peak = std::max(peak, c.report.levels[l].peak_bytes);
  return {{"name", c.name},
          {"cost", c.cost},
          {"cycles", c.report.cycles},
          {"latency_cycles", c.report.latency_cycles},
          {"energy_pj", c.report.energy_pj},
          {"dram_bytes", c.report.dram_bytes},
          {"utilization", c.report.utilization},
          {"bottleneck", c.report.bottleneck},
          {"peak_onchip_bytes", peak},
          {"flow_yaml", c.flow_yaml}};
}

}  // namespace

std::string to_json(const Outcome& out, const std::string& arch, const std::string& workload, const SearchOptions& o,
                    const model::InputChanges& changes, double clock_ghz) {
  nlohmann::json j;
  j["schema"] = "dfx.explore/1";
  j["arch"] = arch;
  if (clock_ghz > 0) j["clock_ghz"] = clock_ghz;
  j["workload"] = workload;
  j["set"] = changes.set;
  j["dims"] = changes.dims;
  j["objective"] = o.objective == Objective::Cycles ? "cycles" : o.objective == Objective::Energy ? "energy" : "edp";
  j["seed"] = o.seed;
  j["evaluations"] = out.evaluations;
  j["analyses"] = out.analyses;
  j["valid"] = out.valid;
  j["ruled_out"] = out.ruled_out;
  j["polished"] = out.polished;
  j["baselines_polished"] = out.baselines_polished;
  j["interrupted"] = out.interrupted;
  j["seconds"] = out.seconds;
  j["baselines_not_found"] = nlohmann::json::array();
  for (const auto& b : out.baselines_not_found) {
    j["baselines_not_found"].push_back(b.name);
    j["baselines_not_found_why"][b.name] = {{"invalid", b.invalid}, {"nearest", b.nearest}};
  }
  if (!out.closed_form_invalid.empty()) j["closed_form_invalid"] = out.closed_form_invalid;
  j["baselines"] = nlohmann::json::array();
  for (const auto& b : out.baselines) j["baselines"].push_back(summary(b));
  j["best"] = nlohmann::json::array();
  for (const auto& b : out.best) j["best"].push_back(summary(b));
  j["pareto"] = nlohmann::json::array();
  for (const auto& b : out.pareto) j["pareto"].push_back(summary(b));
  j["convergence"] = nlohmann::json::array();
  for (const auto& [evals, cost] : out.convergence) j["convergence"].push_back({evals, cost});
  return j.dump(2) + "\n";
}

}  // namespace dfx::mapper
