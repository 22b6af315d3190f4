#pragma once
// The simulator's memories: real element values per level instance, addressed by element.
#include <cstdint>
#include <string>
#include <vector>

#include "arch/isa.h"

namespace dfx::sim {

// Loop indices of the enclosing loops when an instruction is dispatched, outermost first.
using LoopIndex = std::vector<int64_t>;

using arch::block_addresses;

// One core's view of memory: its own instance of each per-core level and the chip's shared
// levels. Sizes grow to the highest address a program touches (check_program bounds them).
class Memories {
 public:
  Memories(std::vector<std::vector<double>>* shared, int levels);
  std::vector<double>& level(int l);
  double& at(int l, int64_t address);
  // Makes sure level l holds addresses [0, size).
  void reserve(int l, int64_t size);
  void set_shared(int l, bool shared) { shared_level_[static_cast<size_t>(l)] = shared; }

 private:
  std::vector<std::vector<double>>* shared_;
  std::vector<std::vector<double>> own_;
  std::vector<char> shared_level_;  // char, not bool: read on every access
};

// The most elements the simulator holds for one level (2 GiB of values).
constexpr int64_t kMaxWords = int64_t{1} << 28;

// Grows the memories of `m` to every address `p` can touch. Contract: throws InputError
// (located at `name` and the program's line) when that is more than kMaxWords of a level.
void reserve_for(const arch::Arch& a, const arch::Program& p, const std::string& name, Memories& m);

}  // namespace dfx::sim
