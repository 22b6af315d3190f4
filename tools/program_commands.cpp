// `dfx asm` and `dfx disasm`: programs between their text and binary forms, checked on the way.
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "arch/isa.h"
#include "tools/commands.h"

namespace dfx::cli {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(SourceLoc{path, 0, 0, ""}, "cannot open file");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

int run_asm(const std::string& arch_path, const std::string& in, const std::string& out) {
  arch::Arch a = arch::load_arch(arch_path);
  arch::Program p = arch::parse_program(read_text(in), in, a);
  arch::check_program(p, a, in);
  const std::vector<uint8_t> bytes = arch::encode_program(p);
  std::ofstream f(out, std::ios::binary);
  if (!f) throw InputError(SourceLoc{out, 0, 0, ""}, "cannot write");
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  std::cout << in << ": " << p.code.size() << " instructions, " << bytes.size() << " bytes → " << out << '\n';
  return 0;
}

int run_disasm(const std::string& arch_path, const std::string& in) {
  arch::Arch a = arch::load_arch(arch_path);
  std::ifstream f(in, std::ios::binary);
  if (!f) throw InputError(SourceLoc{in, 0, 0, ""}, "cannot open file");
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  arch::Program p = arch::decode_program(bytes, in);
  arch::check_program(p, a, in);
  std::cout << arch::print_program(p, a);
  return 0;
}

}  // namespace dfx::cli
