// Programs from files: the binary form if the file starts with the binary header, else text.
#include <algorithm>
#include <fstream>
#include <iterator>

#include "arch/isa.h"

namespace dfx::arch {

Program load_program(const std::string& path, const Arch& a) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw InputError(SourceLoc{path, 0, 0, ""}, "cannot open file");
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  static const std::string kBinary = "DFXPROG";
  const bool binary = bytes.size() >= kBinary.size() && std::equal(kBinary.begin(), kBinary.end(), bytes.begin());
  Program p = binary ? decode_program(bytes, path) : parse_program(std::string(bytes.begin(), bytes.end()), path, a);
  check_program(p, a, path);
  return p;
}

}  // namespace dfx::arch
