// The text assembly: one instruction per line, '#' starts a comment (docs/isa.md).
#include <cctype>
#include <stdexcept>
#include <sstream>

#include "arch/isa.h"

namespace dfx::arch {
namespace {

class LineParser {
 public:
  LineParser(const std::string& text, const std::string& file, int line, const Arch& a)
      : s_(text), file_(file), line_(line), a_(a) {}

  [[noreturn]] void fail(const std::string& msg) const {
    throw InputError(SourceLoc{file_, line_, static_cast<int>(pos_) + 1, ""}, msg);
  }
  void skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool done() {
    skip();
    return pos_ >= s_.size();
  }
  bool eat(const std::string& tok) {
    skip();
    if (s_.compare(pos_, tok.size(), tok) != 0) return false;
    pos_ += tok.size();
    return true;
  }
  void expect(const std::string& tok) {
    if (!eat(tok)) fail("expected '" + tok + "'");
  }
  std::string word() {
    skip();
    size_t b = pos_;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_' || s_[pos_] == '.')) ++pos_;
    if (b == pos_) fail("expected a name");
    word_at_ = b;
    return s_.substr(b, pos_ - b);
  }
  // A problem with the word word() read last, located at its first character.
  [[noreturn]] void fail_word(const std::string& msg) {
    pos_ = word_at_;
    fail(msg);
  }
  int64_t integer() {
    skip();
    size_t b = pos_;
    if (pos_ < s_.size() && s_[pos_] == '-') ++pos_;
    while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    if (b == pos_ || (s_[b] == '-' && pos_ == b + 1)) fail("expected an integer");
    try {
      return std::stoll(s_.substr(b, pos_ - b));
    } catch (const std::out_of_range&) {
      const std::string digits = s_.substr(b, pos_ - b);
      pos_ = b;  // the message points at the number's start
      fail("integer '" + digits + "' out of range");
    }
  }
  // LEVEL[base +step*iJ ... : s0xs1 / st0,st1]
  MemRef mem(int loop_depth) {
    MemRef r;
    const std::string name = word();
    r.level = a_.level_index(name);
    if (r.level < 0) fail_word("unknown level '" + name + "'");
    expect("[");
    r.base = integer();
    r.loop_steps.assign(static_cast<size_t>(loop_depth), 0);
    while (eat("+")) {
      int64_t step = integer();
      expect("*");
      skip();
      if (pos_ >= s_.size() || s_[pos_] != 'i') fail("expected a loop index such as i0");
      ++pos_;
      int64_t j = integer();
      if (j < 0 || j >= loop_depth) fail("loop index i" + std::to_string(j) + " is not an enclosing loop");
      r.loop_steps[static_cast<size_t>(j)] += step;
    }
    if (eat("%")) ring(r, loop_depth);
    expect(":");
    do r.sizes.push_back(integer());
    while (eat("x"));
    expect("/");
    do r.strides.push_back(integer());
    while (eat(","));
    expect("]");
    if (r.sizes.size() != r.strides.size()) fail("a block needs one stride per size");
    return r;
  }
  // %N*S(i0+2*i1): N copies S elements apart, chosen by (Σ weight·index) mod N.
  void ring(MemRef& r, int loop_depth) {
    r.ring = integer();
    if (r.ring < 2) fail("a ring needs at least 2 copies");
    expect("*");
    r.ring_stride = integer();
    expect("(");
    r.ring_weights.assign(static_cast<size_t>(loop_depth), 0);
    do {
      skip();
      int64_t weight = 1;
      if (pos_ < s_.size() && s_[pos_] != 'i') {
        weight = integer();
        expect("*");
        skip();
      }
      if (pos_ >= s_.size() || s_[pos_] != 'i') fail("expected a loop index such as i0");
      ++pos_;
      const int64_t j = integer();
      if (j < 0 || j >= loop_depth) fail("loop index i" + std::to_string(j) + " is not an enclosing loop");
      r.ring_weights[static_cast<size_t>(j)] += weight;
    } while (eat("+"));
    expect(")");
  }
  Pipe pipe() {
    const std::string p = word();
    for (int x = 0; x < kPipeCount; ++x)
      if (p == pipe_name(static_cast<Pipe>(x))) return static_cast<Pipe>(x);
    fail_word("unknown pipe '" + p + "' (dma, matrix, vector, scalar, mte1, mte2, mte3, fixpipe, dma_out)");
  }

