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

// A symlink whose target does not exist yet names the file that writing it makes: its target,
// followed link by link (stat() cannot, and weakly_canonical() takes the link for the file).
std::string dangling_target(std::string path) {
  for (int hops = 0; hops < 40; ++hops) {  // the kernel's own limit on a chain of links
    std::error_code ec;
    if (!std::filesystem::is_symlink(path, ec)) break;
    const std::filesystem::path target = std::filesystem::read_symlink(path, ec);
    if (ec) break;
    path = target.is_absolute() ? target.string() : (std::filesystem::path(path).parent_path() / target).string();
  }
  return path;
}

// The file a path names, however spelled: an existing one by device and inode (hard links,
// symlinks, ./x and ../x alike; '-' is standard output's), one still to be made by its path
// (a dangling symlink's target) with its directories' symlinks and dots resolved.
std::string identity(const std::string& path) {
  struct stat st {};
  if (path == "-" ? ::fstat(STDOUT_FILENO, &st) == 0 : ::stat(path.c_str(), &st) == 0)
    return "inode " + std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
  std::error_code ec;
  const std::filesystem::path p = std::filesystem::weakly_canonical(std::filesystem::absolute(dangling_target(path), ec), ec);
  return ec ? path : p.string();
}

// A device that takes any number of writers (/dev/null, a terminal) is no one's to claim.
bool shared_sink(const std::string& path) {
  struct stat st {};
  return path != "-" && ::stat(path.c_str(), &st) == 0 && S_ISCHR(st.st_mode);
}

// `made`: directories the command makes before it writes its files (--outputs out/ beside
// --trace out/trace.json), checked on their own.
void check_writable(const std::string& path, const std::string& named, const std::vector<std::string>& made) {
  struct stat st {};
  if (path.empty()) fail(named, "an empty path");
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) fail(named, "it is a directory");
    if (::access(path.c_str(), W_OK) != 0) fail(named, std::strerror(errno));
    return;
  }
  const std::string dir = parent_of(path);
  const auto normal = [](const std::string& p) { return (std::filesystem::path(p) / "").lexically_normal(); };
  for (const std::string& m : made)
    if (normal(m) == normal(dir)) return;
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
  // Made at the end, with any missing parents: the nearest existing one must take them.
  std::string up = path;
  while (::stat(up.c_str(), &st) != 0) {
    const std::string parent = parent_of(up);
    if (parent == up) break;
    up = parent;
  }
  if (!S_ISDIR(st.st_mode)) fail(named, up + " is not a directory");
  if (::access(up.c_str(), W_OK) != 0) fail(named, up + ": " + std::strerror(errno));
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
  std::vector<std::string> made;
  for (const auto& [option, dir] : plan.dirs) {
    check_directory(dir, option + " " + dir);
    made.push_back(dir);
  }
  for (const auto& [option, path] : plan.outputs) {
    if (path != "-") check_writable(path, option + " " + path, made);
    if (!shared_sink(path)) claim(option, path);
  }
  for (const auto& [option, dir] : plan.dirs) claim(option, dir);
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) fail(path, std::strerror(errno));
  const size_t written = std::fwrite(bytes.data(), 1, bytes.size(), f);
  const int write_errno = errno;
  if (std::fclose(f) != 0) fail(path, std::strerror(errno));
  if (written != bytes.size()) fail(path, std::strerror(write_errno));
}

std::string beside(const std::string& path, const std::string& tag, const std::string& ext) {
  const size_t dot = path.find_last_of('.'), slash = path.find_last_of('/');
  const bool has_ext = dot != std::string::npos && dot > (slash == std::string::npos ? 0 : slash + 1);  // .hidden has none
  return has_ext ? path.substr(0, dot) + "." + tag + path.substr(dot) : path + "." + tag + ext;
}

}  // namespace dfx::cli
