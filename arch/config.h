#pragma once
// The project's own view of a YAML document: every node knows its file, line, column and key
// path. yaml-cpp is included only in config.cpp.
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "arch/errors.h"

namespace dfx {

// One change to a document, given on the command line: the value at a key path, "levels.L1.capacity"
// = "2 MB". A path's steps are mapping keys, or for a sequence an element's index or the `name`
// of the element mapping ("levels.L1" or "levels.1").
struct Override {
  std::string path, value;
  std::string origin;   // where it was given, for messages: "--set"
  bool may_add = true;  // the last key may be new (an optional key the document left out)
  std::string typed;    // as it was given ("l=1024"), for messages
};

// "KEY.PATH=VALUE" as an Override from `option` ("--set"); InputError located there otherwise.
Override parse_override(const std::string& text, const std::string& option);

class ConfigNode {
 public:
  // Contract: a syntax error throws InputError with its line and column; never returns a bad tree.
  // `changes` are made to the document once read (a scalar value, or a flow mapping or sequence
  // when it starts with '{' or '['); a path that leads nowhere throws InputError located at the
  // change's origin and key path.
  static ConfigNode load_file(const std::string& path, const std::vector<Override>& changes = {});
  static ConfigNode load_string(const std::string& text, const std::string& name, const std::vector<Override>& changes = {});

  bool valid() const;  // false for a missing key
  bool is_map() const;
  bool is_seq() const;
  bool is_scalar() const;
  bool is_null() const;
  const SourceLoc& loc() const { return loc_; }
  std::string kind_name() const;  // "mapping", "sequence", "scalar", "null", "missing"

  bool has(const std::string& key) const;
  ConfigNode operator[](const std::string& key) const;
  std::vector<ConfigNode> items() const;                              // sequence elements
  std::vector<std::pair<std::string, ConfigNode>> entries() const;    // mapping entries, in order
  std::string scalar() const;  // raw text of a scalar ("" otherwise)

 private:
  struct Impl;
  ConfigNode(std::shared_ptr<const Impl> impl, SourceLoc loc);
  std::shared_ptr<const Impl> impl_;
  SourceLoc loc_;
};

// Reads the keys of one mapping with types and defaults; remembers which keys were read so that
// finish() can report the rest as unknown. Problems go to the Diagnostics, never thrown here.
class MapReader {
 public:
  MapReader(const ConfigNode& node, Diagnostics& diag);
  bool ok() const { return ok_; }
  const ConfigNode& node() const { return node_; }
  bool has(const std::string& key) const;
  ConfigNode child(const std::string& key);  // marks the key as known

  std::optional<std::string> str(const std::string& key, bool required);
  std::string str_or(const std::string& key, const std::string& fallback);
  // At least `min_value` and at most `max_value`, else a located problem.
  std::optional<int64_t> integer(const std::string& key, bool required, int64_t min_value,
                                 int64_t max_value = std::numeric_limits<int64_t>::max());
  int64_t integer_or(const std::string& key, int64_t fallback, int64_t min_value,
                     int64_t max_value = std::numeric_limits<int64_t>::max());
  std::optional<double> number(const std::string& key, bool required, double min_value);
  double number_or(const std::string& key, double fallback, double min_value);
  std::vector<std::string> str_list_or(const std::string& key, std::vector<std::string> fallback);
  bool boolean_or(const std::string& key, bool fallback);  // true/false (also yes/no)

  // Contract: reports each key that was never asked for as "unknown key", with a suggestion.
  void finish();

 private:
  ConfigNode node_;
  Diagnostics& diag_;
  bool ok_;
  std::set<std::string> known_;
  // The value of a key that is there and not null; reports a missing required key.
  std::optional<ConfigNode> present(const std::string& key, bool required);
};

// Scalar conversions that report a problem (and return nullopt) instead of throwing.
std::optional<int64_t> parse_integer(const ConfigNode& n, Diagnostics& diag, int64_t min_value,
                                     int64_t max_value = std::numeric_limits<int64_t>::max());
std::optional<double> parse_number(const ConfigNode& n, Diagnostics& diag, double min_value);

}  // namespace dfx