 private:
  const std::string& s_;
  const std::string& file_;
  int line_;
  const Arch& a_;
  size_t pos_ = 0, word_at_ = 0;
};

std::string mem_text(const MemRef& r, const Arch& a) {
  std::ostringstream os;
  os << a.levels[static_cast<size_t>(r.level)].name << '[' << r.base;
  for (size_t j = 0; j < r.loop_steps.size(); ++j)
    if (r.loop_steps[j]) os << " +" << r.loop_steps[j] << "*i" << j;
  if (r.ring > 1) {
    os << " %" << r.ring << '*' << r.ring_stride << '(';
    bool first = true;
    for (size_t j = 0; j < r.ring_weights.size(); ++j) {
      if (!r.ring_weights[j]) continue;
      os << (first ? "" : "+") << (r.ring_weights[j] == 1 ? "" : std::to_string(r.ring_weights[j]) + "*") << 'i' << j;
      first = false;
    }
    os << ')';
  }
  os << " : ";
  for (size_t d = 0; d < r.sizes.size(); ++d) os << (d ? "x" : "") << r.sizes[d];
  os << " / ";
  for (size_t d = 0; d < r.strides.size(); ++d) os << (d ? "," : "") << r.strides[d];
  return os.str() + "]";
}

// `.dtype T`, `.core I of N`, `.input NAME BLOCK`, `.output NAME BLOCK`: declarations before the code.
void directive(LineParser& lp, const std::string& op, int line, Program& p) {
  if (op == ".dtype") {
    const std::string t = lp.word();
    bool known = false;
    for (DType d : {DType::Int16, DType::Fp16, DType::Bf16})
      if (t == dtype_name(d)) p.dtype = d, known = true;
    if (!known) lp.fail_word("unknown element type '" + t + "' (int16, fp16, bf16)");
  } else if (op == ".core") {
    if (p.cores != 0) lp.fail(".core is given twice");
    p.core = lp.integer();
    lp.expect("of");
    p.cores = lp.integer();
    p.core_line = line;
    if (p.cores < 1 || p.core < 0 || p.core >= p.cores)
      lp.fail("core " + std::to_string(p.core) + " of " + std::to_string(p.cores) + " is not a core (0 <= I < N)");
  } else {
    TensorDecl t;
    t.output = op == ".output";
    t.name = lp.word();
    t.at = lp.mem(0);
    t.line = line;
    for (const TensorDecl& other : p.tensors)
      if (other.name == t.name) lp.fail("tensor '" + t.name + "' is declared twice");
    p.tensors.push_back(t);
  }
  if (!lp.done()) lp.fail("unexpected text after the declaration");
}

}  // namespace

Program parse_program(const std::string& text, const std::string& name, const Arch& a) {
  Program p;
  std::istringstream in(text);
  std::string raw;
  int line = 0, depth = 0;
  std::vector<int> open_loops;  // the lines of the loops not yet closed
  while (std::getline(in, raw)) {
    ++line;
    const std::string code = raw.substr(0, raw.find('#'));
    LineParser lp(code, name, line, a);
    if (lp.done()) continue;
    Instruction i;
    i.line = line;
    const std::string op = lp.word();
    if (op == ".dtype" || op == ".core" || op == ".input" || op == ".output") {
      if (depth != 0 || !p.code.empty()) lp.fail(op + " must come before the first instruction");
      directive(lp, op, line, p);
      continue;
    }
    if (op == "dma") {
      i.op = Opcode::Dma;
      i.dst = lp.mem(depth);
      lp.expect("<-");
      i.a = lp.mem(depth);
    } else if (op == "mma") {
      i.op = Opcode::Mma;
      i.dst = lp.mem(depth);
      if (lp.eat("+=")) i.accumulate = true;
      else if (lp.eat("=")) i.accumulate = false;
      else lp.fail("expected '+=' or '='");
      i.a = lp.mem(depth);
      lp.expect("*");
      i.b = lp.mem(depth);
      if (lp.eat("init")) {
        if (!i.accumulate) lp.fail("'init' only makes sense with '+='");
        do {
          lp.skip();
          if (!lp.eat("i")) lp.fail("expected a loop index such as i0");
          const int64_t j = lp.integer();
          if (j < 0 || j >= depth) lp.fail("loop index i" + std::to_string(j) + " is not an enclosing loop");
          i.imm |= int64_t{1} << j;
        } while (lp.eat(","));
      }
      if (i.a.sizes.size() == 2 && i.b.sizes.size() == 2) i.m = i.a.sizes[0], i.k = i.a.sizes[1], i.n = i.b.sizes[1];
    } else if (op.rfind("vec.", 0) == 0) {
      i.op = Opcode::Vec;
      const std::string v = op.substr(4);
      bool known = false;
      for (int x = 0; x <= static_cast<int>(VecOp::Cast); ++x)
        if (v == vecop_name(static_cast<VecOp>(x))) i.vop = static_cast<VecOp>(x), known = true;
      if (!known) lp.fail("unknown vector op '" + v + "'");
      i.dst = lp.mem(depth);
      lp.expect("<-");
      i.a = lp.mem(depth);
      if (lp.eat(",")) i.b = lp.mem(depth);
      if (i.vop == VecOp::Scale) i.imm = lp.integer();
    } else if (op == "set_flag" || op == "wait_flag") {
      i.op = op == "set_flag" ? Opcode::SetFlag : Opcode::WaitFlag;
      i.from = lp.pipe();
      lp.expect("->");
      i.to = lp.pipe();
      i.event = static_cast<int>(lp.integer());
    } else if (op == "loop") {
      i.op = Opcode::Loop;
      i.count = lp.integer();
      ++depth;
      open_loops.push_back(line);
    } else if (op == "endloop") {
      i.op = Opcode::EndLoop;
      if (--depth < 0) lp.fail("endloop without loop");
      open_loops.pop_back();
    } else if (op == "halt") {
      i.op = Opcode::Halt;
    } else if (op == "barrier") {
      i.op = Opcode::Barrier;
    } else {
      lp.fail_word("unknown instruction '" + op + "'");
    }
    if (!lp.done()) lp.fail("unexpected text after the instruction");
    p.code.push_back(i);
  }
  if (depth != 0)
    throw InputError(SourceLoc{name, open_loops.back(), 1, ""},
                     "this loop is never closed with endloop" + (depth > 1 ? " (nor " + std::to_string(depth - 1) + " around it)" : std::string()));
  return p;
}

std::string print_program(const Program& p, const Arch& a) {
  std::ostringstream os;
  if (p.dtype != DType::Int16) os << ".dtype " << dtype_name(p.dtype) << '\n';
  if (p.cores > 0) os << ".core " << p.core << " of " << p.cores << '\n';
  for (const TensorDecl& t : p.tensors) os << (t.output ? ".output " : ".input ") << t.name << ' ' << mem_text(t.at, a) << '\n';
  int depth = 0;
  for (const Instruction& i : p.code) {
    if (i.op == Opcode::EndLoop) --depth;
    os << std::string(static_cast<size_t>(std::max(depth, 0)) * 2, ' ');
    switch (i.op) {
      case Opcode::Dma: os << "dma " << mem_text(i.dst, a) << " <- " << mem_text(i.a, a); break;
      case Opcode::Mma:
        os << "mma " << mem_text(i.dst, a) << (i.accumulate ? " += " : " = ") << mem_text(i.a, a) << " * " << mem_text(i.b, a);
        for (int j = 0, first = 1; j < 63; ++j)
          if (i.imm >> j & 1) os << (first ? " init i" : ",i") << j, first = 0;
        break;
      case Opcode::Vec:
        os << "vec." << vecop_name(i.vop) << ' ' << mem_text(i.dst, a) << " <- " << mem_text(i.a, a);
        if (i.b.level >= 0) os << ", " << mem_text(i.b, a);
        if (i.vop == VecOp::Scale) os << ' ' << i.imm;
        break;
      case Opcode::SetFlag:
      case Opcode::WaitFlag:
        os << (i.op == Opcode::SetFlag ? "set_flag " : "wait_flag ") << pipe_name(i.from) << " -> " << pipe_name(i.to) << ' ' << i.event;
        break;
      case Opcode::Loop: os << "loop " << i.count; break;
      case Opcode::EndLoop: os << "endloop"; break;
      case Opcode::Halt: os << "halt"; break;
      case Opcode::Barrier: os << "barrier"; break;
    }
    os << '\n';
    if (i.op == Opcode::Loop) ++depth;
  }
  return os.str();
}

}  // namespace dfx::arch
