// `dfx emit`, which lowers a dataflow to programs, and `dfx asm` and `dfx disasm`: programs between
// their text and binary forms, checked on the way.
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "arch/isa.h"
#include "mapper/lower.h"
#include "model/dataflow.h"
#include "model/workload.h"
#include "tools/commands.h"
#include "tools/output_files.h"

namespace dfx::cli {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(SourceLoc{path, 0, 0, ""}, "cannot open file");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_program(const arch::Program& p, const arch::Arch& a, const std::string& path, const std::string& header) {
  const bool binary = path.size() > 4 && path.compare(path.size() - 4, 4, ".bin") == 0;
  if (binary) {
    const std::vector<uint8_t> bytes = arch::encode_program(p);
    write_bytes(path, std::string(bytes.begin(), bytes.end()));
  } else {
    write_bytes(path, header + arch::print_program(p, a));
  }
}

}  // namespace

arch::DType parse_dtype(const std::string& name, const model::Workload& w) {
  if (name == "int16") return arch::DType::Int16;
  if (name == "fp16") return arch::DType::Fp16;
  if (name == "bf16") return arch::DType::Bf16;
  return mapper::default_dtype(w);  // auto
}

std::string why_not_lowerable(const arch::Arch& a, const model::Workload& w, const model::Dataflow& f, arch::DType dtype,
                              bool where) {
  try {
    mapper::check_lowering(a, w, f, dtype);
  } catch (const InputError& e) {
    if (e.problems().empty()) return e.what();
    return where ? e.problems().front().str() : e.problems().front().message;
  }
  return "";
}

std::vector<std::string> emit_lowered(const arch::Arch& a, const model::Workload& w, const model::Dataflow& f, const std::string& dtype,
                                      const std::string& out, const std::string& source) {
  const mapper::Lowered l = mapper::lower(a, w, f, parse_dtype(dtype, w));
  std::vector<std::string> paths;
  for (size_t c = 0; c < l.programs.size(); ++c) {
    paths.push_back(core_path(out, c));
    write_program(l.programs[c], a, paths.back(),
                  "# " + w.name + " on " + a.name + ", dataflow '" + f.name + "' (" + source + "), lowered by dfx emit.\n");
  }
  return paths;
}

int run_emit(const EmitOptions& o) {
  const arch::Arch a = load_arch(o.in);
  if (o.out == "-") throw InputError(SourceLoc{"--out", 0, 0, ""}, "needs a file path: it writes one program per core beside it");
  FilePlan files{{o.in.arch, o.in.workload, o.in.flow}, {}, {}};
  for (int64_t c = 0; c < a.cores; ++c) files.outputs.push_back({c == 0 ? "--out" : "--out (core " + std::to_string(c) + ")", core_path(o.out, static_cast<size_t>(c))});
  check_files(files);
  const model::Workload w = load_workload(o.in);
  const model::Dataflow f = model::load_dataflow(o.in.flow, a, w);
  const std::vector<std::string> paths = emit_lowered(a, w, f, o.dtype, o.out, shell_word(o.in.flow) + change_words(o.in));
  std::cout << "wrote " << paths.size() << " program(s):";
  for (const auto& p : paths) std::cout << ' ' << p;
  std::cout << "\nrun them with: " << simulate_command(o.in, paths) << '\n';
  return 0;
}

std::string simulate_command(const Inputs& in, const std::vector<std::string>& programs) {
  std::string s = "dfx simulate " + shell_word(in.arch) + change_words(in.sets, {});
  for (const auto& p : programs) s += ' ' + shell_word(p);
  return s;
}

int run_asm(const std::string& arch_path, const std::string& in, const std::string& out) {
  arch::Arch a = arch::load_arch(arch_path);
  arch::Program p = arch::parse_program(read_text(in), in, a);
  arch::check_program(p, a, in);
  const std::vector<uint8_t> bytes = arch::encode_program(p);
  write_bytes(out, std::string(bytes.begin(), bytes.end()));
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
