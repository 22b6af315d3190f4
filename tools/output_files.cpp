#include "tools/output_files.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

namespace dfx::cli {
namespace {

[[noreturn]] void fail(const std::string& where, const std::string& why) {
  throw WriteError(SourceLoc{where, 0, 0, ""}, "cannot write: " + why);
}

std::string parent_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

// The file a path names, however spelled: its directories' symlinks and dots resolved (the file
// itself need not exist).
std::string identity(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path p = std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec);
  return ec ? path : p.string();
}

void check_writable(const std::string& path, const std::string& named) {
  struct stat st {};
  if (path.empty()) fail(named, "an empty path");
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) fail(named, "it is a directory");
    if (::access(path.c_str(), W_OK) != 0) fail(named, std::strerror(errno));
    return;
  }
  const std::string dir = parent_of(path);
  if (::stat(dir.c_str(), &st) != 0) fail(named, "no directory " + dir);
  if (!S_ISDIR(st.st_mode)) fail(named, dir + " is not a directory");
  if (::access(dir.c_str(), W_OK) != 0) fail(named, dir + ": " + std::strerror(errno));
}

void check_directory(const std::string& path, const std::string& named) {
  struct stat st {};
  if (path.empty()) fail(named, "an empty path");
  if (::stat(path.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) fail(named, "it is a file, not a directory");
    if (::access(path.c_str(), W_OK) != 0) fail(named, std::strerror(errno));
    return;
  }
  check_writable(path, named);  // made at the end: its parent must take it
}

}  // namespace

void check_files(const FilePlan& plan) {
  std::vector<std::pair<std::string, std::string>> taken;  // (identity, what it is)
  for (const auto& in : plan.inputs) taken.push_back({identity(in), "an input of this command"});
  auto claim = [&](const std::string& option, const std::string& path) {
    const std::string id = identity(path);
    for (const auto& [other, what] : taken)
      if (other == id) throw InputError(SourceLoc{option + " " + path, 0, 0, ""}, "is " + what + "; one would overwrite the other");
    taken.push_back({id, "also written by " + option});
  };
  for (const auto& [option, path] : plan.outputs) {
    if (path == "-") continue;
    check_writable(path, option + " " + path);
    claim(option, path);
  }
  for (const auto& [option, dir] : plan.dirs) {
    check_directory(dir, option + " " + dir);
    claim(option, dir);
  }
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) fail(path, std::strerror(errno));
  const size_t written = std::fwrite(bytes.data(), 1, bytes.size(), f);
  const int write_errno = errno;
  if (std::fclose(f) != 0) fail(path, std::strerror(errno));
  if (written != bytes.size()) fail(path, std::strerror(write_errno));
}

std::string core_path(const std::string& path, size_t core) {
  if (core == 0) return path;
  const size_t dot = path.find_last_of('.');
  const size_t slash = path.find_last_of('/');
  const bool has_ext = dot != std::string::npos && (slash == std::string::npos || dot > slash);
  return has_ext ? path.substr(0, dot) + ".core" + std::to_string(core) + path.substr(dot) : path + ".core" + std::to_string(core);
}

}  // namespace dfx::cli
