#pragma once
// Files the CLI writes (--out, --json, --html, programs): checked before a long run starts, and
// a write that fails (a full disk, a directory in the way) said with its reason.
#include <string>

#include "arch/errors.h"

namespace dfx::cli {

// A file that could not be written (told apart from errors in what was to be written).
class WriteError : public InputError {
 public:
  using InputError::InputError;
};

// Contract: returns if `path` can be created or overwritten as a file ('-' is standard output);
// else throws WriteError naming `option` and why (no such directory, a directory, not writable).
// Creates nothing.
void check_writable(const std::string& path, const std::string& option);

// Writes `bytes` to `path` and closes it. Contract: WriteError with the system's reason if any
// of it fails, including on close (a full device reports only then).
void write_bytes(const std::string& path, const std::string& bytes);

}  // namespace dfx::cli
