#include "mapper/pe_axes.h"

#include <algorithm>
#include <functional>

namespace dfx::mapper {

PeAxes PeAxes::geometric(std::vector<int64_t> unit_axes, int64_t sub_cores) {
  PeAxes p;
  p.sizes_ = std::move(unit_axes);
  if (sub_cores > 1) p.sizes_.push_back(sub_cores), p.sub_cores_ = sub_cores;
  p.ways_ = static_cast<int>(p.sizes_.size());
  return p;
}

PeAxes PeAxes::count(int ways, int64_t pes) {
  PeAxes p;
  p.ways_ = ways;
  p.pes_ = pes;
  return p;
}

bool PeAxes::place(const Factors& factors, size_t skip, Axes& free_axes) const {
  Axes wanted;
  for (size_t i = 0; i < factors.size(); ++i)
    if (i != skip && factors[i] > 1) wanted.push_back(factors[i]);
  // Largest factor first, each on the smallest free axis that holds it: if any assignment
  // fits, this one does, and it leaves the largest axes free that any fitting assignment can.
  std::sort(wanted.begin(), wanted.end(), std::greater<>());
  boost::container::small_vector<char, 8> taken(sizes_.size(), 0);
  for (int64_t f : wanted) {
    size_t best = sizes_.size();
    for (size_t a = 0; a < sizes_.size(); ++a)
      if (!taken[a] && sizes_[a] >= f && (best == sizes_.size() || sizes_[a] < sizes_[best])) best = a;
    if (best == sizes_.size()) return false;
    taken[best] = 1;
  }
  free_axes.clear();
  for (size_t a = 0; a < sizes_.size(); ++a)
    if (!taken[a]) free_axes.push_back(sizes_[a]);
  return true;
}

bool PeAxes::fits(const Factors& factors) const {
  if (sizes_.empty()) {
    int used = 0;
    int64_t pes = 1;
    for (int64_t f : factors) used += f > 1, pes *= f;
    return used <= ways_ && pes <= pes_;
  }
  Axes free_axes;
  return place(factors, factors.size(), free_axes);
}

int64_t PeAxes::room(const Factors& factors, size_t i) const {
  if (sizes_.empty()) {
    int used = 0;
    int64_t pes = 1;
    for (size_t j = 0; j < factors.size(); ++j)
      if (j != i) used += factors[j] > 1, pes *= factors[j];
    return used >= ways_ ? 1 : std::max<int64_t>(1, pes_ / pes);
  }
  Axes free_axes;
  if (!place(factors, i, free_axes) || free_axes.empty()) return 1;
  return *std::max_element(free_axes.begin(), free_axes.end());
}

PeAxes PeAxes::shared_by(int sharing) const {
  PeAxes p = *this;
  if (sharing <= 1) return p;
  if (sizes_.empty()) {
    p.pes_ = std::max<int64_t>(1, pes_ / sharing);
    return p;
  }
  const bool by_sub_cores = sub_cores_ >= sharing;
  int64_t& axis = by_sub_cores ? p.sizes_.back() : p.sizes_.front();
  axis = std::max<int64_t>(1, axis / sharing);
  if (by_sub_cores) p.sub_cores_ = axis;
  return p;
}

std::string PeAxes::describe() const {
  if (sizes_.empty())
    return std::to_string(pes_) + " PEs (at most " + std::to_string(ways_) + " spatial loops)";
  std::string out = "axes ";
  for (size_t a = 0; a < sizes_.size(); ++a) out += (a ? " × " : "") + std::to_string(sizes_[a]);
  if (sub_cores_ > 1) out += " sub-cores";
  return out + " (one spatial loop on each, up to its size)";
}

std::vector<int64_t> PeAxes::key() const {
  std::vector<int64_t> k = sizes_;
  k.insert(k.end(), {sub_cores_, ways_, pes_, static_cast<int64_t>(sizes_.size())});
  return k;
}

}  // namespace dfx::mapper
