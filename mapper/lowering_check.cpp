#include "mapper/lowering_check.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "mapper/lower.h"

namespace dfx::mapper {

bool LoweringCheck::lowers(const model::Dataflow& f) {
  if (!dtype_) return true;
  auto [it, fresh] = verdicts_.try_emplace(tree_key(f), true);
  if (!fresh) return it->second;
  try {
    check_lowering(a_, w_, f, *dtype_);
  } catch (const InputError& e) {
    ++refused_[e.problems().empty() ? e.what() : e.problems().front().message];
    it->second = false;
  }
  return it->second;
}

std::string LoweringCheck::refusals() const {
  std::vector<std::pair<int64_t, std::string>> by_count;
  for (const auto& [why, n] : refused_) by_count.push_back({-n, why});
  std::sort(by_count.begin(), by_count.end());
  std::string out;
  int64_t rest = 0, kinds = 0;
  for (size_t i = 0; i < by_count.size(); ++i) {
    if (i < 3) out += "\n  " + std::to_string(-by_count[i].first) + "× " + by_count[i].second;
    else rest -= by_count[i].first, ++kinds;
  }
  // The others are counted, so that the three shown are not taken for all (QA pass 9).
  if (rest > 0) out += "\n  " + std::to_string(rest) + "× for " + std::to_string(kinds) + " other reason" + (kinds == 1 ? "" : "s");
  return out;
}

}  // namespace dfx::mapper
