// lower(): one program per core of the root tile's spatial loops.
#include "mapper/lower.h"

#include "mapper/lower_internal.h"

namespace dfx::mapper {

arch::DType default_dtype(const model::Workload& w) {
  for (const auto& op : w.ops)
    for (const auto& v : op.vector_ops)
      if (v == "exp" || v == "div") return arch::DType::Fp16;
  return arch::DType::Int16;
}

namespace {

// One core's program, its instructions numbered as in the emitted text (one header line, the
// declarations, then the code), so that any message about it points into the file dfx emit
// writes; checked.
arch::Program core_program(const arch::Arch& a, const model::Workload& w, const model::Dataflow& f, const lowering::Skeleton& s,
                           int64_t core, arch::DType dtype) {
  arch::Program p = lowering::plan_program(a, w, f, s, core, dtype);
  lowering::hoist_loads(p.code, a);
  p.core = core, p.cores = s.cores;
  // Lines as dfx emit writes the program: its comment, .dtype (unless int16), .core, the tensors.
  const int declared = 2 + (p.dtype != arch::DType::Int16 ? 1 : 0);
  p.core_line = declared;
  const int first = declared + 1 + static_cast<int>(p.tensors.size());
  for (size_t k = 0; k < p.code.size(); ++k) p.code[k].line = first + static_cast<int>(k);
  arch::check_program(p, a, f.name + " (lowered, core " + std::to_string(core) + ")");
  return p;
}

}  // namespace

void check_lowering(const arch::Arch& a, const model::Workload& w, const model::Dataflow& f, arch::DType dtype) {
  const lowering::Skeleton s = lowering::build_skeleton(a, w, f);
  core_program(a, w, f, s, 0, dtype);
  if (s.cores > 1) core_program(a, w, f, s, s.cores - 1, dtype);
}

Lowered lower(const arch::Arch& a, const model::Workload& w, const model::Dataflow& f, arch::DType dtype) {
  const lowering::Skeleton s = lowering::build_skeleton(a, w, f);
  const int64_t cores = s.cores;
  Lowered out;
  for (int64_t core = 0; core < cores; ++core) out.programs.push_back(core_program(a, w, f, s, core, dtype));
  out.text = "# " + w.name + " on " + a.name + ", dataflow '" + f.name + "', lowered by dfx emit: core 0 of " +
             std::to_string(cores) + " (the others differ only in their DRAM addresses and .core).\n" +
             arch::print_program(out.programs.front(), a);
  return out;
}

}  // namespace dfx::mapper
