#include "model/phase_cache.h"

#include <limits>

#include "model/walk.h"

namespace dfx::model {

namespace {

// A key's word: the value, or for one outside 32 bits (never met in practice: factors and ids
// are small) an escape no plain word equals, then its two halves.
constexpr int32_t kEscape = std::numeric_limits<int32_t>::min();
void push_word(PhaseKey& k, int64_t v) {
  if (v > kEscape && v <= std::numeric_limits<int32_t>::max()) {
    k.push_back(static_cast<int32_t>(v));
    return;
  }
  const auto u = static_cast<uint64_t>(v);
  k.push_back(kEscape), k.push_back(static_cast<int32_t>(u >> 32)), k.push_back(static_cast<int32_t>(u & 0xffffffffu));
}

// Four lanes side by side (a key is hundreds of words and one multiply chain waited on each
// multiply in turn: 3% of a search), each an FNV-style mix, then folded together.
template <class Word>
uint64_t hash_lanes(const std::vector<Word>& words) {
  constexpr uint64_t kPrime = 0x100000001b3ull;
  uint64_t h[4] = {0xcbf29ce484222325ull, 0x84222325cbf29ce4ull, 0x9e3779b97f4a7c15ull, 0xc2b2ae3d27d4eb4full};
  const size_t n = words.size(), whole = n - n % 4;
  auto mix = [&](uint64_t& x, Word w) {
    x ^= static_cast<uint64_t>(static_cast<int64_t>(w));
    x *= kPrime;
    x ^= x >> 29;
  };
  for (size_t i = 0; i < whole; i += 4)
    for (size_t l = 0; l < 4; ++l) mix(h[l], words[i + l]);
  for (size_t i = whole; i < n; ++i) mix(h[0], words[i]);
  uint64_t out = n;
  for (uint64_t x : h) {
    out ^= x;
    out *= kPrime;
    out ^= out >> 29;
  }
  return out;
}

}  // namespace

PhaseKey phase_key(const Dataflow& f, int node) {
  PhaseKey k;
  // Pre-order: the subtree is [node, end), where end follows its last node (the last child's last).
  int last = node;
  while (!f.nodes[static_cast<size_t>(last)].children.empty()) last = f.nodes[static_cast<size_t>(last)].children.back();
  const int end = last + 1;
  // Sized exactly (escapes aside): keys are kept by the thousand (the search's memo of trees,
  // the phases), and a generous reserve held a third of a search's memory.
  size_t words = 0;
  for (int i = node; i < end; ++i) {
    const TreeNode& n = f.nodes[static_cast<size_t>(i)];
    words += 8 + n.levels.size() + 3 * n.loops.size() + 2 * n.keep.size() + n.children.size();
  }
  k.reserve(words);
  for (int i = node; i < end; ++i) {
    const TreeNode& n = f.nodes[static_cast<size_t>(i)];
    // Each field list is preceded by its length, so two different trees never flatten alike.
    push_word(k, n.is_leaf), push_word(k, n.op), push_word(k, i == node ? -1 : n.parent - node);
    push_word(k, static_cast<int64_t>(n.prim));
    push_word(k, static_cast<int64_t>(n.levels.size()));
    for (int lv : n.levels) push_word(k, lv);
    push_word(k, static_cast<int64_t>(n.loops.size()));
    for (const Loop& l : n.loops) push_word(k, l.dim), push_word(k, l.factor), push_word(k, l.spatial);
    push_word(k, static_cast<int64_t>(n.keep.size()));
    for (const auto& [tensor, level] : n.keep) push_word(k, tensor), push_word(k, level);
    push_word(k, static_cast<int64_t>(n.children.size()));
    for (int c : n.children) push_word(k, c - node);
  }
  return k;
}

uint64_t hash_words(const std::vector<int64_t>& words) { return hash_lanes(words); }
uint64_t hash_words(const std::vector<int32_t>& words) { return hash_lanes(words); }

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
