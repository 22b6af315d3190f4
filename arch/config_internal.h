#pragma once
// What arch/config.cpp and arch/config_overrides.cpp share, the two files that include yaml-cpp.
// Internal to arch/.
#include <yaml-cpp/yaml.h>

#include <string>

#include "arch/config.h"

namespace dfx {

// A key path one step deeper ("levels" + "L1" → "levels.L1").
std::string child_path(const std::string& base, const std::string& key);

// Makes `change` in the document `root` (a handle: assigning through it changes the document).
// Returns the path it changed with each sequence element by its index ("levels.1.capacity" for
// levels.L1.capacity), so that two spellings of one value compare equal.
// Contract: InputError located at the change's origin and key path where the path leads nowhere.
std::string apply_override(YAML::Node root, const Override& change);

}  // namespace dfx
