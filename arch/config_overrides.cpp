// Changes to a configuration document given on the command line (`--set KEY.PATH=VALUE`,
// `--dim NAME=SIZE`): parsed, and made to the document before it is read (ConfigNode::load_file).
#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <vector>

#include "arch/config.h"
#include "arch/config_internal.h"

namespace dfx {

Override parse_override(const std::string& text, const std::string& option) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || text.front() == '.' || text[eq - 1] == '.')
    throw InputError(SourceLoc{option, 0, 0, ""}, (option == "--dim" ? "expected NAME=SIZE such as l=1024, found '"
                                                                      : "expected KEY.PATH=VALUE such as levels.L1.capacity=2MB, found '") +
                                                      text + "'");
  return Override{text.substr(0, eq), text.substr(eq + 1), option, true, text};
}

namespace {

std::vector<std::string> path_steps(const std::string& path) {
  std::vector<std::string> steps;
  for (size_t at = 0;;) {
    const size_t dot = path.find('.', at);
    steps.push_back(path.substr(at, dot == std::string::npos ? std::string::npos : dot - at));
    if (dot == std::string::npos) return steps;
    at = dot + 1;
  }
}

// The element of a sequence a step names: its index, or the element mapping whose `name` it is.
std::optional<size_t> element(const YAML::Node& seq, const std::string& step, std::vector<std::string>& names) {
  if (!step.empty() && step.find_first_not_of("0123456789") == std::string::npos) {
    const size_t i = std::stoul(step);
    if (i < seq.size()) return i;
  }
  for (size_t i = 0; i < seq.size(); ++i) {
    const YAML::Node name = seq[i].IsMap() ? seq[i]["name"] : YAML::Node();
    if (!name.IsDefined() || !name.IsScalar()) continue;
    if (name.Scalar() == step) return i;
    names.push_back(name.Scalar());
  }
  return std::nullopt;
}

// A copy without positions: a problem in a value from the command line must not point at a line
// of the file.
YAML::Node unmarked(const YAML::Node& n) {
  if (n.IsScalar()) return YAML::Node(n.Scalar());
  YAML::Node out(n.IsMap() ? YAML::NodeType::Map : n.IsSequence() ? YAML::NodeType::Sequence : YAML::NodeType::Null);
  if (n.IsMap())
    for (const auto& kv : n) out[unmarked(kv.first)] = unmarked(kv.second);
  if (n.IsSequence())
    for (const auto& item : n) out.push_back(unmarked(item));
  return out;
}

YAML::Node override_value(const std::string& value, const SourceLoc& where) {
  if (value.empty() || (value.front() != '{' && value.front() != '[')) return YAML::Node(value);
  try {
    return unmarked(YAML::Load(value));
  } catch (const YAML::Exception& e) {
    throw InputError(where, "the value '" + value + "' is not a YAML flow mapping or sequence: " + e.msg);
  }
}

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

}  // namespace

std::string apply_override(YAML::Node root, const Override& change) {
  const std::vector<std::string> steps = path_steps(change.path);
  YAML::Node at = root;
  std::string walked, canonical;
  for (size_t i = 0; i < steps.size(); ++i) {
    const std::string& step = steps[i];
    const bool last = i + 1 == steps.size();
    const SourceLoc where{change.origin, 0, 0, child_path(walked, step)};
    if (at.IsSequence()) {
      std::vector<std::string> names;
      const std::optional<size_t> k = element(at, step, names);
      if (!k)
        throw InputError(where, "'" + (walked.empty() ? std::string("the document") : walked) + "' has no element '" + step +
                                    "' (" + std::to_string(at.size()) + " elements" + (names.empty() ? "" : ": " + joined(names)) + ")");
      canonical = child_path(canonical, std::to_string(*k));
      if (last) at[*k] = override_value(change.value, where);
      else at.reset(at[*k]);
    } else if (at.IsMap()) {
      std::vector<std::string> keys;
      bool found = false;
      for (const auto& kv : at) {
        if (!kv.first.IsScalar()) continue;
        keys.push_back(kv.first.Scalar());
        found |= kv.first.Scalar() == step;
      }
      if (!found && !(last && change.may_add)) {
        throw InputError(where, "no key '" + step + "'" + (walked.empty() ? "" : " in '" + walked + "'") +
                                    names_hint(step, keys, "keys"));
      }
      canonical = child_path(canonical, step);
      if (last) at[step] = override_value(change.value, where);
      else at.reset(at[step]);
    } else {
      throw InputError(where, "'" + walked + "' is a " + (at.IsScalar() ? "scalar" : "null") + ", not a mapping or sequence");
    }
    walked = child_path(walked, step);
  }
  return canonical;
}

}  // namespace dfx
