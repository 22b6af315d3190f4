// workload.yaml → Workload: parse statements, infer shapes, build and sort the operator DAG.
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/topological_sort.hpp>
#include <algorithm>
#include <map>

#include "arch/config.h"
#include "model/workload.h"

namespace dfx::model {
namespace {

int64_t index_extent(const Workload& w, const AffineIndex& ix) {
  int64_t hi = ix.offset;
  for (const auto& t : ix.terms) hi += t.coef * (w.dims[static_cast<size_t>(t.dim)].size - 1);
  return hi + 1;
}

void collect_dims(Op& op) {
  auto add = [&](const TensorAccess& a) {
    for (const auto& ix : a.index)
      for (const auto& t : ix.terms)
        if (!op.uses_dim(t.dim)) op.dims.push_back(t.dim);
  };
  add(op.out);
  for (const auto& in : op.inputs) add(in);
  for (int d : op.dims) {
    bool in_out = false;
    for (const auto& ix : op.out.index)
      for (const auto& t : ix.terms) in_out |= t.dim == d;
    if (!in_out) op.reduction_dims.push_back(d);
  }
}

void check_output_index(const Workload& w, const Op& op, Diagnostics& diag) {
  for (const auto& ix : op.out.index)
    if (ix.terms.size() != 1 || ix.terms[0].coef != 1 || ix.offset != 0)
      diag.add(op.loc, "output index '" + w.index_text(ix) + "' of op '" + op.name +
                           "' must be a plain dimension name");
  if (op.accumulate == Accumulate::None && !op.reduction_dims.empty())
    diag.add(op.loc, "op '" + op.name + "' uses '=' but has reduction dimension '" +
                         w.dims[static_cast<size_t>(op.reduction_dims[0])].name +
                         "': write '+=' or 'max='");
}

// Every access of a tensor must agree on its shape; the producer's, if any, is the reference.
void infer_shapes(Workload& w, Diagnostics& diag) {
  std::map<int, std::pair<std::string, std::vector<int64_t>>> seen;
  auto visit = [&](const Op& op, const TensorAccess& a) {
    std::vector<int64_t> shape;
    for (const auto& ix : a.index) {
      // Dims start at 0 and coefficients are positive: the offset is the least value it takes.
      if (ix.offset < 0) {
        diag.add(op.loc, "index '" + w.index_text(ix) + "' of tensor '" + w.tensors[static_cast<size_t>(a.tensor)].name +
                             "' in op '" + op.name + "' reaches " + std::to_string(ix.offset) +
                             ": indices start at 0 (shift the other accesses by as much instead)");
        return;
      }
      shape.push_back(index_extent(w, ix));
    }
    auto it = seen.find(a.tensor);
    if (it == seen.end()) {
      seen[a.tensor] = {op.name, shape};
      w.tensors[static_cast<size_t>(a.tensor)].shape = shape;
      return;
    }
    if (it->second.second == shape) return;
    auto fmt = [](const std::vector<int64_t>& s) {
      std::string o = "[";
      for (size_t i = 0; i < s.size(); ++i) o += (i ? "," : "") + std::to_string(s[i]);
      return o + "]";
    };
    diag.add(op.loc, "shape mismatch for tensor '" + w.tensors[static_cast<size_t>(a.tensor)].name +
                         "': " + fmt(shape) + " in op '" + op.name + "' but " +
                         fmt(it->second.second) + " in op '" + it->second.first + "'");
  };
  for (const auto& op : w.ops) visit(op, op.out);
  for (const auto& op : w.ops)
    for (const auto& in : op.inputs) visit(op, in);
}

void link_tensors(Workload& w, Diagnostics& diag) {
  for (size_t i = 0; i < w.ops.size(); ++i) {
    auto& t = w.tensors[static_cast<size_t>(w.ops[i].out.tensor)];
    if (t.producer >= 0)
      diag.add(w.ops[i].loc, "tensor '" + t.name + "' is produced by both '" +
                                 w.ops[static_cast<size_t>(t.producer)].name + "' and '" +
                                 w.ops[i].name + "'");
    else
      t.producer = static_cast<int>(i);
    for (const auto& in : w.ops[i].inputs) {
      auto& c = w.tensors[static_cast<size_t>(in.tensor)].consumers;
      if (c.empty() || c.back() != static_cast<int>(i)) c.push_back(static_cast<int>(i));
    }
  }
}

// Reorders ops topologically with Boost.Graph; reports a cycle instead of looping.
void sort_ops(Workload& w, Diagnostics& diag) {
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
  Graph g(w.ops.size());
  for (size_t i = 0; i < w.ops.size(); ++i)
    for (const auto& in : w.ops[i].inputs) {
      int p = w.tensors[static_cast<size_t>(in.tensor)].producer;
      if (p >= 0) boost::add_edge(static_cast<size_t>(p), i, g);
    }
  std::vector<size_t> order;
  try {
    boost::topological_sort(g, std::back_inserter(order));
  } catch (const boost::not_a_dag&) {
    diag.add(w.ops.empty() ? SourceLoc{} : w.ops[0].loc,
             "the operators form a cycle (a tensor depends on itself)");
    return;
  }
  std::vector<Op> sorted;
  for (auto it = order.rbegin(); it != order.rend(); ++it) sorted.push_back(w.ops[*it]);
  w.ops = sorted;
  for (auto& t : w.tensors) t.producer = -1, t.consumers.clear();
  Diagnostics ignore;
  link_tensors(w, ignore);
}

void read_dims(MapReader& r, Workload& w, Diagnostics& diag) {
  ConfigNode dims = r.child("dims");
  if (!dims.is_map() || dims.entries().empty()) {
    diag.add(dims.loc(), "dims must be a mapping of dimension name to size, e.g. {m: 512}");
    return;
  }
  for (const auto& [name, size] : dims.entries()) {
    if (w.dims.size() == kMaxDims)  // the analysis keeps sets of dims as 64-bit masks
      diag.add(size.loc(), "dimension '" + name + "' is one too many: a workload has at most " + std::to_string(kMaxDims) + " (" +
                               std::to_string(dims.entries().size()) + " given)");
    if (w.dim_index(name) >= 0) diag.add(size.loc(), "duplicate dimension '" + name + "'");
    const int64_t v = parse_integer(size, diag, 1).value_or(1);
    if (v > (int64_t{1} << 31)) diag.add(size.loc(), "dimension '" + name + "' is larger than 2^31");
    w.dims.push_back(Dim{name, std::min<int64_t>(v, int64_t{1} << 31)});
  }
}

void read_ops(MapReader& r, Workload& w, Diagnostics& diag) {
  ConfigNode ops = r.child("ops");
  if (!ops.is_seq() || ops.items().empty()) {
    diag.add(ops.loc(), "ops must be a non-empty list of statements");
    return;
  }
  for (const auto& item : ops.items()) {
    Op op;
    op.loc = item.loc();
    std::string text;
    SourceLoc text_at = item.loc();
    bool given = true;  // a missing expr is reported by the reader
    if (item.is_scalar()) {
      text = item.scalar();
    } else {
      MapReader opr(item, diag);
      op.name = opr.str_or("name", "");
      given = item.has("expr");
      if (given) text_at = item["expr"].loc();
      text = opr.str("expr", true).value_or("");
      opr.finish();
    }
    if (text.empty()) {
      // Skipped in silence, it would drop the op and make its output a workload input.
      if (given) diag.add(text_at, "empty statement: an op needs one, e.g. 'C[m,n] += A[m,k] * B[k,n]'");
      continue;
    }
    op.expr = text;
    if (!parse_statement(text, op.loc, w, op, diag)) continue;
    if (op.name.empty()) op.name = w.tensors[static_cast<size_t>(op.out.tensor)].name;
    if (w.op_index(op.name) >= 0) diag.add(op.loc, "duplicate op name '" + op.name + "'");
    collect_dims(op);
    check_output_index(w, op, diag);
    double points = 1;  // counts are 64-bit integers: keep every op's iteration space well inside
    for (int d : op.dims) points *= static_cast<double>(w.dims[static_cast<size_t>(d)].size);
    if (points > 9.0e15)
      diag.add(op.loc, "op '" + op.name + "' iterates over more points than dfx counts exactly (9e15)");
    w.ops.push_back(op);
  }
}

Workload build(const ConfigNode& root) {
  Diagnostics diag;
  Workload w;
  MapReader r(root, diag);
  if (!r.ok()) diag.throw_if_any();
  w.name = r.str("name", true).value_or("?");
  read_dims(r, w, diag);
  if (diag.empty()) read_ops(r, w, diag);
  else r.child("ops");  // not read past bad dims, but not unknown either
  r.finish();
  diag.throw_if_any();
  infer_shapes(w, diag);
  link_tensors(w, diag);
  diag.throw_if_any();
  sort_ops(w, diag);
  diag.throw_if_any();
  return w;
}

}  // namespace

Workload load_workload(const std::string& path) { return build(ConfigNode::load_file(path)); }

Workload load_workload(const std::string& path, const std::vector<Override>& changes) {
  return build(ConfigNode::load_file(path, changes));
}

Workload load_workload_from_string(const std::string& text, const std::string& name) {
  return build(ConfigNode::load_string(text, name));
}

}  // namespace dfx::model
