// With arch/config_overrides.cpp, the only translation units that include yaml-cpp.
#include "arch/config.h"
#include "arch/config_internal.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace dfx {

// ---- errors ---------------------------------------------------------------------------------

std::string SourceLoc::str() const {
  std::ostringstream os;
  os << file;
  if (line > 0) os << ':' << line << ':' << col;
  if (!path.empty()) os << (os.tellp() > 0 ? ": " : "") << path;
  return os.str();
}

// A problem of the whole run (no valid dataflow in the budget) has no place to point at.
std::string Problem::str() const {
  const std::string at = where.str();
  return at.empty() ? message : at + ": " + message;
}

static std::string join_problems(const std::vector<Problem>& problems) {
  std::string out;
  for (const auto& p : problems) out += (out.empty() ? "" : "\n") + p.str();
  return out;
}

InputError::InputError(std::vector<Problem> problems)
    : std::runtime_error(join_problems(problems)), problems_(std::move(problems)) {}

InputError::InputError(SourceLoc where, std::string message)
    : InputError(std::vector<Problem>{Problem{std::move(where), std::move(message)}}) {}

void Diagnostics::add(SourceLoc where, std::string message) {
  problems_.push_back(Problem{std::move(where), std::move(message)});
}

void Diagnostics::throw_if_any() const {
  if (!problems_.empty()) throw InputError(problems_);
}

static size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string names_hint(const std::string& word, const std::vector<std::string>& names, const std::string& kind) {
  const std::string near = word.size() >= 3 ? closest_match(word, names) : "";
  if (!near.empty()) return " (did you mean '" + near + "'?)";
  std::string listed;
  for (const auto& n : names) listed += (listed.empty() ? "" : ", ") + n;
  return " (" + kind + ": " + listed + ")";
}

std::string closest_match(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_d = std::max<size_t>(2, word.size() / 3) + 1;
  for (const auto& c : candidates) {
    size_t d = edit_distance(word, c);
    if (d < best_d) best_d = d, best = c;
  }
  if (!best.empty()) return best;
  // Long shared prefixes ("read_bandwidth" for "read_bw") are a hint too.
  size_t best_prefix = 4;
  for (const auto& c : candidates) {
    size_t p = 0;
    while (p < word.size() && p < c.size() && word[p] == c[p]) ++p;
    if (p > best_prefix) best_prefix = p, best = c;
  }
  return best;
}

// ---- ConfigNode -----------------------------------------------------------------------------

struct ConfigNode::Impl {
  YAML::Node node;
  bool present = true;
  // A node changed from the command line has no position in the file: its location names the
  // options that changed the document instead (" (--dim)"; empty when none did: then a node
  // without a position is the empty document's).
  std::string changed_by;
};

static SourceLoc loc_of(const YAML::Node& n, const std::string& file, const std::string& path, const std::string& changed_by) {
  SourceLoc loc{file, 0, 0, path};
  if (n.IsDefined()) {
    YAML::Mark m = n.Mark();
    const bool marked_already = file.size() >= changed_by.size() &&
                                file.compare(file.size() - changed_by.size(), changed_by.size(), changed_by) == 0;
    if (m.line >= 0) loc.line = m.line + 1, loc.col = m.column + 1;
    else if (!marked_already) loc.file += changed_by;
  }
  return loc;
}

static std::string changed_by(const std::vector<Override>& changes) {
  std::string s;  // the options, each once (neither of "--set" and "--dim" holds the other)
  for (const Override& c : changes)
    if (s.find(c.origin) == std::string::npos) s += (s.empty() ? "" : " or ") + c.origin;
  return s.empty() ? s : " (" + s + ")";
}

ConfigNode::ConfigNode(std::shared_ptr<const Impl> impl, SourceLoc loc)
    : impl_(std::move(impl)), loc_(std::move(loc)) {}

// yaml-cpp keeps both entries of a key written twice in one map, and a look-up takes the first:
// the second would be ignored without a word. Every such key is an error, located. So is a merge
// key ('<<: *base'), which yaml-cpp reads as a key named '<<': its alias carries the anchor's
// position, so the unknown key would be reported lines away from where it was written.
// Aliases of aliases expand a short file into a huge document ('billion laughs': nine levels of
// nine took validate minutes, QA pass 9): past kMaxNodes nodes visited it is refused.
constexpr int64_t kMaxNodes = 1'000'000;

