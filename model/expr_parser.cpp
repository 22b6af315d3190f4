// A small recursive-descent parser for operator statements such as
//   S[b,m,l] += Q[b,m,k] * K[b,k,l]      Mx[b,m] max= S[b,m,l]
//   O[n,k,h,w] += I[n,c,h*2+r,w*2+s] * W[k,c,r,s]
#include <algorithm>
#include <cctype>
#include <cstring>
#include <set>

#include "model/workload.h"

namespace dfx::model {
namespace {

class Parser {
 public:
  Parser(const std::string& s, const SourceLoc& where, Workload& w, Op& op, Diagnostics& diag)
      : s_(s), where_(where), w_(w), op_(op), diag_(diag) {}

  bool statement() {
    if (!ref(op_.out)) return false;
    skip();
    if (!assignment()) return false;
    Node rhs;
    if (!expr(rhs)) return false;
    skip();
    if (pos_ != s_.size()) return fail("unexpected '" + s_.substr(pos_, 1) + "'");
    classify(rhs);
    return true;
  }

 private:
  // What the right-hand side is, enough to pick a unit and count operations.
  struct Node {
    enum Kind { Ref, Number, Binary, Call } kind = Number;
    char op = 0;
    std::string fn;
    int children = 0;
    int64_t operations = 0;
    bool is_product_of_two_refs = false;
  };

  const std::string& s_;
  const SourceLoc& where_;
  Workload& w_;
  Op& op_;
  Diagnostics& diag_;
  size_t pos_ = 0;
  std::set<std::string> fns_;
  std::set<char> binary_ops_;

  bool fail(const std::string& msg) {
    SourceLoc loc = where_;
    diag_.add(loc, msg + " at column " + std::to_string(pos_ + 1) + " of '" + s_ + "'");
    return false;
  }
  void skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool peek(char c) {
    skip();
    return pos_ < s_.size() && s_[pos_] == c;
  }
  bool eat(char c) {
    if (!peek(c)) return false;
    ++pos_;
    return true;
  }
  std::string ident() {
    skip();
    size_t b = pos_;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_'))
      ++pos_;
    if (b < s_.size() && std::isdigit(static_cast<unsigned char>(s_[b]))) {
      pos_ = b;
      return "";
    }
    return s_.substr(b, pos_ - b);
  }
  bool number(int64_t& v) {
    skip();
    size_t b = pos_;
    while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    if (b == pos_) return false;
    if (pos_ - b > 12) return fail("number too large");
    v = std::stoll(s_.substr(b, pos_ - b));
    return true;
  }

  bool assignment() {
    static const std::pair<const char*, Accumulate> forms[] = {
        {"+=", Accumulate::Sum}, {"max=", Accumulate::Max}, {"min=", Accumulate::Min},
        {"=", Accumulate::None}};
    for (const auto& [text, acc] : forms) {
      if (s_.compare(pos_, std::char_traits<char>::length(text), text) == 0) {
        pos_ += std::char_traits<char>::length(text);
        op_.accumulate = acc;
        return true;
      }
    }
    return fail("expected '=', '+=', 'max=' or 'min='");
  }

