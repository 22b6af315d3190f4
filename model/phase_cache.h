#pragma once
// Analyses of phases kept across trees. A search analyses thousands of trees of one workload on
// one arch, and most of them share groups with trees seen before: the template's groups hand
// their data over through DRAM and run one after another (phases, docs/semantics.md), and a
// climb step changes one group at a time. A phase that shares no buffer with the others costs
// the same in any tree, so its analysis is looked up instead of walked again.
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/dataflow.h"

namespace dfx::model {

struct PhaseResult;  // what one phase adds to a walk (model/walk.h)

// Everything in the subtree of `node` the analysis reads (not names, not source locations),
// as integers, node ids relative to `node`: equal keys mean equal subtrees. Nodes are in
// pre-order, as the loader and the mapper build them.
// Words of 32 bits: keys are kept by the thousand, and every value in them is small (a value
// that is not is written as an escape word and its two halves). Each key carries its hash,
// computed once it is written: it is looked up once or twice, and compared with keys of other
// hashes in a batch.
struct PhaseKey {
  std::vector<int32_t> words;
  uint64_t hash = 0;
  size_t size() const { return words.size(); }
  bool operator==(const PhaseKey& o) const { return hash == o.hash && words == o.words; }
  bool operator!=(const PhaseKey& o) const { return !(*this == o); }
  bool operator<(const PhaseKey& o) const { return words < o.words; }  // any strict order
};
PhaseKey phase_key(const Dataflow& f, int node);

// A key written word by word, then hashed in one pass: four lanes side by side (one multiply
// chain would wait on each multiply in turn), each an FNV-style mix, folded together at the end.
class KeyWriter {
 public:
  // `words`: the key's length without escapes (its storage is made once, at that size).
  explicit KeyWriter(size_t words) : words_(words), out_(words_.data()), end_(out_ + words) {}
  // It points into its own storage.
  KeyWriter(const KeyWriter&) = delete;
  KeyWriter& operator=(const KeyWriter&) = delete;
  // The value, or for one outside 32 bits (never met in practice: factors and ids are small) an
  // escape no plain word equals, then its two halves.
  // (Written through a pointer: the vector's size, read back after every store, cost a third of
  // a key.)
  void push(int64_t v) {
    if (__builtin_expect(v > kEscape && v <= std::numeric_limits<int32_t>::max() && out_ != end_, 1)) {
      *out_++ = static_cast<int32_t>(v);
      return;
    }
    push_rare(v);
  }
  PhaseKey done() {
    const size_t written = static_cast<size_t>(out_ - words_.data());
    words_.resize(written);
    // Hashed here rather than in push(): the lanes stay in registers instead of a dependent
    // load and store per word. Lane k takes every fourth word from the k-th.
    uint64_t lane[4] = {0xcbf29ce484222325ull, 0x84222325cbf29ce4ull, 0x9e3779b97f4a7c15ull, 0xc2b2ae3d27d4eb4full};
    const int32_t* w = words_.data();
    size_t i = 0;
    for (; i + 4 <= written; i += 4)
      for (size_t k = 0; k < 4; ++k) mix(lane[k], static_cast<uint64_t>(static_cast<int64_t>(w[i + k])));
    for (size_t k = 0; i < written; ++i, ++k) mix(lane[k], static_cast<uint64_t>(static_cast<int64_t>(w[i])));
    uint64_t out = written;
    for (uint64_t x : lane) mix(out, x);
    return PhaseKey{std::move(words_), out};
  }

 private:
  static constexpr int32_t kEscape = std::numeric_limits<int32_t>::min();
  std::vector<int32_t> words_;
  int32_t *out_, *end_;  // the next word's place, and the end of the storage
  static void mix(uint64_t& x, uint64_t w) {
    x ^= w;
    x *= 0x100000001b3ull;
    x ^= x >> 29;
  }
  // An escaped value, or a word past the storage (escapes took the room): kept out of push(),
  // which is inlined where keys are written.
  __attribute__((noinline)) void push_rare(int64_t v) {
    if (v > kEscape && v <= std::numeric_limits<int32_t>::max()) return word(static_cast<int32_t>(v));
    const auto u = static_cast<uint64_t>(v);
    word(kEscape), word(static_cast<int32_t>(u >> 32)), word(static_cast<int32_t>(u & 0xffffffffu));
  }
  void word(int32_t w) {
    if (__builtin_expect(out_ == end_, 0)) {  // escapes took the room
      const size_t written = words_.size();
      words_.resize(2 * written + 4);
      out_ = words_.data() + written, end_ = words_.data() + words_.size();
    }
    *out_++ = w;
  }
};

// Thread-safe: a search's worker threads share one. For one arch and one workload only (the
// keys do not name them), and for trees without source locations (a kept phase's problems
// point into the tree it was first walked in). Keeps at most kMaxEntries; beyond that it starts
// again empty, which changes what is walked again, never a result.
class PhaseCache {
 public:
  std::shared_ptr<const PhaseResult> find(const PhaseKey& key) const;
  void insert(PhaseKey key, PhaseResult r);
  int64_t hits() const;
  int64_t misses() const;

  static constexpr size_t kMaxEntries = size_t{1} << 14;

 private:
  struct Hash {
    size_t operator()(const PhaseKey& k) const;
  };
  mutable std::mutex mutex_;
  std::unordered_map<PhaseKey, std::shared_ptr<const PhaseResult>, Hash> entries_;
  mutable int64_t hits_ = 0, misses_ = 0;
};

}  // namespace dfx::model
