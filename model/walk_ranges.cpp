// Which points of each op a sub-tile computes: loops cut boxes, fusion shrinks producers.
#include <algorithm>

#include <boost/container/small_vector.hpp>

#include "model/walk.h"

namespace dfx::model {

int64_t extent_below(const Workload& w, const OpSet& ops_below, int dim,
                     const OpBoxes& boxes) {
  for (size_t o = 0; o < w.ops.size(); ++o)
    if (ops_below[o] && w.ops[o].uses_dim(dim)) {
      const Range& r = boxes[o][static_cast<size_t>(dim)];
      return r.second - r.first;
    }
  return -1;
}

void restrict_and_project(const Workload& w, const OpSet& ops_below, int dim,
                          int64_t lo, int64_t hi, OpBoxes& boxes) {
  for (size_t o = 0; o < w.ops.size(); ++o) {
    if (!ops_below[o] || !w.ops[o].uses_dim(dim)) continue;
    Range& r = boxes[o][static_cast<size_t>(dim)];
    const int64_t base = r.first;
    r = {base + lo, std::min(base + hi, r.second)};
  }
  // Consumers before producers: ops are in topological order, so walk them backwards.
  for (size_t o = w.ops.size(); o-- > 0;) {
    if (!ops_below[o]) continue;
    const Op& prod = w.ops[o];
    const Tensor& t = w.tensors[static_cast<size_t>(prod.out.tensor)];
    // Called for every loop of every candidate the search builds: no allocation for the usual ranks.
    boost::container::small_vector<Range, 6> need(prod.out.index.size(), Range{0, 0});
    bool any = false;
    for (int c : t.consumers) {
      if (!ops_below[static_cast<size_t>(c)]) continue;
      for (const auto& in : w.ops[static_cast<size_t>(c)].inputs) {
        if (in.tensor != prod.out.tensor) continue;
        for (size_t j = 0; j < in.index.size(); ++j) {
          int64_t l = in.index[j].offset, h = in.index[j].offset + 1;
          for (const auto& term : in.index[j].terms) {
            const Range& r = boxes[static_cast<size_t>(c)][static_cast<size_t>(term.dim)];
            l += term.coef * r.first;
            h += term.coef * (r.second - 1);
          }
          if (!any || need[j].first > l) need[j].first = l;
          if (!any || need[j].second < h) need[j].second = h;
          if (j + 1 == in.index.size()) any = true;
        }
      }
    }
    if (!any) continue;
    for (size_t j = 0; j < prod.out.index.size(); ++j) {
      Range& r = boxes[o][static_cast<size_t>(prod.out.index[j].terms[0].dim)];
      r = {std::max(r.first, need[j].first), std::min(r.second, need[j].second)};
      if (r.second < r.first) r.second = r.first;
    }
  }
}

}  // namespace dfx::model
