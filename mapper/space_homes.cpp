// Where an op's output waits for the later groups that read it (Choice::home): DRAM, or an
// on-chip level one per chip above the groups' buffer (TemplateLevels::handover, cloud's L2).
#include <algorithm>

#include "mapper/space.h"

namespace dfx::mapper {

int Space::draw_gene(int first, int last, bool homes, Rng& rng) const {
  if (!homes || levels_.handover.empty()) return std::uniform_int_distribution<int>(first, last)(rng);
  const int gene = std::uniform_int_distribution<int>(first, last + 1)(rng);
  return gene == last + 1 ? 7 : gene;
}

std::vector<size_t> Space::handover_ops(const Choice& c) const {
  std::vector<size_t> out;
  for (size_t o = 0; o < w_.ops.size(); ++o)
    for (int r : w_.tensors[static_cast<size_t>(w_.ops[o].out.tensor)].consumers)
      if (c.group_of[static_cast<size_t>(r)] != c.group_of[o]) {
        out.push_back(o);
        break;
      }
  return out;
}

void Space::pick_homes(Choice& c, Rng& rng) const {
  c.home.assign(w_.ops.size(), 0);
  for (size_t o : handover_ops(c))
    if (chance(rng, 0.5))
      c.home[o] = std::uniform_int_distribution<int>(1, static_cast<int>(levels_.handover.size()))(rng);
  fit_homes(c);
}

void Space::fit_homes(Choice& c) const {
  if (c.home.empty()) return pin_homes(c);
  std::vector<int> home(w_.ops.size(), 0);
  for (size_t o : handover_ops(c)) home[o] = o < c.home.size() ? c.home[o] : 0;
  c.home = std::all_of(home.begin(), home.end(), [](int h) { return h == 0; }) ? std::vector<int>{} : home;
  pin_homes(c);
}

}  // namespace dfx::mapper
