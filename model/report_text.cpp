#include <algorithm>
#include <cmath>
#include <cstdio>
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

std::string to_table(const Report& r) {
  std::ostringstream os;
  if (!r.valid) {
    os << "INVALID dataflow:\n";
    for (const auto& p : r.problems) os << "  " << p.str() << '\n';
    return os.str();
  }
  char line[256];
  std::snprintf(line, sizeof line,
                "cycles %s   energy %s pJ   MACs %s   vector ops %s   utilization %.1f%%\n",
                human(r.cycles).c_str(), human(r.energy_pj).c_str(), human(static_cast<double>(r.macs)).c_str(),
                human(static_cast<double>(r.vector_ops)).c_str(), 100 * r.utilization);
  os << line;
  std::snprintf(line, sizeof line, "bottleneck %s (busy %.0f%% of the cycles)   roofline %s cycles (%.2fx of it)   DRAM %s\n",
                r.bottleneck.c_str(), r.cycles > 0 ? 100 * r.bottleneck_cycles / r.cycles : 0.0, human(r.roofline_cycles).c_str(),
                r.roofline_cycles > 0 ? r.cycles / r.roofline_cycles : 0.0,
                human_bytes(static_cast<double>(r.dram_bytes)).c_str());
  os << line;
  if (r.cycles > r.latency_cycles * (1 + 1e-9))
    os << "cycles set by " << r.bottleneck << " (the tree's latency, " << human(r.latency_cycles)
       << " cycles, overlaps transfers that share it: docs/semantics.md, \"Latency\")\n";
  os << '\n';
  std::snprintf(line, sizeof line, "%-8s %-10s %12s %12s %12s %12s %10s\n", "level", "tensor",
                "fill", "read", "update", "peak", "capacity");
  os << line;
  for (const auto& l : r.levels) {
    std::snprintf(line, sizeof line, "%-8s %-10s %12s %12s %12s %12s %10s\n", l.name.c_str(), "(all)",
                  human(static_cast<double>(l.traffic.fill)).c_str(), human(static_cast<double>(l.traffic.read)).c_str(),
                  human(static_cast<double>(l.traffic.update)).c_str(), human_bytes(static_cast<double>(l.peak_bytes)).c_str(),
                  human_bytes(l.capacity_bytes).c_str());
    os << line;
    for (const auto& t : l.tensors) {
      std::snprintf(line, sizeof line, "%-8s %-10s %12s %12s %12s %12s\n", "", t.tensor.c_str(),
                    human(static_cast<double>(t.traffic.fill)).c_str(), human(static_cast<double>(t.traffic.read)).c_str(),
                    human(static_cast<double>(t.traffic.update)).c_str(), (human(static_cast<double>(t.peak_elems)) + " el").c_str());
      os << line;
    }
  }
  os << '\n';
  std::snprintf(line, sizeof line, "%-10s %-7s %12s %10s %15s %12s\n", "op", "unit", "work", "instances", "compute cycles",
                "own cycles");
  os << line;
  const double slowest = longest_stage_cycles(r);
  for (const auto& o : r.ops) {
    std::snprintf(line, sizeof line, "%-10s %-7s %12s %10lld %15s %12s%s\n", o.name.c_str(), o.unit.c_str(),
                  human(static_cast<double>(o.work)).c_str(), static_cast<long long>(o.instances),
                  human(o.compute_cycles).c_str(), o.own_cycles ? human(*o.own_cycles).c_str() : "-",
                  stage_cycles(o) == slowest ? "  (longest)" : "");
    os << line;
  }
  return os.str();
}

}  // namespace dfx::model
