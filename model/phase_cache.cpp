#include "model/phase_cache.h"

#include <limits>

#include "model/walk.h"

namespace dfx::model {

namespace {

// A key written word by word, hashed as it goes: four lanes side by side (one multiply chain
// would wait on each multiply in turn), each an FNV-style mix, folded together at the end.
class KeyWriter {
 public:
  explicit KeyWriter(size_t words) { words_.reserve(words); }
  // The value, or for one outside 32 bits (never met in practice: factors and ids are small) an
  // escape no plain word equals, then its two halves.
  void push(int64_t v) {
    if (v > kEscape && v <= std::numeric_limits<int32_t>::max()) return word(static_cast<int32_t>(v));
    const auto u = static_cast<uint64_t>(v);
    word(kEscape), word(static_cast<int32_t>(u >> 32)), word(static_cast<int32_t>(u & 0xffffffffu));
  }
  PhaseKey done() {
    uint64_t out = words_.size();
    for (uint64_t x : lane_) mix(out, x);
    return PhaseKey{std::move(words_), out};
  }

 private:
  static constexpr int32_t kEscape = std::numeric_limits<int32_t>::min();
  std::vector<int32_t> words_;
  uint64_t lane_[4] = {0xcbf29ce484222325ull, 0x84222325cbf29ce4ull, 0x9e3779b97f4a7c15ull, 0xc2b2ae3d27d4eb4full};
  static void mix(uint64_t& x, uint64_t w) {
    x ^= w;
    x *= 0x100000001b3ull;
    x ^= x >> 29;
  }
  void word(int32_t w) {
    mix(lane_[words_.size() & 3], static_cast<uint64_t>(static_cast<int64_t>(w)));
    words_.push_back(w);
  }
};

}  // namespace

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

uint64_t hash_words(const std::vector<int64_t>& words) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a over the values, mixed a word at a time
  for (int64_t v : words) {
    h ^= static_cast<uint64_t>(v);
    h *= 0x100000001b3ull;
    h ^= h >> 29;
  }
  return h;
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