static void find_repeated_keys(const YAML::Node& n, const std::string& file, const std::string& path, std::vector<Problem>& out,
                               int64_t& visited) {
  if (++visited > kMaxNodes) {
    const YAML::Mark m = n.Mark();
    throw InputError(SourceLoc{file, m.line + 1, m.column + 1, path},
                     "the document has more than " + std::to_string(kMaxNodes) +
                         " nodes, its aliases (*name) expanded: write fewer values, or alias fewer of them");
  }
  if (n.IsSequence()) {
    size_t i = 0;
    for (const auto& item : n) find_repeated_keys(item, file, path + "[" + std::to_string(i++) + "]", out, visited);
    return;
  }
  if (!n.IsMap()) return;
  std::set<std::string> seen;
  for (const auto& kv : n) {
    const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "";
    const std::string at = path.empty() ? key : path + "." + key;
    const SourceLoc key_loc{file, kv.first.Mark().line + 1, kv.first.Mark().column + 1, at};
    if (key == "<<")
      out.push_back({key_loc, "merge keys ('<<: *anchor') are not supported: write the keys out (an alias of a whole value, 'key: *anchor', works)"});
    else if (!key.empty() && !seen.insert(key).second)
      out.push_back({key_loc, "key '" + key + "' given twice in one map"});
    find_repeated_keys(kv.second, file, at, out, visited);
  }
}

ConfigNode ConfigNode::load_string(const std::string& text, const std::string& name, const std::vector<Override>& changes) {
  auto impl = std::make_shared<Impl>();
  try {
    std::vector<YAML::Node> docs = YAML::LoadAll(text);
    // A second document (after '---') would be ignored without a word; an empty one after a
    // trailing '---' holds nothing to ignore.
    while (docs.size() > 1 && docs.back().IsNull()) docs.pop_back();
    if (docs.size() > 1) {
      const YAML::Mark m = docs[1].Mark();
      throw InputError(SourceLoc{name, m.line >= 0 ? m.line + 1 : 0, m.column >= 0 ? m.column + 1 : 0, ""},
                       "a second YAML document ('---'): dfx reads one per file");
    }
    impl->node = docs.empty() ? YAML::Node() : docs.front();
  } catch (const YAML::Exception& e) {
    SourceLoc loc{name, e.mark.line >= 0 ? e.mark.line + 1 : 0,
                  e.mark.column >= 0 ? e.mark.column + 1 : 0, ""};
    // yaml-cpp stops nesting at a depth it allows and says only "bad file" (QA pass 9).
    throw InputError(loc, "YAML syntax error: " + (e.msg == "bad file" ? std::string("nested too deeply (or not readable YAML)") : e.msg));
  }
  std::vector<Problem> repeated;
  int64_t visited = 0;
  find_repeated_keys(impl->node, name, "", repeated, visited);
  if (!repeated.empty()) throw InputError(std::move(repeated));
  // In place, on a document nobody else holds: the nodes not changed keep their positions. A
  // value changed twice (however its path is spelled: levels.L1 or levels.1) would keep the
  // last without a word.
  std::map<std::string, const Override*> changed;
  for (const Override& c : changes) {
    const auto [earlier, fresh] = changed.emplace(apply_override(impl->node, c), &c);
    if (!fresh)
      throw InputError(SourceLoc{c.origin, 0, 0, ""}, "'" + c.typed + "' changes what '" + earlier->second->typed + "' changed already; give one");
  }
  impl->changed_by = changed_by(changes);
  return ConfigNode(impl, loc_of(impl->node, name, "", impl->changed_by));
}

ConfigNode ConfigNode::load_file(const std::string& path, const std::vector<Override>& changes) {
  std::ifstream in(path);
  if (!in) throw InputError(SourceLoc{path, 0, 0, ""}, "cannot open file");
  std::stringstream ss;
  ss << in.rdbuf();
  return load_string(ss.str(), path, changes);
}

bool ConfigNode::valid() const { return impl_ && impl_->present && impl_->node.IsDefined(); }
bool ConfigNode::is_map() const { return valid() && impl_->node.IsMap(); }
bool ConfigNode::is_seq() const { return valid() && impl_->node.IsSequence(); }
bool ConfigNode::is_scalar() const { return valid() && impl_->node.IsScalar(); }
bool ConfigNode::is_null() const { return valid() && impl_->node.IsNull(); }

