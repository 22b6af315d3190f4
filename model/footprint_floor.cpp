// Why the floor is sound: the walk visits every tile's first step with the boxes the descent
// below computes (each loop's iteration 0, restricted as the walk restricts them), and right after
// a tile's activation each of its buffers holds exactly its slice for those boxes, alongside
// whatever else the level holds in that instance. The level's peak is at least that sum.
#include "model/footprint_floor.h"

#include <algorithm>

#include "model/index_set.h"
#include "model/placement.h"
#include "model/walk_support.h"

namespace dfx::model {
namespace {

class Descent {
 public:
  Descent(const arch::Arch& a, const Workload& w, const Dataflow& f, const Placement& p)
      : a_(a), w_(w), f_(f), p_(p), index_(w, p.ops_below), accesses_(w, f, p), elems_(a.levels.size(), 0), here_(a.levels.size(), 0) {}

  std::vector<int64_t> bytes() {
    try {
      visit(0, OpBoxes::whole(w_));
    } catch (const SetTooLarge&) {
      // a strided slice too fine to track: what was found up to here is still a lower bound
    }
    std::vector<int64_t> out(elems_.size());
    elems_[0] += w_.io_elements();  // resident at the outermost level all along, as analyze() counts them
    for (size_t l = 0; l < out.size(); ++l) out[l] = elems_[l] * a_.levels[l].word_bytes;
    return out;
  }

 private:
  const arch::Arch& a_;
  const Workload& w_;
  const Dataflow& f_;
  const Placement& p_;
  TileIndex index_;
  BufferAccesses accesses_;
  std::vector<int64_t> elems_, here_;

  void visit(int node, OpBoxes boxes) {
    const TreeNode& n = f_.nodes[static_cast<size_t>(node)];
    if (n.is_leaf) return;
    std::fill(here_.begin(), here_.end(), 0);
    for (size_t t = 0; t < w_.tensors.size(); ++t)
      if (p_.tensors[t].owner[static_cast<size_t>(node)])
        here_[static_cast<size_t>(p_.tensors[t].level[static_cast<size_t>(node)])] += accesses_.slice(node, static_cast<int>(t), boxes).size();
    for (size_t l = 0; l < here_.size(); ++l) elems_[l] = std::max(elems_[l], here_[l]);
    for (const Loop& loop : n.loops) {
      const int64_t extent = index_.extent(node, loop.dim, boxes);
      if (extent <= 0) continue;
      if (loop.factor > extent) return;  // the analysis rejects the tree anyway
      index_.restrict(node, loop.dim, 0, (extent + loop.factor - 1) / loop.factor, boxes);
    }
    for (int c : n.children) visit(c, boxes);
  }
};

}  // namespace

std::vector<int64_t> footprint_floor(const arch::Arch& a, const Workload& w, const Dataflow& f) {
  const Placement p = place(a, w, f);
  return Descent(a, w, f, p).bytes();
}

}  // namespace dfx::model
