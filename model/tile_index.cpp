#include "model/tile_index.h"

#include <algorithm>
#include <limits>

namespace dfx::model {

TileIndex::TileIndex(const Workload& w, const OpsBelow& below_nodes) : w_(w), dims_(w.dims.size()) {
  // Counted, then placed: per (node, dim) the ops in their order.
  auto each = [&](auto&& visit) {
    for (size_t n = 0; n < below_nodes.size(); ++n)
      for (size_t o = 0; o < w.ops.size(); ++o)
        if (below_nodes[n][o])
          for (int d : w.ops[o].dims) visit(n * dims_ + static_cast<size_t>(d), static_cast<int>(o));
  };
  users_at_.assign(below_nodes.size() * dims_ + 1, 0);
  each([&](size_t k, int) { ++users_at_[k + 1]; });
  for (size_t k = 1; k < users_at_.size(); ++k) users_at_[k] += users_at_[k - 1];
  users_.resize(users_at_.back());
  std::vector<uint32_t> next(users_at_.begin(), users_at_.end() - 1);
  each([&](size_t k, int o) { users_[next[k]++] = o; });
  // Consumers before producers (ops are in topological order): a producer's box follows its
  // consumers' after they are cut.
  feeds_at_.reserve(below_nodes.size() + 1);
  const auto flat = [&](size_t op, int dim) { return static_cast<uint32_t>(op * dims_ + static_cast<size_t>(dim)); };
  for (size_t n = 0; n < below_nodes.size(); ++n) {
    const OpSet& below = below_nodes[n];
    feeds_at_.push_back(static_cast<uint32_t>(feeds_.size()));
    for (size_t o = w.ops.size(); o-- > 0;) {
      if (!below[o]) continue;
      const TensorAccess& out = w.ops[o].out;
      const auto axes_from = static_cast<uint32_t>(axes_.size());
      for (size_t j = 0; j < out.index.size(); ++j) {
        const auto reads_from = static_cast<uint32_t>(reads_.size());
        for (int c : w.tensors[static_cast<size_t>(out.tensor)].consumers) {
          if (!below[static_cast<size_t>(c)]) continue;
          for (const auto& in : w.ops[static_cast<size_t>(c)].inputs) {
            if (in.tensor != out.tensor) continue;
            const auto terms_from = static_cast<uint32_t>(terms_.size());
            for (const auto& term : in.index[j].terms) terms_.push_back({flat(static_cast<size_t>(c), term.dim), term.coef});
            reads_.push_back({in.index[j].offset, terms_from, static_cast<uint32_t>(terms_.size())});
          }
        }
        if (reads_.size() == reads_from) break;  // no consumer below: not fed here
        const bool plain = std::all_of(reads_.begin() + reads_from, reads_.end(), [&](const AxisRead& r) {
          return r.offset == 0 && r.to == r.from + 1 && terms_[r.from].coef == 1;
        });
        if (plain) {
          const auto plain_from = static_cast<uint32_t>(plain_.size());
          for (size_t i = reads_from; i < reads_.size(); ++i) plain_.push_back(terms_[reads_[i].from].at);
          reads_.resize(reads_from);
          axes_.push_back({flat(o, out.index[j].terms[0].dim), plain_from, static_cast<uint32_t>(plain_.size()), true});
        } else {
          axes_.push_back({flat(o, out.index[j].terms[0].dim), reads_from, static_cast<uint32_t>(reads_.size()), false});
        }
      }
      if (axes_.size() > axes_from) feeds_.push_back({axes_from, static_cast<uint32_t>(axes_.size())});
    }
  }
  feeds_at_.push_back(static_cast<uint32_t>(feeds_.size()));
  note_reached(below_nodes.size());
}

void TileIndex::note_reached(size_t nodes) {
  std::vector<char> changed(w_.ops.size() * dims_);
  auto reads_changed = [&](const FedAxis& axis) {
    if (axis.plain) return std::any_of(plain_.begin() + axis.from, plain_.begin() + axis.to, [&](uint32_t at) { return changed[at] != 0; });
    for (uint32_t i = axis.from; i < axis.to; ++i)
      for (uint32_t t = reads_[i].from; t < reads_[i].to; ++t)
        if (changed[terms_[t].at]) return true;
    return false;
  };
  reached_at_.reserve(nodes * dims_ + 1);
  for (size_t n = 0; n < nodes; ++n)
    for (size_t d = 0; d < dims_; ++d) {
      reached_at_.push_back(static_cast<uint32_t>(reached_.size()));
      std::fill(changed.begin(), changed.end(), 0);
      for (int o : ops_using(static_cast<int>(n), static_cast<int>(d))) changed[static_cast<size_t>(o) * dims_ + d] = 1;
      // In the order restrict() takes them: an axis reads only ranges final before it.
      for (uint32_t k = feeds_at_[n]; k < feeds_at_[n + 1]; ++k)
        for (uint32_t x = feeds_[k].from; x < feeds_[k].to; ++x)
          if (changed[axes_[x].out] || reads_changed(axes_[x])) reached_.push_back(x), changed[axes_[x].out] = 1;
    }
  reached_at_.push_back(static_cast<uint32_t>(reached_.size()));
}

int64_t TileIndex::extent(int node, int dim, const OpBoxes& boxes) const {
  const Users users = ops_using(node, dim);
  if (users.empty()) return -1;
  const Range& r = boxes[static_cast<size_t>(*users.begin())][static_cast<size_t>(dim)];
  return r.second - r.first;
}

bool TileIndex::steps_alike(int node, int dim, const OpBoxes& boxes, int64_t chunk, int64_t full) const {
  // A fused producer's box follows what its consumers read.
  if (feeds_at_[static_cast<size_t>(node)] != feeds_at_[static_cast<size_t>(node) + 1]) return false;
  for (int o : ops_using(node, dim)) {
    const Range& r = boxes[static_cast<size_t>(o)][static_cast<size_t>(dim)];
    if (r.second - r.first < full * chunk) return false;
  }
  return true;
}

void TileIndex::cut_users(int node, int dim, int64_t lo, int64_t hi, OpBoxes& boxes) const {
  for (int o : ops_using(node, dim)) {
    Range& r = boxes[static_cast<size_t>(o)][static_cast<size_t>(dim)];
    const int64_t base = r.first;
    r = {base + lo, std::min(base + hi, r.second)};
  }
}

__attribute__((always_inline)) inline void TileIndex::cut_axis(const FedAxis& axis, Range* flat) const {
  int64_t need_lo = std::numeric_limits<int64_t>::max(), need_hi = std::numeric_limits<int64_t>::min();
  if (axis.plain) {  // offset 0, coefficient 1: the reads' own ranges
    for (uint32_t i = axis.from; i < axis.to; ++i) {
      const Range& r = flat[plain_[i]];
      need_lo = std::min(need_lo, r.first), need_hi = std::max(need_hi, r.second);
    }
  } else {
    for (uint32_t i = axis.from; i < axis.to; ++i) {
      const AxisRead& read = reads_[i];
      int64_t l = read.offset, h = read.offset + 1;
      for (uint32_t t = read.from; t < read.to; ++t) {
        const Range& r = flat[terms_[t].at];
        l += terms_[t].coef * r.first;
        h += terms_[t].coef * (r.second - 1);
      }
      need_lo = std::min(need_lo, l), need_hi = std::max(need_hi, h);
    }
  }
  Range& r = flat[axis.out];
  r = {std::max(r.first, need_lo), std::min(r.second, need_hi)};
  if (r.second < r.first) r.second = r.first;
}

void TileIndex::restrict(int node, int dim, int64_t lo, int64_t hi, OpBoxes& boxes) const {
  cut_users(node, dim, lo, hi, boxes);
  // Each fed axis cut to the hull of what its consumers read (restrict_and_project's need).
  Range* const flat = boxes[0];
  for (uint32_t k = feeds_at_[static_cast<size_t>(node)]; k < feeds_at_[static_cast<size_t>(node) + 1]; ++k)
    for (uint32_t x = feeds_[k].from; x < feeds_[k].to; ++x) cut_axis(axes_[x], flat);
}

void TileIndex::restrict_projected(int node, int dim, int64_t lo, int64_t hi, OpBoxes& boxes) const {
  cut_users(node, dim, lo, hi, boxes);
  Range* const flat = boxes[0];
  const size_t k = static_cast<size_t>(node) * dims_ + static_cast<size_t>(dim);
  for (uint32_t i = reached_at_[k]; i < reached_at_[k + 1]; ++i) cut_axis(axes_[reached_[i]], flat);
}

}  // namespace dfx::model
