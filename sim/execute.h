#pragma once
// What an instruction does to data (the functional half of the simulator; timing is elsewhere).
#include <Eigen/Core>
#include <vector>

#include "arch/isa.h"
#include "sim/memory.h"

namespace dfx::sim {

class Executor {
 public:
  explicit Executor(arch::DType t) : type_(t) {}
  // Applies a dma, mma or vec instruction at the given loop indices.
  void run(const arch::Instruction& i, const LoopIndex& idx, Memories& m);

 private:
  arch::DType type_;
  std::vector<int64_t> dst_, a_, b_;  // element addresses, reused between instructions
  std::vector<double> result_;
  Eigen::MatrixXd ad_, bd_, cd_;  // integer products (exact in double)
  Eigen::MatrixXf af_, bf_, cf_;  // float products

  void mma(const arch::Instruction& i, bool accumulate, Memories& m);
  void vec(const arch::Instruction& i, Memories& m);
};

}  // namespace dfx::sim
