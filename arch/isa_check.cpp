// Checks a program against an arch before anything runs it; every problem, with its line.
#include <set>
#include <tuple>

#include "arch/isa.h"

namespace dfx::arch {
namespace {

// More than this and a simulation would not end in reasonable time: refuse rather than hang.
constexpr double kMaxDynamicInstructions = 1e9;

class Checker {
 public:
  Checker(const Arch& a, const std::string& name) : a_(a), name_(name) {}

  void run(const Program& p) {
    std::vector<int64_t> counts;  // trip counts of the enclosing loops
    for (const TensorDecl& t : p.tensors) {
      line_ = t.line;
      block(t.at, counts, -1, ("tensor '" + t.name + "'").c_str());
    }
    std::set<std::tuple<int, int, int>> sets, waits;
    std::vector<int> wait_lines;
    double runs = 1, dynamic = 0;  // times the current instruction runs; instructions run in all
    for (const Instruction& i : p.code) {
      line_ = i.line;
      dynamic += runs;
      switch (i.op) {
        case Opcode::Dma:
          block(i.dst, counts, -1, "destination");
          block(i.a, counts, -1, "source");
          if (i.dst.level >= 0 && i.a.level >= 0 && !a_.has_direct_path(i.a.level, i.dst.level))
            problem("no data path from '" + level(i.a.level) + "' to '" + level(i.dst.level) + "' in the arch");
          if (i.dst.elements() != i.a.elements())
            problem("dma moves " + std::to_string(i.a.elements()) + " elements into a block of " + std::to_string(i.dst.elements()));
          break;
        case Opcode::Mma: mma(i, counts); break;
        case Opcode::Vec: vec(i, counts); break;
        case Opcode::SetFlag: sets.insert({static_cast<int>(i.from), static_cast<int>(i.to), i.event}); break;
        case Opcode::WaitFlag:
          waits.insert({static_cast<int>(i.from), static_cast<int>(i.to), i.event});
          if (!sets.count({static_cast<int>(i.from), static_cast<int>(i.to), i.event})) pending_.push_back(i);
          break;
        case Opcode::Loop:
          if (i.count < 1) problem("a loop runs at least once");
          counts.push_back(std::max<int64_t>(1, i.count));
          runs *= static_cast<double>(counts.back());
          break;
        case Opcode::EndLoop:
          if (counts.empty()) {
            problem("endloop without loop");
          } else {
            runs /= static_cast<double>(counts.back());
            counts.pop_back();
          }
          break;
        case Opcode::Halt:
        case Opcode::Barrier: break;
      }
      if ((i.op == Opcode::SetFlag || i.op == Opcode::WaitFlag) && (i.event < 0 || i.event > 15))
        problem("flag event " + std::to_string(i.event) + " (0 to 15)");
      if (i.op == Opcode::SetFlag || i.op == Opcode::WaitFlag)
        for (Pipe q : {i.from, i.to})
          if (!has_pipe(q)) problem(std::string("the arch has no '") + pipe_name(q) + "' pipe (its transfers run on " + engines() + ")");
    }
    if (!counts.empty()) problem(std::to_string(counts.size()) + " loop(s) never closed");
    if (dynamic > kMaxDynamicInstructions)
      problem("the program would run " + std::to_string(static_cast<int64_t>(dynamic)) + " instructions (at most 10^9)");
    for (const Instruction& w : pending_)
      if (!sets.count({static_cast<int>(w.from), static_cast<int>(w.to), w.event})) {
        line_ = w.line;
        problem(std::string("wait_flag ") + pipe_name(w.from) + " -> " + pipe_name(w.to) + " " + std::to_string(w.event) +
                " is never set: the " + pipe_name(w.to) + " pipe would wait forever");
      }
    diag_.throw_if_any();
  }

 private:
  const Arch& a_;
  const std::string& name_;
  int line_ = 0;
  Diagnostics diag_;
  std::vector<Instruction> pending_;

  // Engine pipes exist when a path uses them; matrix, vector and scalar always do.
  bool has_pipe(Pipe p) const {
    if (p == Pipe::Matrix || p == Pipe::Vector || p == Pipe::Scalar) return true;
    for (const auto& path : a_.paths) {
      Pipe e;
      if (engine_pipe(path.engine, e) && e == p) return true;
    }
    return false;
  }
  std::string engines() const {
    std::string out;
    for (int x = 0; x < kPipeCount; ++x) {
      const Pipe p = static_cast<Pipe>(x);
      if (p != Pipe::Matrix && p != Pipe::Vector && p != Pipe::Scalar && has_pipe(p)) out += (out.empty() ? "" : ", ") + std::string(pipe_name(p));
    }
    return out;
  }

  void problem(const std::string& msg) { diag_.add(SourceLoc{name_, line_, 1, ""}, msg); }
  std::string level(int l) const { return a_.levels[static_cast<size_t>(l)].name; }

