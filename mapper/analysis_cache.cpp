#include "mapper/analysis_cache.h"

namespace dfx::mapper {

TreeKey tree_key(const model::Dataflow& f) {
  TreeKey k;
  k.reserve(f.nodes.size() * 12);
  for (const model::TreeNode& n : f.nodes) {
    // Each field list is preceded by its length, so two different trees never flatten alike.
    k.push_back(n.is_leaf), k.push_back(n.op), k.push_back(n.parent), k.push_back(static_cast<int64_t>(n.prim));
    k.push_back(static_cast<int64_t>(n.levels.size()));
    k.insert(k.end(), n.levels.begin(), n.levels.end());
    k.push_back(static_cast<int64_t>(n.loops.size()));
    for (const model::Loop& l : n.loops) k.push_back(l.dim), k.push_back(l.factor), k.push_back(l.spatial);
    k.push_back(static_cast<int64_t>(n.keep.size()));
    for (const auto& [tensor, level] : n.keep) k.push_back(tensor), k.push_back(level);
    k.push_back(static_cast<int64_t>(n.children.size()));
    k.insert(k.end(), n.children.begin(), n.children.end());
  }
  return k;
}

size_t AnalysisCache::Hash::operator()(const TreeKey& k) const {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a over the values, mixed a word at a time
  for (int64_t v : k) {
    h ^= static_cast<uint64_t>(v);
    h *= 0x100000001b3ull;
    h ^= h >> 29;
  }
  return static_cast<size_t>(h);
}

const Scored* AnalysisCache::find(const TreeKey& key) const {
  auto it = entries_.find(key);
  return it == entries_.end() ? nullptr : &it->second;
}

void AnalysisCache::insert(TreeKey key, Scored s) {
  if (entries_.size() >= kMaxEntries) entries_.clear();
  entries_.emplace(std::move(key), std::move(s));
}

}  // namespace dfx::mapper
