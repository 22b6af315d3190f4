#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <sstream>

#include "model/report_io.h"

namespace dfx::model {

namespace {

std::string formatted(double v, bool scientific, int decimals, const char* unit) {
  std::ostringstream os;
  os << (scientific ? std::scientific : std::fixed) << std::setprecision(decimals) << v << unit;
  return os.str();
}

}  // namespace

std::string human(double v, int decimals) {
  // Past the last suffix a figure is written in powers of ten (an absurd bandwidth's 1e21
  // cycles), not as twenty-odd digits before a 'P'.
  if (std::abs(v) >= 1e18) return formatted(v, true, decimals, "");
  const char* suffix[] = {"", "K", "M", "G", "T", "P"};
  int i = 0;
  while ((v >= 1000 || v <= -1000) && i < 5) v /= 1000, ++i;
  return formatted(v, false, i ? decimals : std::max(0, decimals - 2), suffix[i]);
}

std::function<std::string(double)> telling_apart(const std::vector<double>& ranked) {
  for (int decimals = 2; decimals <= 8; ++decimals) {
    std::map<std::string, double> seen;
    bool clash = false;
    for (double v : ranked) {
      const auto [at, fresh] = seen.emplace(human(v, decimals), v);
      clash = clash || (!fresh && at->second != v);
    }
    if (!clash) return [decimals](double v) { return human(v, decimals); };
  }
  return [](double v) { return human(v); };
}

std::string human_bytes(double b) {
  if (b < 0) return "unlimited";
  // Past EiB in powers of ten, not 20 digits.
  if (b >= 1024.0 * 1024 * 1024 * 1024 * 1024 * 1024 * 1024) return formatted(b, true, 1, " B");
  const char* units[] = {" B", " KiB", " MiB", " GiB", " TiB", " PiB", " EiB"};
  int u = 0;
  while (b >= 1024 && u < 6) b /= 1024, ++u;
  return formatted(b, false, u ? 1 : 0, units[u]);
}

std::string table_row(std::initializer_list<std::pair<std::string, int>> cells) {
  std::ostringstream os;
  bool first = true;
  for (const auto& [text, width] : cells) {
    if (!first) os << ' ';
    first = false;
    os << (width < 0 ? std::left : std::right) << std::setw(std::abs(width)) << text;
  }
  return os.str();
}

std::string to_table(const Report& r) {
  std::ostringstream os;
  if (!r.valid) {
    os << "INVALID dataflow:\n";
    for (const auto& p : r.problems) os << "  " << p.str() << '\n';
    return os.str();
  }
  auto h = [](auto v) { return human(static_cast<double>(v)); };
  os << "cycles " << h(r.cycles) << "   energy " << h(r.energy_pj) << " pJ   MACs " << h(r.macs) << "   vector ops "
     << h(r.vector_ops) << "   utilization " << formatted(100 * r.utilization, false, 1, "%") << '\n';
  os << "bottleneck " << r.bottleneck << " (busy " << formatted(r.cycles > 0 ? 100 * r.bottleneck_cycles / r.cycles : 0.0, false, 0, "%")
     << " of the cycles)   roofline "
     // A tiny workload's roof is below one cycle: "0 cycles (38.07x of it)" read as nonsense (QA pass 9).
     << (r.roofline_cycles < 10 ? formatted(r.roofline_cycles, false, 2, "") : h(r.roofline_cycles)) << " cycles ("
     << formatted(r.roofline_cycles > 0 ? r.cycles / r.roofline_cycles : 0.0, false, 2, "x") << " of it)   DRAM "
     << human_bytes(static_cast<double>(r.dram_bytes)) << '\n';
  if (r.cycles > r.latency_cycles * (1 + 1e-9))
    os << "cycles set by " << r.bottleneck << " (the tree's latency, " << human(r.latency_cycles)
       << " cycles, overlaps transfers that share it: docs/semantics.md, \"Latency\")\n";
  os << '\n';
  os << table_row({{"level", -8}, {"tensor", -10}, {"fill", 12}, {"read", 12}, {"update", 12}, {"peak", 12}, {"capacity", 10}}) << '\n';
  for (const auto& l : r.levels) {
    os << table_row({{l.name, -8}, {"(all)", -10}, {h(l.traffic.fill), 12}, {h(l.traffic.read), 12}, {h(l.traffic.update), 12},
               {human_bytes(static_cast<double>(l.peak_bytes)), 12}, {human_bytes(l.capacity_bytes), 10}})
       << '\n';
    for (const auto& t : l.tensors)
      os << table_row({{"", -8}, {t.tensor, -10}, {h(t.traffic.fill), 12}, {h(t.traffic.read), 12}, {h(t.traffic.update), 12},
                 {h(t.peak_elems) + " el", 12}})
         << '\n';
  }
  os << '\n';
  os << table_row({{"op", -10}, {"unit", -7}, {"work", 12}, {"instances", 10}, {"compute cycles", 15}, {"own cycles", 12}}) << '\n';
  const double slowest = longest_stage_cycles(r);
  for (const auto& o : r.ops)
    os << table_row({{o.name, -10}, {o.unit, -7}, {h(o.work), 12}, {std::to_string(o.instances), 10}, {h(o.compute_cycles), 15},
               {o.own_cycles ? h(*o.own_cycles) : "-", 12}})
       << (stage_cycles(o) == slowest ? "  (longest)" : "") << '\n';
  return os.str();
}

}  // namespace dfx::model
