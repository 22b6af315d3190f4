#include "model/workload.h"

#include <map>

#include "arch/unit_costs.h"

namespace dfx::model {

bool TensorAccess::indexes_alike(const TensorAccess& o) const {
  if (index.size() != o.index.size()) return false;
  for (size_t j = 0; j < index.size(); ++j) {
    const AffineIndex &a = index[j], &b = o.index[j];
    if (a.offset != b.offset || a.terms.size() != b.terms.size()) return false;
    for (size_t t = 0; t < a.terms.size(); ++t)
      if (a.terms[t].dim != b.terms[t].dim || a.terms[t].coef != b.terms[t].coef) return false;
  }
  return true;
}

arch::Role Op::role_of(int tensor) const {
  if (unit == arch::UnitKind::Vector) return arch::Role::Vector;
  if (out.tensor == tensor) return arch::Role::Acc;
  return inputs.size() > 0 && inputs[0].tensor == tensor ? arch::Role::Left : arch::Role::Right;
}


int Workload::dim_index(const std::string& n) const {
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i].name == n) return static_cast<int>(i);
  return -1;
}

int Workload::tensor_index(const std::string& n) const {
  for (size_t i = 0; i < tensors.size(); ++i)
    if (tensors[i].name == n) return static_cast<int>(i);
  return -1;
}

int Workload::op_index(const std::string& n) const {
  for (size_t i = 0; i < ops.size(); ++i)
    if (ops[i].name == n) return static_cast<int>(i);
  return -1;
}

std::string Workload::index_text(const AffineIndex& ix) const {
  std::string out;
  for (const auto& t : ix.terms) {
    if (!out.empty()) out += "+";
    out += dims[static_cast<size_t>(t.dim)].name;
    if (t.coef != 1) out += "*" + std::to_string(t.coef);
  }
  if (ix.offset != 0 || out.empty()) out += (out.empty() || ix.offset < 0 ? "" : "+") + std::to_string(ix.offset);
  return out;
}

std::string Workload::access_text(const TensorAccess& a) const {
  std::string out = tensors[static_cast<size_t>(a.tensor)].name + "[";
  for (size_t i = 0; i < a.index.size(); ++i) out += (i ? "," : "") + index_text(a.index[i]);
  return out + "]";
}

int64_t Workload::total_macs() const {
  int64_t total = 0;
  for (const auto& op : ops) {
    int64_t points = 1;
    for (int d : op.dims) points *= dims[static_cast<size_t>(d)].size;
    total += points * op.ops_per_point;
  }
  return total;
}

int64_t Workload::elements(int tensor) const {
  int64_t n = 1;
  for (int64_t extent : tensors[static_cast<size_t>(tensor)].shape) n *= extent;
  return n;
}

int64_t Workload::io_elements() const {
  int64_t n = 0;
  for (size_t t = 0; t < tensors.size(); ++t) n += tensors[t].is_intermediate() ? 0 : elements(static_cast<int>(t));
  return n;
}

std::optional<arch::VecOp> vector_instruction(const Op& x) {
  using arch::VecOp;
  static const std::map<std::string, VecOp> binary = {{"add", VecOp::Add}, {"sub", VecOp::Sub}, {"mul", VecOp::Mul},
                                                      {"div", VecOp::Div}, {"max", VecOp::Max}, {"min", VecOp::Min}};
  if (x.unit != arch::UnitKind::Vector || x.vector_ops.size() != 1) return std::nullopt;
  const std::string& name = x.vector_ops[0];
  if (x.accumulate == Accumulate::Max && x.inputs.size() == 1) return VecOp::RowMax;
  if (x.accumulate == Accumulate::Sum && x.inputs.size() == 1) return VecOp::RowSum;
  if (x.accumulate != Accumulate::None) return std::nullopt;
  if (binary.count(name) && x.inputs.size() == 2) return binary.at(name);
  if (name == "exp" && x.inputs.size() == 1) return VecOp::Exp;
  if (name == "copy" && x.inputs.size() == 1) return VecOp::Copy;
  return std::nullopt;
}

arch::VecOp deepest_vector_op(const Op& x, int64_t lanes) {
  using arch::VecOp;
  static const std::map<std::string, VecOp> kinds = {{"add", VecOp::Add}, {"sub", VecOp::Sub}, {"mul", VecOp::Mul},
                                                     {"div", VecOp::Div}, {"max", VecOp::Max}, {"min", VecOp::Min},
                                                     {"exp", VecOp::Exp}, {"copy", VecOp::Copy}};
  VecOp deepest = VecOp::Add;
  auto consider = [&](VecOp v) {
    if (arch::vector_depth(v, lanes) > arch::vector_depth(deepest, lanes)) deepest = v;
  };
  for (const std::string& name : x.vector_ops)
    if (const auto k = kinds.find(name); k != kinds.end()) consider(k->second);
  // The statement's accumulation is a row reduction ("sum", "max" or "min" above named it).
  if (x.accumulate != Accumulate::None) consider(x.accumulate == Accumulate::Max ? VecOp::RowMax : VecOp::RowSum);
  return deepest;
}

}  // namespace dfx::model
