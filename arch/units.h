#pragma once
// Quantities with units in YAML: "4 MiB", "1.2 TB/s", "700 MHz". Plain numbers take the base unit.
#include <optional>
#include <string>

#include "arch/config.h"

namespace dfx {

// Bytes; accepts B, KB, MB, GB (10^3) and KiB, MiB, GiB (2^10). "unlimited" gives nullopt-free -1.
std::optional<double> parse_bytes(const ConfigNode& n, Diagnostics& diag);
// Bytes per cycle; "X GB/s" style figures are converted with the clock in GHz.
std::optional<double> parse_bandwidth(const ConfigNode& n, double clock_ghz, Diagnostics& diag);
// GHz; accepts Hz, kHz, MHz, GHz.
std::optional<double> parse_frequency_ghz(const ConfigNode& n, Diagnostics& diag);

}  // namespace dfx