  // A block must name a level, fit in it for every loop iteration, and (role >= 0) be allowed there.
  void block(const MemRef& r, const std::vector<int64_t>& counts, int role, const char* what) {
    if (r.level < 0 || r.level >= static_cast<int>(a_.levels.size())) {
      problem(std::string("the ") + what + " names no level");
      return;
    }
    if (r.sizes.empty() || r.sizes.size() > kMaxDims) problem(std::string("the ") + what + " needs 1 to 4 dimensions");
    for (int64_t size : r.sizes)
      if (size < 1) problem(std::string("the ") + what + " has a dimension of size " + std::to_string(size));
    const auto [lo, hi] = address_range(r, counts);
    const MemoryLevel& lv = a_.levels[static_cast<size_t>(r.level)];
    if (lo < 0) problem(std::string("the ") + what + " reaches address " + std::to_string(lo) + " of '" + lv.name + "'");
    if (!lv.unlimited() && static_cast<double>(hi + 1) * lv.word_bytes > lv.capacity_bytes)
      problem(std::string("the ") + what + " reaches element " + std::to_string(hi) + " of '" + lv.name + "', which holds " +
              std::to_string(static_cast<int64_t>(lv.capacity_bytes / lv.word_bytes)));
    if (role >= 0 && !lv.holds[role])
      problem(std::string("the ") + what + " is in '" + lv.name + "', which may not hold " + role_name(static_cast<Role>(role)) + " data");
  }

  void mma(const Instruction& i, const std::vector<int64_t>& counts) {
    if (!a_.unit(UnitKind::Matrix)) problem("mma, but the arch has no matrix unit");
    block(i.dst, counts, static_cast<int>(Role::Acc), "accumulator");
    block(i.a, counts, static_cast<int>(Role::Left), "left operand");
    block(i.b, counts, static_cast<int>(Role::Right), "right operand");
    if (i.dst.sizes.size() != 2 || i.a.sizes.size() != 2 || i.b.sizes.size() != 2 || i.a.sizes[1] != i.b.sizes[0] ||
        i.dst.sizes[0] != i.a.sizes[0] || i.dst.sizes[1] != i.b.sizes[1])
      problem("mma needs C[m×n] from A[m×k] and B[k×n]");
  }

  void vec(const Instruction& i, const std::vector<int64_t>& counts) {
    const ComputeUnit* vu = a_.unit(UnitKind::Vector);
    if (!vu) problem("vec, but the arch has no vector unit");
    const int role = static_cast<int>(Role::Vector);
    block(i.dst, counts, role, "destination");
    block(i.a, counts, role, "source");
    const bool binary = i.vop == VecOp::Add || i.vop == VecOp::Sub || i.vop == VecOp::Mul || i.vop == VecOp::Div ||
                        i.vop == VecOp::Max || i.vop == VecOp::Min;
    if (binary && i.b.level < 0) problem(std::string("vec.") + vecop_name(i.vop) + " needs two sources");
    if (!binary && i.b.level >= 0) problem(std::string("vec.") + vecop_name(i.vop) + " takes one source");
    if (i.b.level >= 0) block(i.b, counts, role, "second source");
    const bool reduce = i.vop == VecOp::RowSum || i.vop == VecOp::RowMax;
    if (reduce && (i.a.sizes.size() != 2 || i.dst.elements() != i.a.sizes[0]))
      problem("a row reduction reads a [rows×cols] block into [rows]");
    if (!reduce && i.dst.elements() != i.a.elements()) problem("source and destination sizes differ");
    if (vu && !vu->ops.empty()) {
      const std::string name = i.vop == VecOp::RowSum ? "sum" : i.vop == VecOp::RowMax ? "max" : vecop_name(i.vop);
      bool ok = false;
      for (const auto& op : vu->ops) ok |= op == name;
      if (!ok) problem("the vector unit has no '" + name + "'");
    }
  }
};

}  // namespace

void check_program(const Program& p, const Arch& a, const std::string& name) { Checker(a, name).run(p); }

void check_program_set(const std::vector<Program>& programs, const std::vector<std::string>& names) {
  const auto given = static_cast<int64_t>(programs.size());
  auto name_of = [&](size_t k) { return k < names.size() ? names[k] : "program " + std::to_string(k); };
  auto fail = [&](size_t k, const std::string& message) {
    throw InputError(SourceLoc{name_of(k), programs[k].core_line, 1, ""},
                     message + " (give every program dfx emit wrote, in core order: its 'run them with' line)");
  };
  for (size_t k = 0; k < programs.size(); ++k) {
    const Program& p = programs[k];
    if (p.cores == 0) continue;
    const std::string which = "core " + std::to_string(p.core) + " of " + std::to_string(p.cores);
    if (p.core != static_cast<int64_t>(k)) fail(k, "this is " + which + ", given as program " + std::to_string(k));
    if (p.cores != given)
      fail(k, "this is " + which + ", but " + std::to_string(given) + " program(s) are given: " +
                  (given < p.cores ? "the missing cores' share of the outputs would not be computed"
                                   : "more programs than the cores it says"));
  }
}

}  // namespace dfx::arch
