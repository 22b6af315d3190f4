// Reference evaluation. Offsets are affine in the dims, so each access's address is a sum of
// per-dim-group offsets computed once per group of dims (batch, rows, columns, reduction).
#include "verify/reference.h"

#include <Eigen/Core>

#include "sim/values.h"

namespace dfx::verify {
namespace {

using Offsets = std::vector<int64_t>;

std::vector<int64_t> strides_of(const model::Tensor& t) {
  std::vector<int64_t> s(t.shape.size(), 1);
  for (size_t p = t.shape.size(); p-- > 1;) s[p - 1] = s[p] * t.shape[p];
  return s;
}

int64_t dim_stride(const model::TensorAccess& acc, const std::vector<int64_t>& strides, int d) {
  int64_t s = 0;
  for (size_t p = 0; p < acc.index.size(); ++p)
    for (const auto& term : acc.index[p].terms)
      if (term.dim == d) s += term.coef * strides[p];
  return s;
}

// Offsets of every point of the dims (row-major over them) for one access.
Offsets group(const model::Workload& w, const model::TensorAccess& acc, const std::vector<int64_t>& strides, const std::vector<int>& dims) {
  Offsets out = {0};
  for (int d : dims) {
    const int64_t step = dim_stride(acc, strides, d), n = w.dims[static_cast<size_t>(d)].size;
    Offsets next;
    next.reserve(out.size() * static_cast<size_t>(n));
    for (int64_t o : out)
      for (int64_t i = 0; i < n; ++i) next.push_back(o + i * step);
    out = std::move(next);
  }
  return out;
}

int64_t constant(const model::TensorAccess& acc, const std::vector<int64_t>& strides) {
  int64_t c = 0;
  for (size_t p = 0; p < acc.index.size(); ++p) c += acc.index[p].offset * strides[p];
  return c;
}

class Evaluator {
 public:
  Evaluator(const model::Workload& w, arch::DType t) : w_(w), t_(t) {}

  void matrix(const model::Op& x, sim::TensorValues& v) {
    const model::TensorAccess *a = &x.inputs[0], *b = &x.inputs[1];
    if (x.role_of(a->tensor) != arch::Role::Left) std::swap(a, b);
    std::vector<int> m, n, k, batch;
    for (int d : x.dims) {
      const bool in_c = uses(x.out, d), in_a = uses(*a, d), in_b = uses(*b, d);
      (in_c && in_a && in_b ? batch : in_c && in_a ? m : in_c && in_b ? n : k).push_back(d);
    }
    const auto &ta = tensor(a->tensor), &tb = tensor(b->tensor), &tc = tensor(x.out.tensor);
    const auto sa = strides_of(ta), sb = strides_of(tb), sc = strides_of(tc);
    const Offsets ab = group(w_, *a, sa, batch), am = group(w_, *a, sa, m), ak = group(w_, *a, sa, k);
    const Offsets bb = group(w_, *b, sb, batch), bk = group(w_, *b, sb, k), bn = group(w_, *b, sb, n);
    const Offsets cb = group(w_, x.out, sc, batch), cm = group(w_, x.out, sc, m), cn = group(w_, x.out, sc, n);
    const std::vector<double>& va = v.at(ta.name);
    const std::vector<double>& vb = v.at(tb.name);
    std::vector<double>& vc = output(v, tc);
    const int64_t ca = constant(*a, sa), cbk = constant(*b, sb), cc = constant(x.out, sc);
    const auto M = static_cast<Eigen::Index>(am.size()), N = static_cast<Eigen::Index>(bn.size()), K = static_cast<Eigen::Index>(ak.size());
    Eigen::MatrixXd A(M, K), B(K, N), C(M, N);
    for (size_t p = 0; p < ab.size(); ++p) {
      for (Eigen::Index i = 0; i < M; ++i)
        for (Eigen::Index j = 0; j < K; ++j) A(i, j) = operand(va[at(ca + ab[p] + am[ix(i)] + ak[ix(j)])]);
      for (Eigen::Index i = 0; i < K; ++i)
        for (Eigen::Index j = 0; j < N; ++j) B(i, j) = operand(vb[at(cbk + bb[p] + bk[ix(i)] + bn[ix(j)])]);
      if (sim::is_integer(t_)) C.noalias() = A * B;
      else C = (A.cast<float>() * B.cast<float>()).cast<double>();
      for (Eigen::Index i = 0; i < M; ++i)
        for (Eigen::Index j = 0; j < N; ++j) {
          double& out = vc[at(cc + cb[p] + cm[ix(i)] + cn[ix(j)])];
          out = sim::to_accumulator(t_, out + C(i, j));
        }
    }
  }