std::string ConfigNode::kind_name() const {
  if (!valid()) return "missing";
  if (is_map()) return "mapping";
  if (is_seq()) return "sequence";
  if (is_scalar()) return "scalar";
  return "null";
}

bool ConfigNode::has(const std::string& key) const {
  if (!is_map()) return false;
  for (const auto& kv : impl_->node)
    if (kv.first.IsScalar() && kv.first.Scalar() == key) return true;
  return false;
}

std::string child_path(const std::string& base, const std::string& key) {
  return base.empty() ? key : base + "." + key;
}

ConfigNode ConfigNode::operator[](const std::string& key) const {
  auto impl = std::make_shared<Impl>();
  if (impl_) impl->changed_by = impl_->changed_by;
  if (is_map()) {
    for (const auto& kv : impl_->node) {
      if (kv.first.IsScalar() && kv.first.Scalar() == key) {
        impl->node = kv.second;
        SourceLoc loc = loc_of(kv.second, loc_.file, child_path(loc_.path, key), impl->changed_by);
        if (kv.second.IsNull()) loc = loc_of(kv.first, loc_.file, loc.path, impl->changed_by);
        return ConfigNode(impl, loc);
      }
    }
  }
  impl->present = false;
  SourceLoc loc = loc_;
  loc.path = child_path(loc_.path, key);
  return ConfigNode(impl, loc);
}

std::vector<ConfigNode> ConfigNode::items() const {
  std::vector<ConfigNode> out;
  if (!is_seq()) return out;
  size_t i = 0;
  for (const auto& item : impl_->node) {
    auto impl = std::make_shared<Impl>();
    impl->node = static_cast<const YAML::Node&>(item);
    impl->changed_by = impl_->changed_by;
    out.push_back(ConfigNode(impl, loc_of(impl->node, loc_.file, loc_.path + "[" + std::to_string(i++) + "]", impl->changed_by)));
  }
  return out;
}

std::vector<std::pair<std::string, ConfigNode>> ConfigNode::entries() const {
  std::vector<std::pair<std::string, ConfigNode>> out;
  if (!is_map()) return out;
  for (const auto& kv : impl_->node) {
    std::string key = kv.first.IsScalar() ? kv.first.Scalar() : std::string("<complex key>");
    auto impl = std::make_shared<Impl>();
    impl->node = kv.second;
    impl->changed_by = impl_->changed_by;
    SourceLoc loc = loc_of(kv.second.IsNull() ? kv.first : kv.second, loc_.file, child_path(loc_.path, key), impl->changed_by);
    out.push_back({key, ConfigNode(impl, loc)});
  }
  return out;
}

std::string ConfigNode::scalar() const { return is_scalar() ? impl_->node.Scalar() : ""; }

// ---- scalar parsing -------------------------------------------------------------------------

std::optional<int64_t> parse_integer(const ConfigNode& n, Diagnostics& diag, int64_t min_value, int64_t max_value) {
  if (!n.is_scalar()) {
    diag.add(n.loc(), "expected an integer, found a " + n.kind_name());
    return std::nullopt;
  }
  const std::string s = n.scalar();
  size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(s, &used);
  } catch (...) {
    used = 0;
  }
  if (used == 0 || used != s.size()) {
    diag.add(n.loc(), "expected an integer, found '" + s + "'");
    return std::nullopt;
  }
  if (v < min_value) {
    diag.add(n.loc(), "must be at least " + std::to_string(min_value) + ", found " + s);
    return std::nullopt;
  }
  if (v > max_value) {
    diag.add(n.loc(), "must be at most " + std::to_string(max_value) + ", found " + s);
    return std::nullopt;
  }
  return static_cast<int64_t>(v);
}

std::optional<double> parse_number(const ConfigNode& n, Diagnostics& diag, double min_value) {
  if (!n.is_scalar()) {
    diag.add(n.loc(), "expected a number, found a " + n.kind_name());
    return std::nullopt;
  }
  const std::string s = n.scalar();
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(s, &used);
  } catch (...) {
    used = 0;
  }
  if (used == 0 || used != s.size() || !std::isfinite(v)) {
    diag.add(n.loc(), "expected a number, found '" + s + "'");
    return std::nullopt;
  }
  if (v < min_value) {
    std::ostringstream os;
    os << "must be at least " << min_value << ", found " << s;
    diag.add(n.loc(), os.str());
    return std::nullopt;
  }
  return v;
}

