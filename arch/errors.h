#pragma once
// Typed errors for user input. Libraries throw these; only the CLI prints them and exits with 2.
#include <stdexcept>
#include <string>
#include <vector>

namespace dfx {

// Where in an input file something is: file:line:col plus the key path (levels[2].read_bw).
struct SourceLoc {
  std::string file;
  int line = 0;  // 1-based; 0 when unknown
  int col = 0;   // 1-based; 0 when unknown
  std::string path;
  std::string str() const;
};

struct Problem {
  SourceLoc where;
  std::string message;
  std::string str() const;
};

// One or more problems in the user's input (bad YAML, unknown key, invalid dataflow...).
class InputError : public std::runtime_error {
 public:
  explicit InputError(std::vector<Problem> problems);
  InputError(SourceLoc where, std::string message);
  const std::vector<Problem>& problems() const { return problems_; }

 private:
  std::vector<Problem> problems_;
};

// Collects every problem of a parse so the user sees them all at once.
class Diagnostics {
 public:
  void add(SourceLoc where, std::string message);
  bool empty() const { return problems_.empty(); }
  size_t size() const { return problems_.size(); }
  const std::vector<Problem>& problems() const { return problems_; }
  // Contract: throws InputError holding every collected problem, or returns if there are none.
  void throw_if_any() const;

 private:
  std::vector<Problem> problems_;
};

// Closest candidate by edit distance, for "did you mean" hints; empty if nothing is close.
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates);
// What to add after "unknown NAME": " (did you mean 'x'?)" for a typo of a word of three letters
// or more, else every name there is, " (KIND: a, b, c)" — a short word (L9, q) has no close typo.
std::string names_hint(const std::string& word, const std::vector<std::string>& names, const std::string& kind);

}  // namespace dfx
