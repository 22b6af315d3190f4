#include "model/tree_shape.h"

#include <map>
#include <tuple>

#include "model/held.h"

namespace dfx::model {

TreeShape::TreeShape(const arch::Arch& a, const Workload& w, const Dataflow& f) : TreeShape(w, f, place(a, w, f)) {}

TreeShape::TreeShape(const Workload& w, const Dataflow& f, Placement p)
    : placement(std::move(p)),
      index(w, placement.ops_below),
      accesses(w, f, placement),
      buffers_below(owners_below(w, f, placement)),
      subtree_end(subtree_ends(f)),
      own_op(own_ops(f)),
      scan_basis(model::scan_basis(w)),
      boxes(accesses_are_boxes(w)),
      plain_boxes(boxes && accesses_are_plain_boxes(w)),
      owned(f.nodes.size()),
      fused(f.nodes.size()),
      source_anchors(model::source_anchors(w, f, placement)),
      buffer_class(f.nodes.size() * w.tensors.size(), -1) {
  std::map<std::tuple<size_t, int, int, bool>, int> classes;
  for (size_t i = 0; i < f.nodes.size(); ++i)
    for (size_t t = 0; t < w.tensors.size(); ++t) {
      const TensorPlacement& tp = placement.tensors[t];
      const auto key = std::make_tuple(t, tp.level[i], tp.source[i], static_cast<bool>(tp.writes[i]));
      buffer_class[i * w.tensors.size() + t] = classes.emplace(key, static_cast<int>(classes.size())).first->second;
    }
  buffer_classes = classes.size();
  for (size_t t = 0; t < w.tensors.size(); ++t) {
    const TensorPlacement& tp = placement.tensors[t];
    for (size_t i = 0; i < f.nodes.size(); ++i)
      if (tp.owner[i]) owned[i].push_back(static_cast<int>(t));
    if (w.tensors[t].is_intermediate()) fused[static_cast<size_t>(tp.region)].push_back(static_cast<int>(t));
  }
}

ShapeKey shape_key(const Dataflow& f) {
  size_t words = 1;
  for (const TreeNode& n : f.nodes) words += 5 + n.levels.size() + 2 * n.keep.size();
  KeyWriter key(words);
  key.push(static_cast<int64_t>(f.nodes.size()));
  // Each list is preceded by its length, so two different shapes never flatten alike; a node's
  // children follow from the parents.
  for (const TreeNode& n : f.nodes) {
    key.push(n.is_leaf), key.push(n.op), key.push(n.parent);
    key.push(static_cast<int64_t>(n.levels.size()));
    for (int lv : n.levels) key.push(lv);
    key.push(static_cast<int64_t>(n.keep.size()));
    for (const auto& [tensor, level] : n.keep) key.push(tensor), key.push(level);
  }
  return key.done();
}

size_t ShapeCache::Hash::operator()(const ShapeKey& k) const { return static_cast<size_t>(k.hash); }

std::shared_ptr<const TreeShape> ShapeCache::shape(const arch::Arch& a, const Workload& w, const Dataflow& f) {
  ShapeKey key = shape_key(f);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = entries_.find(key); it != entries_.end()) return it->second;
  }
  auto placed = std::make_shared<const TreeShape>(a, w, f);
  std::lock_guard<std::mutex> lock(mutex_);
  if (entries_.size() >= kMaxEntries) entries_.clear();
  entries_.emplace(std::move(key), placed);
  return placed;
}

const CompulsoryBytes& ShapeCache::compulsory(const arch::Arch& a, const Workload& w) {
  std::call_once(compulsory_once_, [&] { compulsory_ = compulsory_bytes(a, w); });
  return compulsory_;
}

size_t ShapeCache::size() {
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_.size();
}

}  // namespace dfx::model
