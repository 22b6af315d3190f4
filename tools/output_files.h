#pragma once
// Files the CLI writes (--out, --json, --html, programs, traces): checked before a long run
// starts, and a write that fails (a full disk) said with its reason.
#include <string>
#include <utility>
#include <vector>

#include "arch/errors.h"

namespace dfx::cli {

// A file that could not be written (told apart from errors in what was to be written).
class WriteError : public InputError {
 public:
  using InputError::InputError;
};

// What a command reads and what it will write, checked together before it starts.
struct FilePlan {
  std::vector<std::string> inputs;                           // files it reads
  std::vector<std::pair<std::string, std::string>> outputs;  // (option, path) it writes; '-': standard output
  std::vector<std::pair<std::string, std::string>> dirs;     // (option, directory) it writes files into
};

// Contract: returns if every output can be created or overwritten as a file and every directory
// is one or can be made, and no two of them, and none of them and an input, are the same file
// (however the paths are spelled: ./x, a symlink, a hard link, absolute or relative; '-' is
// standard output, which one output may take; devices such as /dev/null any). Else throws
// InputError naming the option and why. Creates nothing. An output may lie in one of `dirs` not
// made yet (--trace out/t.json beside --outputs out/): the command makes its dirs first.
void check_files(const FilePlan& plan);

// Writes `bytes` to `path` and closes it. Contract: WriteError with the system's reason if any
// of it fails, including on close (a full device reports only then).
void write_bytes(const std::string& path, const std::string& bytes);

// A file named after `path` with `tag` before its extension: flow.yaml → flow.2.yaml, prog.s →
// prog.core1.s; without an extension, `tag` and then `ext` at the end.
std::string beside(const std::string& path, const std::string& tag, const std::string& ext = "");
// The program of core `core` beside `path`: prog.s, prog.core1.s, ...
inline std::string core_path(const std::string& path, size_t core) {
  return core == 0 ? path : beside(path, "core" + std::to_string(core));
}

}  // namespace dfx::cli
