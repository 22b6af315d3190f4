// The only translation unit of model/ that includes nlohmann_json.
#include <nlohmann/json.hpp>

#include "model/report_io.h"

namespace dfx::model {
namespace {

nlohmann::json traffic_json(const Traffic& t) {
  return {{"fill_elems", t.fill}, {"read_elems", t.read}, {"update_elems", t.update}};
}

}  // namespace

std::string to_json(const Report& r, const std::string& arch, const std::string& workload,
                    const std::string& dataflow, const InputChanges& changes, double clock_ghz) {
  nlohmann::json j;
  j["schema"] = "dfx.report/1";
  j["arch"] = arch;
  j["workload"] = workload;
  j["set"] = changes.set;
  j["dims"] = changes.dims;
  j["dataflow"] = dataflow;
  j["valid"] = r.valid;
  j["reason"] = r.reason;
  j["problems"] = nlohmann::json::array();
  for (const auto& p : r.problems) j["problems"].push_back(p.str());
  if (clock_ghz > 0) j["clock_ghz"] = clock_ghz;
  j["cycles"] = r.cycles;
  j["latency_cycles"] = r.latency_cycles;
  j["energy_pj"] = r.energy_pj;
  j["macs"] = r.macs;
  j["vector_ops"] = r.vector_ops;
  j["utilization"] = r.utilization;
  j["bottleneck"] = r.bottleneck;
  j["bottleneck_cycles"] = r.bottleneck_cycles;
  j["roofline_cycles"] = r.roofline_cycles;
  j["dram_bytes"] = r.dram_bytes;
  j["matrix_pes_used"] = r.matrix_pes_used;
  j["vector_lanes_used"] = r.vector_lanes_used;
  j["levels"] = nlohmann::json::array();
  for (const auto& l : r.levels) {
    nlohmann::json lj = traffic_json(l.traffic);
    lj["name"] = l.name;
    lj["capacity_bytes"] = l.capacity_bytes < 0 ? nlohmann::json(nullptr) : nlohmann::json(l.capacity_bytes);
    lj["instances"] = l.instances;
    lj["peak_bytes"] = l.peak_bytes;
    lj["energy_pj"] = l.energy_pj;
    lj["busy_cycles"] = l.busy_cycles;
    lj["unit_read_elems"] = l.unit_reads;
    lj["unit_update_elems"] = l.unit_updates;
    lj["tensors"] = nlohmann::json::array();
    for (const auto& t : l.tensors) {
      nlohmann::json tj = traffic_json(t.traffic);
      tj["name"] = t.tensor;
      tj["peak_elems"] = t.peak_elems;
      tj["peak_bytes"] = t.peak_elems * l.word_bytes;
      lj["tensors"].push_back(tj);
    }
    j["levels"].push_back(lj);
  }
  j["ops"] = nlohmann::json::array();
  for (const auto& o : r.ops) {
    nlohmann::json oj = {{"name", o.name}, {"unit", o.unit}, {"work", o.work}, {"instances", o.instances},
                         {"compute_cycles", o.compute_cycles}};
    if (o.own_cycles) oj["own_cycles"] = *o.own_cycles;
    j["ops"].push_back(std::move(oj));
  }
  return j.dump(2) + "\n";
}

}  // namespace dfx::model
