#include "model/phase_cache.h"

#include "model/walk.h"

namespace dfx::model {

PhaseKey phase_key(const Dataflow& f, int node) {
  // Pre-order: the subtree is [node, end), where end follows its last node (the last child's last).
  int last = node;
  while (!f.nodes[static_cast<size_t>(last)].children.empty()) last = f.nodes[static_cast<size_t>(last)].children.back();
  const int end = last + 1;
  // Sized exactly (escapes aside): keys are kept by the thousand (the search's memo of trees,
  // the phases), and a generous reserve held a third of a search's memory.
  size_t words = 0;
  for (int i = node; i < end; ++i) {
    const TreeNode& n = f.nodes[static_cast<size_t>(i)];
    words += 7 + n.levels.size() + 3 * n.loops.size() + 2 * n.keep.size();
  }
  KeyWriter k(words);
  for (int i = node; i < end; ++i) {
    const TreeNode& n = f.nodes[static_cast<size_t>(i)];
    // Each field list is preceded by its length, so two different trees never flatten alike.
    // Children are not listed: in pre-order the parents say which they are, and in what order.
    k.push(n.is_leaf), k.push(n.op), k.push(i == node ? -1 : n.parent - node);
    k.push(static_cast<int64_t>(n.prim));
    k.push(static_cast<int64_t>(n.levels.size()));
    for (int lv : n.levels) k.push(lv);
    k.push(static_cast<int64_t>(n.loops.size()));
    for (const Loop& l : n.loops) k.push(l.dim), k.push(l.factor), k.push(l.spatial);
    k.push(static_cast<int64_t>(n.keep.size()));
    for (const auto& [tensor, level] : n.keep) k.push(tensor), k.push(level);
  }
  return k.done();
}

size_t PhaseCache::Hash::operator()(const PhaseKey& k) const { return static_cast<size_t>(k.hash); }

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
