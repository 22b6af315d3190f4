#include "mapper/template_levels.h"

#include <algorithm>
#include <string>

#include "arch/errors.h"

namespace dfx::mapper {
namespace {

// The on-chip levels a program addresses per core (or per chip): where the template tiles.
std::vector<int> per_core_levels(const arch::Arch& a) {
  const int64_t per_core = a.cores * a.sub_cores;
  std::vector<int> out;
  for (size_t l = 1; l < a.levels.size(); ++l)
    if (a.levels[l].instances <= per_core) out.push_back(static_cast<int>(l));
  if (out.empty())
    throw InputError(a.levels[0].loc, "arch '" + a.name + "' has no on-chip buffer level (one per chip or core) to tile into");
  return out;
}

int depth(const arch::Arch& a, int level) {
  int d = 0;
  for (int l = a.levels[static_cast<size_t>(level)].parent; l >= 0; l = a.levels[static_cast<size_t>(l)].parent) ++d;
  return d;
}

// The deepest of `levels` that may hold `role`; for the cube's roles one the vector unit does not
// work on, where there is one (L0C rather than UB for results).
int innermost_holding(const arch::Arch& a, const std::vector<int>& levels, arch::Role role) {
  auto holds = [&](int l, arch::Role r) { return a.levels[static_cast<size_t>(l)].holds[static_cast<int>(r)]; };
  std::vector<int> fit;
  for (int l : levels)
    if (holds(l, role)) fit.push_back(l);
  if (fit.empty())
    throw InputError(a.levels[static_cast<size_t>(levels.back())].loc,
                     "arch '" + a.name + "' has no on-chip level that holds " + arch::role_name(role) +
                         " operands: the mapper's template has nowhere to put them");
  if (role != arch::Role::Vector && std::any_of(fit.begin(), fit.end(), [&](int l) { return !holds(l, arch::Role::Vector); }))
    fit.erase(std::remove_if(fit.begin(), fit.end(), [&](int l) { return holds(l, arch::Role::Vector); }), fit.end());
  return *std::max_element(fit.begin(), fit.end(), [&](int x, int y) { return depth(a, x) < depth(a, y) || (depth(a, x) == depth(a, y) && x < y); });
}

// The levels of `on_chip` one per chip, holding every role, that `level`'s data passes through
// from DRAM.
std::vector<int> shared_above(const arch::Arch& a, const std::vector<int>& on_chip, int level) {
  std::vector<int> out;
  for (int l = a.levels[static_cast<size_t>(level)].parent; l > 0; l = a.levels[static_cast<size_t>(l)].parent) {
    const auto& lv = a.levels[static_cast<size_t>(l)];
    const bool holds_all = std::all_of(std::begin(lv.holds), std::end(lv.holds), [](bool h) { return h; });
    if (lv.instances == 1 && holds_all && std::find(on_chip.begin(), on_chip.end(), l) != on_chip.end()) out.insert(out.begin(), l);
  }
  return out;
}

}  // namespace

TemplateLevels template_levels(const arch::Arch& a, bool matrix_ops, bool vector_ops) {
  const std::vector<int> on_chip = per_core_levels(a);
  TemplateLevels t;
  const arch::ComputeUnit* matrix = a.unit(arch::UnitKind::Matrix);
  if (matrix)
    for (size_t l = static_cast<size_t>(on_chip.back()) + 1; l < a.levels.size(); ++l)
      if (a.levels[l].instances == matrix->total_pes()) t.registers = static_cast<int>(l);
  const auto& innermost = a.levels[static_cast<size_t>(on_chip.back())];
  if (std::all_of(std::begin(innermost.holds), std::end(innermost.holds), [](bool h) { return h; })) {
    t.group = t.matrix_op = t.vector_op = {on_chip.back()};  // one buffer for everything
    t.handover = shared_above(a, on_chip, on_chip.back());
    return t;
  }
  if (matrix && matrix_ops) {
    for (arch::Role r : {arch::Role::Left, arch::Role::Right, arch::Role::Acc}) {
      const int l = innermost_holding(a, on_chip, r);
      if (std::find(t.matrix_op.begin(), t.matrix_op.end(), l) == t.matrix_op.end()) t.matrix_op.push_back(l);
    }
    std::sort(t.matrix_op.begin(), t.matrix_op.end());
    const int left = innermost_holding(a, on_chip, arch::Role::Left);
    const int staging = a.levels[static_cast<size_t>(left)].parent;
    if (std::find(on_chip.begin(), on_chip.end(), staging) != on_chip.end()) t.matrix_staging = staging;
  }
  if (vector_ops) t.vector_op = {innermost_holding(a, on_chip, arch::Role::Vector)};
  // The group's tile: every other on-chip level (L1 and UB on ascend_like), where operands
  // stage and intermediates wait between the units.
  for (int l : on_chip)
    if (std::find(t.matrix_op.begin(), t.matrix_op.end(), l) == t.matrix_op.end()) t.group.push_back(l);
  if (t.group.empty()) t.group = {on_chip.front()};
  t.handover = shared_above(a, on_chip, t.group.front());
  for (int l : t.group) t.handover.erase(std::remove(t.handover.begin(), t.handover.end(), l), t.handover.end());
  return t;
}

}  // namespace dfx::mapper
