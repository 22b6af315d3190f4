#pragma once
// The tile tree (flow.yaml): tiles at memory levels with ordered loops and an inter-tile
// primitive for their children; leaves are operators.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "arch/arch.h"
#include "arch/errors.h"
#include "model/workload.h"

namespace dfx::model {

enum class Prim { Seq, Shar, Para, Pipe };
const char* prim_name(Prim p);

struct Loop {
  int dim = -1;
  int64_t factor = 1;  // number of iterations; chunks are ceil(extent/factor), the last may be partial
  bool spatial = false;
  // Where the loop was written: an index into its tree's Dataflow::loop_locs (-1: nowhere, a
  // tree built in code). Kept apart: a search builds and reads loops by the million, and two
  // strings in each made them four times larger.
  int loc = -1;
};

struct TreeNode {
  bool is_leaf = false;
  int op = -1;              // leaf: the operator
  std::vector<int> levels;  // tile: the memory levels it holds data in (one, or role-split ones)
  std::vector<Loop> loops;  // tile: outermost first
  Prim prim = Prim::Seq;
  std::vector<int> children;
  // Intermediates fused at this tile that live at a level other than the tile's own:
  // (tensor, level). By default an intermediate lives at the level of its fusion tile.
  std::vector<std::pair<int, int>> keep;
  int parent = -1;
  SourceLoc loc;
};

struct Dataflow {
  std::string name;
  std::vector<TreeNode> nodes;  // nodes[0] is the root
  std::vector<SourceLoc> loop_locs;  // see Loop::loc
  const TreeNode& root() const { return nodes.front(); }
  // Where `l`, a loop of this tree, was written (an empty location when nowhere).
  const SourceLoc& loc_of(const Loop& l) const {
    static const SourceLoc nowhere;
    return l.loc >= 0 ? loop_locs[static_cast<size_t>(l.loc)] : nowhere;
  }
  int add_loop_loc(SourceLoc loc) {
    loop_locs.push_back(std::move(loc));
    return static_cast<int>(loop_locs.size()) - 1;
  }
};

// Contract: returns a dataflow whose names all resolve and whose structure is sound (every op
// exactly once, leaves under tiles, levels only move inward), or throws InputError listing every
// problem. Semantic checks that need the analysis (capacity, PEs) happen in analyze().
Dataflow load_dataflow(const std::string& path, const arch::Arch& a, const Workload& w);
Dataflow load_dataflow_from_string(const std::string& text, const std::string& name,
                                   const arch::Arch& a, const Workload& w);

// A set of ops, by index: one word inline (a search builds thousands of these per second, and
// workloads have fewer than 64 ops), more words beyond.
class OpSet {
 public:
  OpSet() = default;
  explicit OpSet(size_t n_ops) : words_((n_ops + 63) / 64, 0) {}
  bool operator[](size_t o) const { return (words_[o >> 6] >> (o & 63)) & 1; }
  void insert(size_t o) { words_[o >> 6] |= uint64_t{1} << (o & 63); }
  OpSet& operator|=(const OpSet& x) {
    for (size_t i = 0; i < words_.size(); ++i) words_[i] |= x.words_[i];
    return *this;
  }
  void clear() { std::fill(words_.begin(), words_.end(), 0); }
  bool intersects(const OpSet& x) const {
    for (size_t i = 0; i < words_.size(); ++i)
      if (words_[i] & x.words_[i]) return true;
    return false;
  }
  bool contains(const OpSet& x) const {  // every op of x is here
    for (size_t i = 0; i < words_.size(); ++i)
      if ((words_[i] & x.words_[i]) != x.words_[i]) return false;
    return true;
  }

 private:
  boost::container::small_vector<uint64_t, 1> words_;
};

// Which ops each node's subtree holds: [node][op]. Nodes are in pre-order (parents first).
using OpsBelow = std::vector<OpSet>;
OpsBelow ops_below(const Dataflow& f, size_t n_ops);
// The fusion tile of an intermediate: the deepest node holding its producer and every consumer.
int fusion_tile(const OpsBelow& below, const Tensor& t);

// The structural checks of load_dataflow, for trees built in code (the mapper): throws
// InputError listing every problem.
void check_dataflow(const Dataflow& f, const arch::Arch& a, const Workload& w);

// The tree in the paper's notation, every implicit factor made explicit.
std::string explain(const Dataflow& f, const arch::Arch& a, const Workload& w);
// The tree back to flow.yaml text (round-trips through load_dataflow).
std::string to_yaml(const Dataflow& f, const arch::Arch& a, const Workload& w);
// A name as a YAML scalar: plain where it reads back as itself, else double-quoted (a workload
// named "a: b # c" would otherwise load as a map with a comment).
std::string yaml_scalar(const std::string& s);

}  // namespace dfx::model
