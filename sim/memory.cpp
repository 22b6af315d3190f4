// Memories and block addressing.
#include "sim/memory.h"

namespace dfx::sim {

Memories::Memories(std::vector<std::vector<double>>* shared, int levels)
    : shared_(shared), own_(static_cast<size_t>(levels)), shared_level_(static_cast<size_t>(levels), false) {}

std::vector<double>& Memories::level(int l) {
  const auto i = static_cast<size_t>(l);
  return shared_level_[i] ? (*shared_)[i] : own_[i];
}

double& Memories::at(int l, int64_t address) { return level(l)[static_cast<size_t>(address)]; }

void Memories::reserve(int l, int64_t size) {
  auto& v = level(l);
  if (static_cast<int64_t>(v.size()) < size) v.resize(static_cast<size_t>(size), 0.0);
}

void reserve_for(const arch::Arch& a, const arch::Program& p, const std::string& name, Memories& m) {
  auto grow = [&](const arch::MemRef& r, const std::vector<int64_t>& counts, int line) {
    if (r.level < 0) return;
    const int64_t size = address_range(r, counts).second + 1;
    // Levels are held in memory, DRAM too (its capacity is unlimited in the arch): a program
    // that reaches far would take the machine's memory, or hang in the attempt.
    if (size > kMaxWords)
      throw InputError(SourceLoc{name, line, line > 0 ? 1 : 0, ""},
                       "this reaches element " + std::to_string(size - 1) + " of '" + a.levels[static_cast<size_t>(r.level)].name +
                           "'; the simulator holds each level in memory, at most " + std::to_string(kMaxWords) + " elements");
    m.reserve(r.level, size);
  };
  std::vector<int64_t> counts;
  for (const arch::TensorDecl& t : p.tensors) grow(t.at, counts, t.line);
  for (const arch::Instruction& i : p.code) {
    if (i.op == arch::Opcode::Loop) counts.push_back(i.count);
    if (i.op == arch::Opcode::EndLoop && !counts.empty()) counts.pop_back();
    grow(i.dst, counts, i.line), grow(i.a, counts, i.line), grow(i.b, counts, i.line);
  }
}

}  // namespace dfx::sim
