#include "tools/output_files.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>


namespace dfx::cli {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& why) {
  throw WriteError(SourceLoc{path, 0, 0, ""}, "cannot write: " + why);
}

}  // namespace

void check_writable(const std::string& path, const std::string& option) {
  if (path == "-") return;
  const std::string named = option + " " + path;
  struct stat st {};
  if (path.empty()) fail(option, "an empty path");
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) fail(named, "it is a directory");
    if (::access(path.c_str(), W_OK) != 0) fail(named, std::strerror(errno));
    return;
  }
  const size_t slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  if (::stat(dir.c_str(), &st) != 0) fail(named, "no directory " + dir);
  if (!S_ISDIR(st.st_mode)) fail(named, dir + " is not a directory");
  if (::access(dir.c_str(), W_OK) != 0) fail(named, dir + ": " + std::strerror(errno));
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) fail(path, std::strerror(errno));
  const size_t written = std::fwrite(bytes.data(), 1, bytes.size(), f);
  const int write_errno = errno;
  if (std::fclose(f) != 0) fail(path, std::strerror(errno));
  if (written != bytes.size()) fail(path, std::strerror(write_errno));
}

}  // namespace dfx::cli
