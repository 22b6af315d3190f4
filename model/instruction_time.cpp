#include "model/instruction_time.h"

#include "arch/unit_costs.h"
#include "model/matrix_blocking.h"

namespace dfx::model {

InstructionTimes::InstructionTimes(const arch::Arch& a, const Workload& w, const Dataflow& f)
    : a_(a), w_(w), f_(f), ops_(f.nodes.size()), only_(f.nodes.size(), true) {
  decoupled_ = a.instruction_timed();
  for (const TreeNode& leaf : f.nodes) {
    if (!leaf.is_leaf) continue;
    int p = leaf.parent;
    while (p >= 0 && !a.addressable(f.nodes[static_cast<size_t>(p)].levels.front())) p = f.nodes[static_cast<size_t>(p)].parent;
    const arch::ComputeUnit* u = a.unit(w.ops[static_cast<size_t>(leaf.op)].unit);
    if (p < 0 || !u) continue;
    if (u->schedule == arch::ComputeUnit::Schedule::Instruction) ops_[static_cast<size_t>(p)].push_back(leaf.op);
    else only_[static_cast<size_t>(p)] = false;
  }
}

Time InstructionTimes::time(int node, const OpBoxes& boxes, std::vector<double>* per_op, double repeat) const {
  const arch::MemoryLevel& operands = a_.levels[static_cast<size_t>(f_.nodes[static_cast<size_t>(node)].levels.front())];
  Time time;
  for (int o : ops_[static_cast<size_t>(node)]) {
    const Op& op = w_.ops[static_cast<size_t>(o)];
    const arch::ComputeUnit& u = *a_.unit(op.unit);
    std::vector<int64_t> block(w_.dims.size(), 1);
    for (int d : op.dims) {
      const Range& r = boxes[static_cast<size_t>(o)][static_cast<size_t>(d)];
      block[static_cast<size_t>(d)] = r.second - r.first;
    }
    if (op.unit == arch::UnitKind::Matrix) {
      const bool swapped = op.role_of(op.inputs[0].tensor) != arch::Role::Left;
      const MatrixBlocking mb = matrix_blocking(op, op.inputs[swapped ? 1 : 0], op.inputs[swapped ? 0 : 1], block);
      const int64_t one = arch::mma_cycles(u, mb.extent(mb.m, block), mb.extent(mb.n, block), mb.extent(mb.k, block)) + arch::kIssueCycles;
      const double cycles = static_cast<double>(mb.mma_count(block) * one);
      time.then(Time::on_unit(op.unit, cycles, static_cast<double>(mb.mma_count(block))));
      if (per_op) (*per_op)[static_cast<size_t>(o)] += cycles * repeat;
    } else {
      const VectorBlocking vb = vector_blocking(op, block);
      const int sources = op.accumulate == Accumulate::None ? static_cast<int>(op.inputs.size()) : 1;
      const arch::VecOp vop = vector_instruction(op).value_or(arch::VecOp::Add);
      const int64_t one = arch::vector_op_cycles(u, operands, vop, sources, vb.rows(block), vb.row_length(block)) + arch::kIssueCycles;
      const double cycles = static_cast<double>(vb.count(block) * one);
      time.then(Time::on_unit(op.unit, cycles, static_cast<double>(vb.count(block))));
      if (per_op) (*per_op)[static_cast<size_t>(o)] += cycles * repeat;
    }
  }
  return time;
}

}  // namespace dfx::model
