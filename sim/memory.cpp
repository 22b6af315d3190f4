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

void reserve_for(const arch::Program& p, Memories& m) {
  auto grow = [&](const arch::MemRef& r, const std::vector<int64_t>& counts) {
    if (r.level >= 0) m.reserve(r.level, address_range(r, counts).second + 1);
  };
  std::vector<int64_t> counts;
  for (const arch::TensorDecl& t : p.tensors) grow(t.at, counts);
  for (const arch::Instruction& i : p.code) {
    if (i.op == arch::Opcode::Loop) counts.push_back(i.count);
    if (i.op == arch::Opcode::EndLoop && !counts.empty()) counts.pop_back();
    grow(i.dst, counts), grow(i.a, counts), grow(i.b, counts);
  }
}

}  // namespace dfx::sim
