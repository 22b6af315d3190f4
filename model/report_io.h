#pragma once
// Reports as JSON (schema in docs/report-json.md) and as a readable table.
#include <string>

#include "model/report.h"

namespace dfx::model {

std::string to_json(const Report& r, const std::string& arch, const std::string& workload,
                    const std::string& dataflow);
std::string to_table(const Report& r);

}  // namespace dfx::model