// ---- MapReader ------------------------------------------------------------------------------

MapReader::MapReader(const ConfigNode& node, Diagnostics& diag)
    : node_(node), diag_(diag), ok_(node.is_map()) {
  if (ok_) return;
  // An empty file's document has no position: say so at its start (QA pass 9).
  SourceLoc at = node.loc();
  const bool empty_file = at.path.empty() && at.line == 0 && node.is_null();
  if (empty_file) at.line = 1, at.col = 1;
  diag_.add(at, empty_file ? "the file is empty: expected a mapping (key: value)"
                           : "expected a mapping (key: value), found a " + node.kind_name());
}

bool MapReader::has(const std::string& key) const { return node_.has(key); }

ConfigNode MapReader::child(const std::string& key) {
  known_.insert(key);
  return node_[key];
}

std::optional<std::string> MapReader::str(const std::string& key, bool required) {
  auto n = present(key, required);
  if (!n) return std::nullopt;
  if (!n->is_scalar()) {
    diag_.add(n->loc(), "expected a string, found a " + n->kind_name());
    return std::nullopt;
  }
  // Names are printed in tables and written in files' comment lines, where a control character
  // (a newline, an escape sequence) would break the line or the terminal.
  const std::string text = n->scalar();
  const bool control = std::any_of(text.begin(), text.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; });
  if (key == "name" && control) {
    diag_.add(n->loc(), "a name may not hold control characters such as a newline or a tab");
    return std::nullopt;
  }
  return text;
}

std::string MapReader::str_or(const std::string& key, const std::string& fallback) {
  auto v = str(key, false);
  return v ? *v : fallback;
}

std::optional<ConfigNode> MapReader::present(const std::string& key, bool required) {
  ConfigNode n = child(key);
  if (n.valid() && !n.is_null()) return n;
  if (required && ok_) diag_.add(n.loc(), "missing required key '" + key + "'");
  return std::nullopt;
}

std::optional<int64_t> MapReader::integer(const std::string& key, bool required,
                                          int64_t min_value, int64_t max_value) {
  auto n = present(key, required);
  return n ? parse_integer(*n, diag_, min_value, max_value) : std::nullopt;
}

int64_t MapReader::integer_or(const std::string& key, int64_t fallback, int64_t min_value, int64_t max_value) {
  auto v = integer(key, false, min_value, max_value);
  return v ? *v : fallback;
}

std::optional<double> MapReader::number(const std::string& key, bool required, double min_value) {
  auto n = present(key, required);
  return n ? parse_number(*n, diag_, min_value) : std::nullopt;
}

double MapReader::number_or(const std::string& key, double fallback, double min_value) {
  auto v = number(key, false, min_value);
  return v ? *v : fallback;
}

bool MapReader::boolean_or(const std::string& key, bool fallback) {
  auto n = present(key, false);
  if (!n) return fallback;
  const std::string v = n->scalar();
  if (v == "true" || v == "yes") return true;
  if (v == "false" || v == "no") return false;
  diag_.add(n->loc(), "'" + key + "' must be true or false, not '" + v + "'");
  return fallback;
}

std::vector<std::string> MapReader::str_list_or(const std::string& key,
                                                std::vector<std::string> fallback) {
  ConfigNode n = child(key);
  if (!n.valid() || n.is_null()) return fallback;
  std::vector<std::string> out;
  if (n.is_scalar()) return {n.scalar()};
  if (!n.is_seq()) {
    diag_.add(n.loc(), "expected a list of names, found a " + n.kind_name());
    return fallback;
  }
  for (const auto& item : n.items()) {
    if (item.is_scalar())
      out.push_back(item.scalar());
    else
      diag_.add(item.loc(), "expected a name, found a " + item.kind_name());
  }
  return out;
}

void MapReader::finish() {
  if (!ok_) return;
  std::vector<std::string> known(known_.begin(), known_.end());
  for (const auto& [key, value] : node_.entries()) {
    if (known_.count(key)) continue;
    std::string hint = closest_match(key, known);
    diag_.add(value.loc(), "unknown key '" + key + "'" +
                               (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
  }
}

}  // namespace dfx
