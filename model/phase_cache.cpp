#include "model/phase_cache.h"

#include "model/walk.h"

namespace dfx::model {

PhaseKey phase_key(const Dataflow& f, int node) {
  PhaseKey k;
  // Pre-order: the subtree is [node, end), where end follows its last node (the last child's last).
  int last = node;
  while (!f.nodes[static_cast<size_t>(last)].children.empty()) last = f.nodes[static_cast<size_t>(last)].children.back();
  const int end = last + 1;
  k.reserve(static_cast<size_t>(end - node) * 24);
  for (int i = node; i < end; ++i) {
    const TreeNode& n = f.nodes[static_cast<size_t>(i)];
    // Each field list is preceded by its length, so two different trees never flatten alike.
    k.push_back(n.is_leaf), k.push_back(n.op), k.push_back(i == node ? -1 : n.parent - node);
    k.push_back(static_cast<int64_t>(n.prim));
    k.push_back(static_cast<int64_t>(n.levels.size()));
    k.insert(k.end(), n.levels.begin(), n.levels.end());
    k.push_back(static_cast<int64_t>(n.loops.size()));
    for (const Loop& l : n.loops) k.push_back(l.dim), k.push_back(l.factor), k.push_back(l.spatial);
    k.push_back(static_cast<int64_t>(n.keep.size()));
    for (const auto& [tensor, level] : n.keep) k.push_back(tensor), k.push_back(level);
    k.push_back(static_cast<int64_t>(n.children.size()));
    for (int c : n.children) k.push_back(c - node);
  }
  return k;
}

uint64_t hash_words(const std::vector<int64_t>& words) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a over the values, mixed a word at a time
  for (int64_t v : words) {
    h ^= static_cast<uint64_t>(v);
    h *= 0x100000001b3ull;
    h ^= h >> 29;
  }
  return h;
}

size_t PhaseCache::Hash::operator()(const PhaseKey& k) const { return static_cast<size_t>(hash_words(k)); }

std::shared_ptr<const PhaseResult> PhaseCache::find(const PhaseKey& key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = entries_.find(key);
  if (it == entries_.end()) {
    ++misses_;
    return nullptr;
  }
  ++hits_;
  return it->second;
}

void PhaseCache::insert(PhaseKey key, PhaseResult r) {
  auto shared = std::make_shared<const PhaseResult>(std::move(r));
  std::lock_guard<std::mutex> lock(mutex_);
  if (entries_.size() >= kMaxEntries) entries_.clear();
  entries_.emplace(std::move(key), std::move(shared));
}

int64_t PhaseCache::hits() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return hits_;
}

int64_t PhaseCache::misses() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return misses_;
}

}  // namespace dfx::model
