#include "tools/commands.h"
#include "tools/output_files.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "arch/arch.h"
#include "arch/config.h"
#include "mapper/lower.h"
#include "mapper/search.h"
#include "model/analyze.h"
#include "model/dataflow.h"
#include "model/report_io.h"
#include "model/workload.h"

namespace dfx::cli {

namespace {

std::vector<Override> changes(const std::vector<std::string>& typed, const std::string& option, const std::string& under) {
  std::vector<Override> out;
  for (const auto& t : typed) {
    Override c = parse_override(t, option);
    if (!under.empty()) c.path = under + "." + c.path, c.may_add = false;  // --dim names a dim there is
    out.push_back(std::move(c));
  }
  return out;
}

// A problem found in a document read with changes says which (it points into the file, which as
// shipped may be fine), unless it is located at a change itself (its file names one of `options`).
[[noreturn]] void rethrow_with_changes(const InputError& e, const std::string& with, const std::vector<std::string>& options) {
  std::vector<Problem> problems = e.problems();
  for (Problem& p : problems) {
    const bool at_change = std::any_of(options.begin(), options.end(), [&](const std::string& o) {
      return p.where.file == o || p.where.file.find("(" + o + ")") != std::string::npos;
    });
    if (!at_change) p.message += " (with" + with + ")";
  }
  throw InputError(problems);
}

// Loads with the changes made.
template <class Load>
auto load_changed(const Load& load, const std::vector<std::string>& typed, const std::string& option) {
  try {
    return load();
  } catch (const InputError& e) {
    if (typed.empty()) throw;
    std::string with;
    for (const auto& t : typed) with += " " + option + " " + shell_word(t);
    rethrow_with_changes(e, with, {option});
  }
}

}  // namespace

arch::Arch load_arch(const std::string& path, const std::vector<std::string>& sets) {
  const std::vector<Override> made = changes(sets, "--set", "");
  return load_changed([&] { return arch::load_arch(path, made); }, sets, "--set");
}

arch::Arch load_arch(const Inputs& in) { return load_arch(in.arch, in.sets); }

model::Workload load_workload(const Inputs& in) {
  const std::vector<Override> made = changes(in.dims, "--dim", "dims");
  return load_changed([&] { return model::load_workload(in.workload, made); }, in.dims, "--dim");
}

std::string shell_word(const std::string& t) {
  const bool plain = !t.empty() && t.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:=+,-@%") == std::string::npos;
  if (plain) return t;
  bool control = false;
  for (unsigned char c : t) control = control || c < 0x20 || c == 0x7f;
  std::string out;
  if (!control) {  // '...', each ' closed, escaped and opened again
    for (char c : t) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return "'" + out + "'";
  }
  // $'...' (bash, zsh, ksh, POSIX 2024): a newline in the word would end a comment line that shows it.
  for (unsigned char c : t) {
    char escaped[8];
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\\' || c == '\'') out += '\\', out += static_cast<char>(c);
    else if (c < 0x20 || c == 0x7f) std::snprintf(escaped, sizeof escaped, "\\x%02x", c), out += escaped;
    else out += static_cast<char>(c);
  }
  return "$'" + out + "'";
}

std::string change_words(const std::vector<std::string>& sets, const std::vector<std::string>& dims) {
  std::string s;
  for (const auto& t : sets) s += " --set " + shell_word(t);
  for (const auto& t : dims) s += " --dim " + shell_word(t);
  return s;
}

namespace {

// For a flow dfx explore wrote with --set or --dim changes that this command does not make: a
// note saying so (its factors fit the changed sizes: "factor 1024 for 'l' exceeds its extent 512"
// alone did not say why). "" otherwise.
std::string found_with_other_changes(const Inputs& in) {
  std::ifstream flow(in.flow);
  std::string first;
  const std::string found_by = kFoundBy;
  if (!flow || !std::getline(flow, first) || first.rfind(found_by, 0) != 0) return "";
  const std::string ours = change_words(in);
  std::string theirs;
  std::istringstream words(first.substr(found_by.size()));
  for (std::string word, value; words >> word;)
    if ((word == "--set" || word == "--dim") && words >> value) theirs += " " + word + " " + value;
  if (theirs.empty() || theirs == ours) return "";
  return "note: " + in.flow + " was found with" + theirs + " (its first line); give the same changes to analyse it as found\n";
}

}  // namespace