  bool index_term(AffineIndex& ix, int64_t sign) {
    int64_t coef = 1;
    std::string name;
    skip();
    const size_t term_at = pos_;
    if (number(coef)) {
      if (!eat('*')) {
        ix.offset += sign * coef;
        return true;
      }
      name = ident();
    } else {
      name = ident();
      if (eat('*') && !number(coef)) return fail("expected a number after '*'");
    }
    if (name.empty()) return fail("expected a dimension name");
    if (coef < 1) {  // said at the term, not after it
      pos_ = term_at;
      return fail("a dimension's coefficient must be positive");
    }
    int d = w_.dim_index(name);
    if (d < 0) {
      std::vector<std::string> names;
      for (const auto& dim : w_.dims) names.push_back(dim.name);
      std::string hint = closest_match(name, names);
      return fail("unknown dimension '" + name + "'" +
                  (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
    }
    if (sign < 0) return fail("negative index terms are not supported");
    for (const auto& t : ix.terms)
      if (t.dim == d) return fail("dimension '" + name + "' appears twice in one index");
    ix.terms.push_back({d, coef});
    return true;
  }

  bool index(AffineIndex& ix) {
    if (!index_term(ix, 1)) return false;
    while (true) {
      if (eat('+')) {
        if (!index_term(ix, 1)) return false;
      } else if (peek('-')) {
        ++pos_;
        if (!index_term(ix, -1)) return false;
      } else {
        return true;
      }
    }
  }

  bool ref(TensorAccess& acc) {
    std::string name = ident();
    if (name.empty()) return fail("expected a tensor name");
    if (!eat('[')) return fail("expected '[' after tensor '" + name + "'");
    int t = w_.tensor_index(name);
    if (t < 0) {
      w_.tensors.push_back(Tensor{name, {}, -1, {}});
      t = static_cast<int>(w_.tensors.size()) - 1;
    }
    acc.tensor = t;
    std::set<int> seen;
    do {
      AffineIndex ix;
      if (!index(ix)) return false;
      for (const auto& term : ix.terms)
        if (!seen.insert(term.dim).second)
          return fail("dimension '" + w_.dims[static_cast<size_t>(term.dim)].name + "' indexes two dimensions of '" +
                      name + "'");
      acc.index.push_back(ix);
      if (acc.index.size() > 16) return fail("a tensor has at most 16 dimensions");
    } while (eat(','));
    if (!eat(']')) return fail("expected ']'");
    return true;
  }

  bool primary(Node& n) {
    skip();
    if (eat('(')) {
      if (!expr(n)) return false;
      return eat(')') ? true : fail("expected ')'");
    }
    int64_t v;
    if (number(v)) {
      if (eat('.')) number(v);
      n = Node{};
      return true;
    }
    size_t save = pos_;
    std::string name = ident();
    if (name.empty()) return fail("expected a tensor, a number or a function");
    if (peek('(')) {
      static const std::set<std::string> known = {"exp", "relu", "max", "min", "abs", "sqrt", "tanh", "sigmoid", "gelu"};
      if (!known.count(name)) {
        std::vector<std::string> names(known.begin(), known.end());
        std::string hint = closest_match(name, names);
        return fail("unknown function '" + name + "'" + (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
      }
      ++pos_;
      n = Node{Node::Call, 0, name, 0, 1, false};
      do {
        Node arg;
        if (!expr(arg)) return false;
        n.operations += arg.operations;
      } while (eat(','));
      fns_.insert(name);
      return eat(')') ? true : fail("expected ')'");
    }
    pos_ = save;
    TensorAccess acc;
    if (!ref(acc)) return false;
    op_.inputs.push_back(acc);
    n = Node{Node::Ref, 0, "", 0, 0, false};
    return true;
  }

  bool binary_chain(Node& n, const char* ops, bool (Parser::*next)(Node&)) {
    if (!(this->*next)(n)) return false;
    while (true) {
      skip();
      if (pos_ >= s_.size() || !std::strchr(ops, s_[pos_])) return true;
      char c = s_[pos_++];
      Node rhs;
      if (!(this->*next)(rhs)) return false;
      Node bin{Node::Binary, c, "", 2, n.operations + rhs.operations + 1, false};
      binary_ops_.insert(c);
      bin.is_product_of_two_refs = c == '*' && n.kind == Node::Ref && rhs.kind == Node::Ref;
      n = bin;
    }
  }
  bool term(Node& n) { return binary_chain(n, "*/", &Parser::primary); }
  bool expr(Node& n) { return binary_chain(n, "+-", &Parser::term); }

  void classify(const Node& rhs) {
    static const std::pair<char, const char*> names[] = {
        {'+', "add"}, {'-', "sub"}, {'*', "mul"}, {'/', "div"}};
    const bool mac = op_.accumulate == Accumulate::Sum && rhs.is_product_of_two_refs;
    op_.unit = mac ? arch::UnitKind::Matrix : arch::UnitKind::Vector;
    op_.ops_per_point = std::max<int64_t>(1, rhs.operations + (mac ? 0 : op_.accumulate != Accumulate::None));
    if (mac) return;
    for (const auto& [sym, name] : names)
      if (binary_ops_.count(sym)) op_.vector_ops.push_back(name);
    for (const auto& f : fns_) op_.vector_ops.push_back(f);
    if (op_.accumulate == Accumulate::Sum) op_.vector_ops.push_back("sum");
    if (op_.accumulate == Accumulate::Max) op_.vector_ops.push_back("max");
    if (op_.accumulate == Accumulate::Min) op_.vector_ops.push_back("min");
    if (op_.vector_ops.empty()) op_.vector_ops.push_back("copy");
  }
};

}  // namespace

bool parse_statement(const std::string& text, const SourceLoc& where, Workload& w, Op& op,
                     Diagnostics& diag) {
  Parser p(text, where, w, op, diag);
  return p.statement();
}

}  // namespace dfx::model
