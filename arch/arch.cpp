#include "arch/arch.h"

namespace dfx::arch {

const char* role_name(Role r) {
  switch (r) {
    case Role::Left: return "left";
    case Role::Right: return "right";
    case Role::Acc: return "acc";
    case Role::Vector: return "vector";
  }
  return "?";
}

int Arch::level_index(const std::string& n) const {
  for (size_t i = 0; i < levels.size(); ++i)
    if (levels[i].name == n) return static_cast<int>(i);
  return -1;
}

bool Arch::has_direct_path(int from, int to) const {
  for (const auto& p : paths)
    if ((p.from == from && p.to == to) || (p.from == to && p.to == from)) return true;
  return false;
}

bool Arch::encloses(int a, int b) const {
  for (int x = b; x >= 0; x = levels[static_cast<size_t>(x)].parent)
    if (x == a) return true;
  return false;
}

std::vector<int> Arch::route(int from, int to) const {
  std::vector<int> prev(levels.size(), -2);  // -2: not reached; -1: the start
  std::vector<int> queue = {from};
  prev[static_cast<size_t>(from)] = -1;
  for (size_t q = 0; q < queue.size(); ++q)
    for (const auto& path : paths)
      for (auto [x, y] : {std::pair{path.from, path.to}, std::pair{path.to, path.from}})
        if (x == queue[q] && prev[static_cast<size_t>(y)] == -2) {
          prev[static_cast<size_t>(y)] = queue[q];
          queue.push_back(y);
        }
  std::vector<int> r;
  if (prev[static_cast<size_t>(to)] == -2) return r;
  for (int l = to; l != -1; l = prev[static_cast<size_t>(l)]) r.insert(r.begin(), l);
  return r;
}

std::vector<int> Arch::staging_levels(int from, int to) const {
  if (from == to || has_direct_path(from, to)) return {};
  if (std::vector<int> r = paths_declared ? route(from, to) : std::vector<int>{}; !r.empty())
    return std::vector<int>(r.begin() + 1, r.end() - 1);
  const int via = lowest_common_ancestor(from, to);
  if (via == from || via == to) return {};
  return {via};
}

int Arch::lowest_common_ancestor(int a, int b) const {
  for (int x = a; x >= 0; x = levels[static_cast<size_t>(x)].parent)
    if (encloses(x, b)) return x;
  return 0;
}

const ComputeUnit* Arch::unit(UnitKind kind) const {
  for (const auto& u : units)
    if (u.kind == kind) return &u;
  return nullptr;
}

bool Arch::instruction_timed() const {
  for (const auto& u : units)
    if (u.schedule == ComputeUnit::Schedule::Instruction) return true;
  return false;
}


}  // namespace dfx::arch
