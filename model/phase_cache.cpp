#include "model/phase_cache.h"

#include "model/walk.h"

namespace dfx::model {

namespace {

// A node's header and a loop, each packed into one word where their fields are small (always, in
// practice): fewer words to write, hash and keep. A packed word is never negative; the rare
// node or loop whose fields do not fit is written field by field after a negative marker, so two
// different nodes never write the same words.
constexpr int64_t kWideNode = -3, kWideLoop = -2;

void push_header(KeyWriter& k, const TreeNode& n) {
  const uint64_t levels = n.levels.size(), keep = n.keep.size(), loops = n.loops.size();
  if (levels < 32 && keep < 256 && loops < (uint64_t{1} << 15)) {
    k.push(static_cast<int64_t>(static_cast<uint64_t>(n.is_leaf) | static_cast<uint64_t>(n.prim) << 1 | levels << 3 | keep << 8 | loops << 16));
    return;
  }
  k.push(kWideNode), k.push(n.is_leaf), k.push(static_cast<int64_t>(n.prim));
  k.push(static_cast<int64_t>(levels)), k.push(static_cast<int64_t>(keep)), k.push(static_cast<int64_t>(loops));
}

void push_loop(KeyWriter& k, const Loop& l) {
  if (l.dim >= 0 && l.dim < (1 << 16) && l.factor >= 0 && l.factor < (int64_t{1} << 40)) {
    k.push(l.factor << 17 | int64_t{l.spatial} << 16 | l.dim);  // beyond 31 bits: escaped by the writer
    return;
  }
  k.push(kWideLoop), k.push(l.dim), k.push(l.factor), k.push(l.spatial);
}

}  // namespace

PhaseKey phase_key(const Dataflow& f, int node) {
  // Pre-order: the subtree is [node, end), where end follows its last node (the last child's last).
  int last = node;
  while (!f.nodes[static_cast<size_t>(last)].children.empty()) last = f.nodes[static_cast<size_t>(last)].children.back();
  const int end = last + 1;
  // Sized exactly (escapes and wide fields aside): keys are kept by the thousand (the search's
  // memo of trees, the phases), and a generous reserve held a third of a search's memory.
  size_t words = 0;
  for (int i = node; i < end; ++i) {
    const TreeNode& n = f.nodes[static_cast<size_t>(i)];
    words += 3 + n.levels.size() + n.loops.size() + 2 * n.keep.size();
  }
  KeyWriter k(words);
  for (int i = node; i < end; ++i) {
    const TreeNode& n = f.nodes[static_cast<size_t>(i)];
    // The header gives each list's length, so two different trees never flatten alike.
    // Children are not listed: in pre-order the parents say which they are, and in what order.
    push_header(k, n);
    k.push(n.op), k.push(i == node ? -1 : n.parent - node);
    for (int lv : n.levels) k.push(lv);
    for (const Loop& l : n.loops) push_loop(k, l);
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
