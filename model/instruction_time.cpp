#include "model/instruction_time.h"

#include <optional>

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

void InstructionTimes::block_of(int op, const OpBoxes& boxes, std::vector<int64_t>& block) const {
  block.assign(w_.dims.size(), 1);
  for (int d : w_.ops[static_cast<size_t>(op)].dims) {
    const Range& r = boxes[static_cast<size_t>(op)][static_cast<size_t>(d)];
    block[static_cast<size_t>(d)] = r.second - r.first;
  }
}

Time InstructionTimes::time(int node, const OpBoxes& boxes, std::vector<double>* per_op, double repeat) const {
  if (last_.empty()) last_.resize(ops_.size());
  Last& last = last_[static_cast<size_t>(node)];
  // The extents of every op of the tile over its dims, one after another: the key of the last
  // timing (the ops and their dims are the node's, always the same).
  thread_local std::vector<int64_t> blocks;
  blocks.clear();
  for (int o : ops_[static_cast<size_t>(node)])
    for (int d : w_.ops[static_cast<size_t>(o)].dims) {
      const Range& r = boxes[static_cast<size_t>(o)][static_cast<size_t>(d)];
      blocks.push_back(r.second - r.first);
    }
  if (last.cycles.empty() || blocks != last.blocks) {
    last.time = time_anew(node, boxes, last.cycles);
    last.blocks = blocks;
  }
  if (per_op) {
    const std::vector<int>& ops = ops_[static_cast<size_t>(node)];
    for (size_t k = 0; k < ops.size(); ++k) (*per_op)[static_cast<size_t>(ops[k])] += last.cycles[k] * repeat;
  }
  return last.time;
}

Time InstructionTimes::time_anew(int node, const OpBoxes& boxes, std::vector<double>& op_cycles) const {
  const arch::MemoryLevel& operands = a_.levels[static_cast<size_t>(f_.nodes[static_cast<size_t>(node)].levels.front())];
  Time time;
  op_cycles.clear();
  std::vector<int64_t> block;
  for (int o : ops_[static_cast<size_t>(node)]) {
    const Op& op = w_.ops[static_cast<size_t>(o)];
    const arch::ComputeUnit& u = *a_.unit(op.unit);
    block_of(o, boxes, block);
    if (op.unit == arch::UnitKind::Matrix) {
      const bool swapped = op.role_of(op.inputs[0].tensor) != arch::Role::Left;
      const MatrixBlocking mb = matrix_blocking(op, op.inputs[swapped ? 1 : 0], op.inputs[swapped ? 0 : 1], block);
      const int64_t one = arch::mma_cycles(u, mb.extent(mb.m, block), mb.extent(mb.n, block), mb.extent(mb.k, block)) + arch::kIssueCycles;
      const double cycles = static_cast<double>(mb.mma_count(block) * one);
      time.then(Time::on_unit(op.unit, cycles, static_cast<double>(mb.mma_count(block))));
      op_cycles.push_back(cycles);
    } else {
      const VectorBlocking vb = vector_blocking(op, block);
      const int sources = op.accumulate == Accumulate::None ? static_cast<int>(op.inputs.size()) : 1;
      const std::optional<arch::VecOp> single = vector_instruction(op);
      // A statement of several operations (exp(D) * 3 + 1, or a sum of products of three) takes
      // one instruction per operation over the block, as the walk elsewhere charges each point
      // its ops_per_point; timed as one, it ran faster than the lanes can (the lowering maps one
      // operation to one instruction and refuses such statements).
      const int64_t passes = single ? 1 : op.ops_per_point;
      const arch::VecOp vop = single ? *single : deepest_vector_op(op, u.pes_per_instance);
      const int64_t one = arch::vector_op_cycles(u, operands, vop, sources, vb.rows(block), vb.row_length(block)) + arch::kIssueCycles;
      const double instructions = static_cast<double>(vb.count(block) * passes);
      const double cycles = static_cast<double>(vb.count(block) * passes * one);
      time.then(Time::on_unit(op.unit, cycles, instructions));
      op_cycles.push_back(cycles);
    }
  }
  return time;
}

}  // namespace dfx::model
