#include "arch/units.h"

#include <cctype>
#include <cmath>
#include <map>

namespace dfx {
namespace {

struct Quantity {
  double value = 0;
  std::string unit;
};

// Splits "1.2 TB/s" into 1.2 and "TB/s"; false if there is no leading number.
bool split_quantity(const std::string& text, Quantity& q) {
  size_t used = 0;
  try {
    q.value = std::stod(text, &used);
  } catch (...) {
    return false;
  }
  while (used < text.size() && std::isspace(static_cast<unsigned char>(text[used]))) ++used;
  q.unit = text.substr(used);
  return std::isfinite(q.value) && q.value >= 0;
}

std::optional<double> scaled(const ConfigNode& n, Diagnostics& diag,
                             const std::map<std::string, double>& units, const char* what) {
  Quantity q;
  if (!n.is_scalar() || !split_quantity(n.scalar(), q)) {
    diag.add(n.loc(), std::string("expected ") + what + ", found '" + n.scalar() + "'");
    return std::nullopt;
  }
  auto it = units.find(q.unit);
  if (it == units.end()) {
    std::string known;
    for (const auto& u : units) known += (known.empty() ? "" : ", ") + (u.first.empty() ? "(none)" : u.first);
    diag.add(n.loc(), "unknown unit '" + q.unit + "' for " + what + " (known: " + known + ")");
    return std::nullopt;
  }
  return q.value * it->second;
}

const std::map<std::string, double> kByteUnits = {
    {"", 1},          {"B", 1},           {"KB", 1e3},         {"MB", 1e6},
    {"GB", 1e9},      {"KiB", 1024.0},    {"MiB", 1048576.0},  {"GiB", 1073741824.0}};

}  // namespace

std::optional<double> parse_bytes(const ConfigNode& n, Diagnostics& diag) {
  if (n.is_scalar() && n.scalar() == "unlimited") return -1.0;
  return scaled(n, diag, kByteUnits, "a size in bytes (e.g. 4 MiB, or 'unlimited')");
}

std::optional<double> parse_bandwidth(const ConfigNode& n, double clock_ghz, Diagnostics& diag) {
  // B/cycle is the base; per-second figures divide by the clock (1 GHz = 1e9 cycles/s).
  const double per_s = 1.0 / (clock_ghz * 1e9);
  const std::map<std::string, double> units = {
      {"", 1},          {"B/cycle", 1},          {"B/s", per_s},         {"KB/s", 1e3 * per_s},
      {"MB/s", 1e6 * per_s}, {"GB/s", 1e9 * per_s}, {"TB/s", 1e12 * per_s}};
  return scaled(n, diag, units, "a bandwidth (bytes per cycle, or e.g. 60 GB/s)");
}

std::optional<double> parse_frequency_ghz(const ConfigNode& n, Diagnostics& diag) {
  const std::map<std::string, double> units = {
      {"", 1}, {"GHz", 1}, {"MHz", 1e-3}, {"kHz", 1e-6}, {"Hz", 1e-9}};
  auto v = scaled(n, diag, units, "a clock frequency (e.g. 1 GHz, 400 MHz)");
  if (v && *v <= 0) {
    diag.add(n.loc(), "clock must be positive");
    return std::nullopt;
  }
  return v;
}

}  // namespace dfx