int run_eval(const EvalOptions& o) {
  if (!o.json.empty()) check_files({{o.in.arch, o.in.workload, o.in.flow}, {{"--json", o.json}}, {}});
  arch::Arch a = load_arch(o.in);
  model::Workload w = load_workload(o.in);
  model::Dataflow f;
  try {
    f = model::load_dataflow(o.in.flow, a, w);
  } catch (const InputError&) {
    std::cerr << found_with_other_changes(o.in);
    throw;
  }
  // With --json -, standard output carries the JSON alone (for a pipe into jq): the rest to stderr.
  std::ostream& table = o.json == "-" ? std::cerr : std::cout;
  if (o.explain) table << model::explain(f, a, w) << '\n';
  model::Report r = model::analyze(a, w, f);
  table << "dfx eval: " << f.name << " of " << w.name << " on " << a.name << change_words(o.in) << "\n\n";
  table << model::to_table(r);
  // Figures of a tree no program runs are the model's alone (a QA pass took eval's figures for a
  // flow that splits a reduction over the cores as the chip's): said below the table.
  if (r.valid)
    if (const std::string why = why_not_lowerable(a, w, f, mapper::default_dtype(w), true); !why.empty())
      table << "\nnote: dfx emit cannot lower this dataflow to programs, so dfx compare cannot check these figures against a "
               "simulation: "
            << why << '\n';
  if (!o.json.empty()) {
    std::string text = model::to_json(r, o.in.arch, o.in.workload, o.in.flow, {o.in.sets, o.in.dims}, a.clock_ghz);
    if (o.json == "-") {
      std::cout << text;
    } else {
      write_bytes(o.json, text);
    }
  }
  if (!r.valid) {
    for (const auto& p : r.problems) std::cerr << p.str() << '\n';
    std::cerr << found_with_other_changes(o.in);
    return 2;
  }
  return 0;
}

namespace {

// What kind of input a file is, from its top-level keys.
std::string kind_of(const std::string& path) {
  ConfigNode root = ConfigNode::load_file(path);
  if (root.has("levels") || root.has("compute")) return "arch";
  if (root.has("ops") || root.has("dims")) return "workload";
  if (root.has("tree")) return "flow";
  return "unknown";
}

}  // namespace

int run_validate(const ValidateOptions& o) {
  int bad = 0;
  std::unique_ptr<arch::Arch> a;
  std::unique_ptr<model::Workload> w;
  bool any_arch = false, any_workload = false;
  // An arch and a workload given together: `dfx explore` must be able to search them (every op
  // has a unit and instructions there, the outermost level holds the inputs and outputs, an
  // on-chip level to tile into). Where not, a flow after them is not analysed: its analysis
  // would say so again, at its leaves.
  bool pair_cannot_run = false;
  auto check_pair = [&] {
    try {
      mapper::check_explorable(*a, *w);
    } catch (const InputError& e) {
      pair_cannot_run = true;
      const std::string with = change_words(o.sets, o.dims);
      if (with.empty()) throw;
      rethrow_with_changes(e, with, {"--set", "--dim"});
    }
  };
  for (const auto& path : o.files) {
    try {
      std::string kind = kind_of(path);
      if (kind == "arch") {
        any_arch = true;
        a = std::make_unique<arch::Arch>(load_arch(path, o.sets));
        if (w) check_pair();
      } else if (kind == "workload") {
        any_workload = true;
        w = std::make_unique<model::Workload>(load_workload(Inputs{"", path, "", {}, o.dims}));
        if (a) check_pair();
      } else if (kind == "flow") {
        if (!a || !w) throw InputError(SourceLoc{path, 0, 0, ""}, "a flow file needs an arch and a workload file before it on the command line");
        model::Dataflow f = model::load_dataflow(path, *a, *w);
        if (pair_cannot_run)
          throw InputError(SourceLoc{path, 0, 0, ""}, "not analysed: arch '" + a->name + "' cannot run workload '" + w->name +
                                                          "' (the problems above)");
        model::Report r = model::analyze(*a, *w, f);
        if (!r.valid) throw InputError(r.problems);
      } else {
        throw InputError(SourceLoc{path, 1, 1, ""}, "not an arch, workload or flow file (expected top-level 'levels', 'ops' or 'tree')");
      }
      const std::string with = kind == "arch" ? change_words(o.sets, {}) : kind == "workload" ? change_words({}, o.dims) : "";
      std::cout << path << ": ok (" << kind << (with.empty() ? "" : ", with" + with) << ")\n";
    } catch (const InputError& e) {
      std::cerr << e.what() << '\n';
      ++bad;
    }
  }
  // A change with nothing to change would pass unchecked: say so rather than report "ok".
  auto unused = [&](const std::vector<std::string>& typed, bool any, const std::string& option, const std::string& kind) {
    if (typed.empty() || any) return;
    std::cerr << InputError(SourceLoc{option, 0, 0, ""}, option + " " + shell_word(typed.front()) + ": no " + kind +
                                                             " file among the files to change").what()
              << '\n';
    ++bad;
  };
  unused(o.sets, any_arch, "--set", "arch");
  unused(o.dims, any_workload, "--dim", "workload");
  return bad ? 2 : 0;
}

}  // namespace dfx::cli
