#include "mapper/analysis_cache.h"

#include "model/phase_cache.h"

namespace dfx::mapper {

TreeKey tree_key(const model::Dataflow& f) { return model::phase_key(f, 0); }

size_t TreeKeyHash::operator()(const TreeKey& k) const { return static_cast<size_t>(k.hash); }

const Scored* AnalysisCache::find(const TreeKey& key) const {
  auto it = entries_.find(key);
  return it == entries_.end() ? nullptr : &it->second;
}

void AnalysisCache::insert(TreeKey key, Scored s) {
  if (entries_.size() >= kMaxEntries) entries_.clear();
  entries_.insert_or_assign(std::move(key), std::move(s));
}

}  // namespace dfx::mapper
