#pragma once
// Workloads: operators written as tensor expressions over named dimensions, and their DAG.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "arch/arch.h"
#include "arch/isa.h"
#include "arch/errors.h"

namespace dfx::model {

// One index of a tensor access: sum of coef*dim plus a constant, e.g. h*2+r.
struct AffineIndex {
  struct Term {
    int dim = -1;
    int64_t coef = 1;
  };
  std::vector<Term> terms;
  int64_t offset = 0;
  std::string text() const;  // needs names; see Workload::index_text
  bool uses(int dim) const {
    for (const Term& t : terms)
      if (t.dim == dim) return true;
    return false;
  }
  // Exactly `dim`: one term, coefficient 1, no offset (not a window, a stride or a sum).
  bool is(int dim) const { return terms.size() == 1 && terms[0].dim == dim && terms[0].coef == 1 && offset == 0; }
};

struct TensorAccess {
  int tensor = -1;
  std::vector<AffineIndex> index;  // one per tensor dimension
  // The same index expressions, term by term (which tensor each names aside).
  bool indexes_alike(const TensorAccess& o) const;
};

enum class Accumulate { None, Sum, Max, Min };

// One operator: out[...] (acc)= f(inputs...). The compute unit follows from the form:
// 'O += A * B' runs on the matrix unit (left, right, acc); everything else on the vector unit.
struct Op {
  std::string name;
  std::string expr;
  TensorAccess out;
  std::vector<TensorAccess> inputs;
  Accumulate accumulate = Accumulate::None;
  arch::UnitKind unit = arch::UnitKind::Vector;
  std::vector<std::string> vector_ops;  // e.g. {"sub"}, {"exp"}, {"sum"}
  int64_t ops_per_point = 1;            // operations per point of the iteration space
  std::vector<int> dims;                // every dimension the op iterates, in first-use order
  std::vector<int> reduction_dims;      // dims that index inputs but not the output
  arch::Role role_of(int tensor) const;
  bool uses_dim(int d) const {  // asked in the walk's inner loops: inline
    for (int x : dims)
      if (x == d) return true;
    return false;
  }
  SourceLoc loc;
};

struct Tensor {
  std::string name;
  std::vector<int64_t> shape;
  int producer = -1;           // op index, -1 for a workload input
  std::vector<int> consumers;  // op indices
  bool is_intermediate() const { return producer >= 0 && !consumers.empty(); }
};

// Dims are numbered below kMaxDims: the analysis keeps sets of them as 64-bit masks.
inline constexpr size_t kMaxDims = 64;

struct Dim {
  std::string name;
  int64_t size = 1;
};

struct Workload {
  std::string name;
  std::vector<Dim> dims;
  std::vector<Tensor> tensors;
  std::vector<Op> ops;          // in topological order
  int dim_index(const std::string& n) const;
  int tensor_index(const std::string& n) const;
  int op_index(const std::string& n) const;
  std::string index_text(const AffineIndex& ix) const;
  std::string access_text(const TensorAccess& a) const;
  int64_t total_macs() const;   // sum over ops of iteration-space points × ops per point
  // Elements of a tensor stored whole (its shape's product).
  int64_t elements(int tensor) const;
  // Elements of the workload's inputs and outputs, which live whole at the outermost level for
  // the whole run (intermediates left out: they live where a dataflow fuses them).
  int64_t io_elements() const;
  // Whether `holds` holds for every access of every op (outputs and inputs).
  template <class Pred>
  bool every_access(Pred holds) const {
    for (const Op& op : ops) {
      if (!holds(op.out)) return false;
      for (const auto& in : op.inputs)
        if (!holds(in)) return false;
    }
    return true;
  }
};

// The vector instruction an operator maps to: one elementwise op or one row reduction (nullopt
// for anything else, such as two operations in one statement or a minimum reduction).
std::optional<arch::VecOp> vector_instruction(const Op& x);
// What each operation of a statement vector_instruction() does not map is timed as on
// archs that take whole instructions: the kind it uses whose pipeline is deepest on `lanes`
// lanes (arch::vector_depth: exp and div, or a row reduction on a wide unit); an operation
// with no instruction of its own (tanh, a row minimum) as its nearest one.
arch::VecOp deepest_vector_op(const Op& x, int64_t lanes);

// Parses one statement; problems go to diag with the statement's location.
bool parse_statement(const std::string& text, const SourceLoc& where, Workload& w, Op& op,
                     Diagnostics& diag);

// Contract: returns a checked workload (shapes inferred, DAG acyclic, ops topologically sorted)
// or throws InputError listing every problem.
Workload load_workload(const std::string& path);
// The same with changes made to the document first (ConfigNode::load_file: `dfx … --dim l=1024`).
Workload load_workload(const std::string& path, const std::vector<Override>& changes);
Workload load_workload_from_string(const std::string& text, const std::string& name);

}  // namespace dfx::model
