#pragma once
// Whether the lowering (mapper/lower.h) expresses a dataflow, for a search that keeps to such
// dataflows (`dfx explore --emit`), and why it refused the ones it did.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>

#include "arch/arch.h"
#include "mapper/analysis_cache.h"
#include "model/dataflow.h"
#include "model/workload.h"

namespace dfx::mapper {

class LoweringCheck {
 public:
  // `dtype`: the element type to lower for; none: every dataflow passes.
  LoweringCheck(const arch::Arch& a, const model::Workload& w, std::optional<arch::DType> dtype)
      : a_(a), w_(w), dtype_(dtype) {}

  // A lowering costs a few analyses: ask only about candidates that matter. A tree asked about
  // before gets its first answer (a search meets the trees that tie with its best many times).
  bool lowers(const model::Dataflow& f);
  // The reasons for the refusals so far, most frequent first (up to three), one per line.
  std::string refusals() const;

 private:
  const arch::Arch& a_;
  const model::Workload& w_;
  std::optional<arch::DType> dtype_;
  std::map<std::string, int64_t> refused_;  // reason → how many trees
  std::unordered_map<TreeKey, bool, TreeKeyHash> verdicts_;
};

}  // namespace dfx::mapper