  void vector(const model::Op& x, arch::VecOp op, sim::TensorValues& v) {
    std::vector<int> outer, inner;  // output dims, then reduced dims
    for (int d : x.dims) (uses(x.out, d) ? outer : inner).push_back(d);
    const auto& to = tensor(x.out.tensor);
    const auto so = strides_of(to);
    const Offsets oo = group(w_, x.out, so, outer);
    std::vector<Offsets> io, ii;
    std::vector<const std::vector<double>*> in;
    std::vector<int64_t> ic;
    for (const auto& acc : x.inputs) {
      const auto& ti = tensor(acc.tensor);
      const auto si = strides_of(ti);
      io.push_back(group(w_, acc, si, outer));
      ii.push_back(group(w_, acc, si, inner));
      in.push_back(&v.at(ti.name));
      ic.push_back(constant(acc, si));
    }
    std::vector<double>& out = output(v, to);
    const int64_t co = constant(x.out, so);
    const bool reduce = op == arch::VecOp::RowSum || op == arch::VecOp::RowMax;
    for (size_t p = 0; p < oo.size(); ++p) {
      double r;
      if (reduce) {
        r = (*in[0])[at(ic[0] + io[0][p] + ii[0][0])];
        for (size_t q = 1; q < ii[0].size(); ++q) r = sim::reduce_step(t_, op, r, (*in[0])[at(ic[0] + io[0][p] + ii[0][q])]);
      } else {
        const double a = (*in[0])[at(ic[0] + io[0][p])];
        const double b = in.size() > 1 ? (*in[1])[at(ic[1] + io[1][p])] : 0.0;
        r = sim::vector_result(t_, op, a, b, 0);
      }
      out[at(co + oo[p])] = sim::vector_store(t_, op, r);
    }
  }

 private:
  const model::Workload& w_;
  arch::DType t_;

  const model::Tensor& tensor(int t) const { return w_.tensors[static_cast<size_t>(t)]; }
  double operand(double x) const { return sim::to_operand(t_, x); }
  static size_t at(int64_t a) { return static_cast<size_t>(a); }
  static size_t ix(Eigen::Index i) { return static_cast<size_t>(i); }
  static bool uses(const model::TensorAccess& acc, int d) {
    for (const auto& ix : acc.index)
      for (const auto& term : ix.terms)
        if (term.dim == d) return true;
    return false;
  }
  static std::vector<double>& output(sim::TensorValues& v, const model::Tensor& t) {
    int64_t n = 1;
    for (int64_t s : t.shape) n *= s;
    auto& out = v[t.name];
    out.assign(static_cast<size_t>(n), 0.0);
    return out;
  }
};

}  // namespace

sim::TensorValues reference(const model::Workload& w, const sim::TensorValues& inputs, arch::DType t) {
  sim::TensorValues v = inputs;
  Evaluator e(w, t);
  for (const model::Op& x : w.ops) {
    if (x.unit == arch::UnitKind::Matrix) {
      e.matrix(x, v);
      continue;
    }
    const auto op = model::vector_instruction(x);
    if (!op) throw InputError(x.loc, "operator '" + x.name + "' has no vector instruction to compute a reference with");
    e.vector(x, *op, v);
  }
  return v;
}

}  // namespace dfx::verify
