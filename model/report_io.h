#pragma once
// Reports as JSON (schema in docs/report-json.md) and as a readable table.
#include <functional>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "model/report.h"

namespace dfx::model {

// Changes made to the inputs after loading (`dfx … --set KEY=VALUE --dim NAME=SIZE`), as typed:
// reports list them next to the files, so that the run can be repeated.
struct InputChanges {
  std::vector<std::string> set, dims;
};

// `clock_ghz`: the arch's clock, so that a reader can turn cycles into time (a sweep over
// clocks); 0 leaves it out.
std::string to_json(const Report& r, const std::string& arch, const std::string& workload,
                    const std::string& dataflow, const InputChanges& changes = {}, double clock_ghz = 0);
std::string to_table(const Report& r);
// One row of a text table: each cell padded to its width (negative: left-aligned, as names are),
// one space between cells.
std::string table_row(std::initializer_list<std::pair<std::string, int>> cells);
// 1234567 → "1.23M": numbers as a reader scans them in tables.
std::string human(double v, int decimals = 2);  // decimals after an SI suffix (K, M, G...); two fewer without one
// A column's figures: human()'s, or with as many more decimals as tell apart the different
// values of `ranked` (rows whose order matters: three --pareto points all read 30.38K).
std::function<std::string(double)> telling_apart(const std::vector<double>& ranked);
// 4194304 → "4.0 MiB"; negative means unlimited.
std::string human_bytes(double b);

}  // namespace dfx::model
