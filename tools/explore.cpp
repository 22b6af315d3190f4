// `dfx explore`: search, then a table of the best dataflows next to the baselines.
#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <unistd.h>

#include "arch/config.h"
#include "arch/units.h"
#include "mapper/search.h"
#include "mapper/space.h"
#include "model/report_io.h"
#include "tools/commands.h"
#include "tools/html_report.h"
#include "tools/output_files.h"

namespace dfx::cli {
namespace {

std::atomic<bool> g_stop{false};
void on_interrupt(int) { g_stop = true; }

using model::human;

void print_table(const mapper::Outcome& out, std::FILE* text) {
  double layerwise = 0;
  for (const auto& b : out.baselines)
    if (b.name == "Layerwise") layerwise = b.report.cycles;
  const Figures figures = ranked_figures(out);
  std::fprintf(text, "%-22s %10s %9s %10s %10s %7s %10s\n", "dataflow", "cycles", "speed-up", "DRAM B", "energy pJ", "util",
              "buffer peak");
  auto row = [&](const mapper::Candidate& c) {
    int64_t peak = 0;
    for (size_t l = 1; l < c.report.levels.size(); ++l) peak = std::max(peak, c.report.levels[l].peak_bytes);
    // Without a Layerwise row (--groups or --prims left it out) there is no speed-up to show.
    char speedup[16] = "        -";
    if (layerwise > 0) std::snprintf(speedup, sizeof speedup, "%8.2fx", layerwise / c.report.cycles);
    std::fprintf(text, "%-22s %10s %9s %10s %10s %6.1f%% %10s\n", c.name.c_str(), figures.cycles(c.report.cycles).c_str(),
                speedup, human(static_cast<double>(c.report.dram_bytes)).c_str(),
                figures.energy(c.report.energy_pj).c_str(), 100 * c.report.utilization, human(static_cast<double>(peak)).c_str());
  };
  for (const auto& b : out.baselines) row(b);
  for (const auto& b : out.baselines_not_found)
    std::fprintf(text, "%-22s %10s   (%s)\n", b.name.c_str(), "-", not_found_text(b).c_str());
  if (!out.closed_form_invalid.empty())
    std::fprintf(text, "%-22s %10s   (its tree is not valid here: %s)\n", "Chimera (closed form)", "-", out.closed_form_invalid.c_str());
  for (const auto& b : out.best) row(b);
  for (const auto& b : out.pareto) row(b);
}

// The options that decide what the search finds, as they were typed: a comment in --out's file,
// so that the command can be run again (a search that --time or Ctrl-C ended says so apart:
// the same command may stop elsewhere).
std::string search_words(const ExploreOptions& o) {
  std::string s = " --seed " + std::to_string(o.seed);
  if (o.evals_given || o.seconds <= 0) s += " --evals " + std::to_string(o.evals);
  if (o.seconds > 0) {  // as typed: human()'s rounding read 0.4 as 0 (no limit) and 1234.5 as 1.23K
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.15g", o.seconds);
    s += std::string(" --time ") + seconds;
  }
  if (o.objective != "cycles") s += " --objective " + o.objective;
  auto list = [&](const char* flag, const std::vector<std::string>& v) {
    std::string joined;
    for (size_t i = 0; i < v.size(); ++i) joined += (i == 0 ? "" : ",") + v[i];
    if (!v.empty()) s += std::string(" ") + flag + " " + shell_word(joined);
  };
  list("--prims", o.prims);
  list("--groups", o.groups);
  list("--max-footprint", o.max_footprint);
  for (const auto& f : o.fix) s += " --fix " + shell_word(f);
  if (o.polish) s += " --polish";
  if (o.exhaustive) s += " --exhaustive";
  if (o.mcts) s += " --mcts";
  if (!o.baselines) s += " --no-baselines";
  // --emit searches only what the lowering expresses (dividing factors): it changes the best.
  if (!o.emit.empty()) s += " --emit " + shell_word(o.emit);
  if (o.dtype != "auto") s += " --dtype " + o.dtype;
  return s;
}

// The CLI's words (--objective, --prims, --max-footprint...) as the mapper's options.
mapper::SearchOptions search_options(const ExploreOptions& o) {
  if (o.exhaustive && o.polish)
    throw InputError(SourceLoc{"--polish", 0, 0, ""}, "does not go with --exhaustive, whose best is the optimum of the space already");
  if (o.emit.empty() && o.dtype != "auto")
    throw InputError(SourceLoc{"--dtype", 0, 0, ""}, "is the element type of --emit's programs; give --emit too");
  mapper::SearchOptions s;
  if (o.objective == "cycles") s.objective = mapper::Objective::Cycles;
  else if (o.objective == "energy") s.objective = mapper::Objective::Energy;
  else if (o.objective == "edp") s.objective = mapper::Objective::Edp;
  s.seed = o.seed;
  s.evaluations = o.evals;
  s.seconds = o.seconds;
  s.top = o.top;
  s.jobs = o.jobs;
  s.exhaustive = o.exhaustive;
  s.polish = s.polish_baselines = o.polish;
  s.pareto = o.pareto;
  s.mcts = o.mcts;
  s.baselines = o.baselines;
  for (const auto& p : o.prims) {
    const model::Prim all[] = {model::Prim::Seq, model::Prim::Shar, model::Prim::Para, model::Prim::Pipe};
    bool known = false;
    for (auto prim : all)
      if (p == model::prim_name(prim)) s.prims.push_back(prim), known = true;
    if (!known || p == "Para")
      throw InputError(SourceLoc{"--prims", 0, 0, ""}, "'" + p + "': fused groups may use Seq, Shar or Pipe (Para needs independent ops)");
    if (std::count(s.prims.begin(), s.prims.end(), s.prims.back()) > 1)
      throw InputError(SourceLoc{"--prims", 0, 0, ""}, "'" + p + "' is given twice; name each primitive once");
  }
  for (const auto& group : o.groups) {
    std::vector<std::string> ops;
    for (size_t at = 0;;) {
      const size_t plus = group.find('+', at);
      ops.push_back(group.substr(at, plus == std::string::npos ? std::string::npos : plus - at));
      if (plus == std::string::npos) break;
      at = plus + 1;
    }
    s.groups.push_back(ops);
  }
  s.fix = o.fix;
  for (const auto& limit : o.max_footprint) {
    const size_t eq = limit.find('=');
    Diagnostics diag;
    std::optional<double> bytes;
    if (eq != std::string::npos)
      bytes = parse_bytes(ConfigNode::load_string(limit.substr(eq + 1), "--max-footprint"), diag);
    if (eq == std::string::npos || !bytes || *bytes < 0)
      throw InputError(SourceLoc{"--max-footprint", 0, 0, ""}, "expected LEVEL=SIZE such as L1=2MiB, found '" + limit + "'");
    s.max_footprint.push_back({limit.substr(0, eq), *bytes});
  }
  return s;
}

// A progress line on a terminal, or JSON lines with --log-json.
void attach_progress(const ExploreOptions& o, mapper::SearchOptions& s, bool tty) {
  if (o.log_json)
    s.on_progress = [](const mapper::Progress& p) {
      std::fprintf(stderr, "{\"evaluations\": %lld, \"analyses\": %lld, \"best_cost\": %.17g, \"seconds\": %.3f}\n",
                   static_cast<long long>(p.evaluations), static_cast<long long>(p.analyses), std::isfinite(p.best_cost) ? p.best_cost : -1.0, p.seconds);
    };
  else if (tty)
    s.on_progress = [evals = o.evals, seconds = o.seconds](const mapper::Progress& p) {
      // How far along: of the time where --time bounds it, else of --evals (--polish may go on
      // past 100%: its sweeps come on top).
      const double done = seconds > 0 ? p.seconds / seconds : static_cast<double>(p.evaluations) / static_cast<double>(evals);
      const int filled = static_cast<int>(std::min(1.0, done) * 20);
      std::fprintf(stderr, "\r  [%-20s] %3d%%  %lld evaluations, best %s, %.1f s   ", std::string(static_cast<size_t>(filled), '#').c_str(),
                   static_cast<int>(100 * done), static_cast<long long>(p.evaluations), human(p.best_cost).c_str(), p.seconds);
    };
}

// Writes `text` to `path` ('-': standard output, as the other commands' --json); false (with a
// message) if it cannot: the other outputs are still written.
bool write_file(const std::string& option, const std::string& path, const std::string& text) {
  if (path == "-") {
    std::fflush(stdout);
    std::cout << text << std::flush;
    return true;
  }
  try {
    write_bytes(path, text);
    return true;
  } catch (const WriteError& e) {
    std::cerr << option << ": " << e.what() << '\n';
    return false;
  }
}

// The K-th best's file beside --out's: flow.yaml → flow.2.yaml (FILE.2.yaml without an extension).
std::string kth_path(const std::string& out, size_t k) { return beside(out, std::to_string(k), ".yaml"); }

// --out's files: the best with the command that found it, the K-th bests beside it, and no
// earlier run's K-th for a place this run left empty (it would read as this run's; only files
// with explore's header are removed). False if a write failed (said on stderr).
bool write_flows(const ExploreOptions& o, const mapper::Outcome& out, std::FILE* text) {
  // A path that starts with '-' would read as an option: ./ before it.
  auto positional = [](const std::string& path) { return shell_word(path.rfind('-', 0) == 0 ? "./" + path : path); };
  const std::string found_by = kFoundBy + positional(o.in.arch) + " " + positional(o.in.workload) + change_words(o.in) + search_words(o) + "\n" +
                               (out.interrupted ? "# (stopped by Ctrl-C after " + std::to_string(out.evaluations) + " evaluations)\n" : "");
  bool ok = write_file("--out", o.out, found_by + out.best.front().flow_yaml);
  for (size_t i = 1; i < out.best.size(); ++i)
    ok &= write_file("--out", kth_path(o.out, i + 1), found_by + "# number " + std::to_string(i + 1) + " of --top " + std::to_string(o.top) + "\n" + out.best[i].flow_yaml);
  for (int k = static_cast<int>(out.best.size()) + 1; k <= o.top; ++k) {
    const std::string stale = kth_path(o.out, static_cast<size_t>(k));
    std::ifstream f(stale);
    std::string first;
    if (f && std::getline(f, first) && first.rfind(kFoundBy, 0) == 0) std::remove(stale.c_str());
  }
  if (ok) std::fprintf(text, "\nbest dataflow written to %s%s\n", o.out == "-" ? "standard output" : o.out.c_str(),
                      out.best.size() > 1 ? " (the others beside it)" : "");
  return ok;
}

// Before the search: every file it will write (the K-th bests' and every core's program
// included) can be written, and none is an input or another output.
void check_outputs(const ExploreOptions& o, int64_t cores) {
  if (o.emit == "-") throw InputError(SourceLoc{"--emit", 0, 0, ""}, "needs a file path: it writes one program per core beside it");
  if (o.out == "-" && o.top > 1)
    throw InputError(SourceLoc{"--out", 0, 0, ""}, "'-' takes one dataflow; --top " + std::to_string(o.top) + " writes the others beside a file");
  FilePlan files{{o.in.arch, o.in.workload}, {}, {}};
  if (!o.out.empty()) {
    files.outputs.push_back({"--out", o.out});
    for (int k = 2; k <= o.top; ++k) files.outputs.push_back({"--out (number " + std::to_string(k) + " of --top)", kth_path(o.out, static_cast<size_t>(k))});
  }
  if (!o.json.empty()) files.outputs.push_back({"--json", o.json});
  if (!o.html.empty()) files.outputs.push_back({"--html", o.html});
  if (!o.emit.empty())
    for (int64_t c = 0; c < cores; ++c)
      files.outputs.push_back({c == 0 ? "--emit" : "--emit (core " + std::to_string(c) + ")", core_path(o.emit, static_cast<size_t>(c))});
  check_files(files);
}

// Lowers the best dataflow the lowering can express: the first of the --top K that lowers (its
// buffers may need more room than the model's peak; docs/lowering.md lists the limits).
// Why dfx emit cannot lower a candidate's tree, or "" when it can.
std::string lowering_refusal(const arch::Arch& a, const model::Workload& w, const mapper::Candidate& c, const ExploreOptions& o) {
  return why_not_lowerable(a, w, model::load_dataflow_from_string(c.flow_yaml, c.name, a, w), parse_dtype(o.dtype, w), false);
}

// Without --emit: whether the best can go on to dfx emit, simulate and compare, and if not why
// (a best that splits a GEMM's reduction over the cores relies on the model adding the cores'
// partial sums, which no program does; a QA pass took such a best to emit and was refused).

void say_if_not_lowerable(const arch::Arch& a, const model::Workload& w, const mapper::Outcome& out, const ExploreOptions& o,
                          std::FILE* text) {
  if (const std::string why = lowering_refusal(a, w, out.best.front(), o); !why.empty())
    std::fprintf(text, "\nnote: dfx emit cannot lower best1 to programs (%s); explore --emit searches among those it can\n",
                 why.c_str());
}

// Under --emit the best is one the lowering expresses; a baseline row that is not (the chain
// solver's tree lies outside the search's divisible trees) is there for comparison only, and a
// user should not take its speed-up for a program's (QA pass 9: a closed form at 1488x beside a
// lowerable best at 1.00x).
void say_baselines_not_lowerable(const arch::Arch& a, const model::Workload& w, const mapper::Outcome& out, const ExploreOptions& o,
                                 std::FILE* text) {
  for (const mapper::Candidate& b : out.baselines)
    if (const std::string why = lowering_refusal(a, w, b, o); !why.empty())
      std::fprintf(text, "(%s: for comparison only, dfx emit cannot lower it: %s)\n", b.name.c_str(), why.c_str());
}

// An op that reads one tensor in two ways (a Gram matrix): the searched trees spread neither of
// the dims that tell the reads apart, and the user should know why the units sit idle (QA pass
// 9: such workloads ended with no valid dataflow and advice to raise --evals).
void say_if_read_apart(const model::Workload& w, std::FILE* text) {
  const uint64_t apart = mapper::dims_read_apart(w, 0, w.ops.size());
  if (!apart) return;
  std::string dims;
  for (size_t d = 0; d < w.dims.size() && d < 64; ++d)
    if (apart >> d & 1) dims += (dims.empty() ? "'" : ", '") + w.dims[d].name + "'";
  std::fprintf(text, "\nnote: %s reads a tensor in two ways: the search spreads %s neither over the cores that run them "
               "together nor over PEs with registers of their own, whose slices of it would differ in shape (the analysis "
               "holds one buffer of it per tile, docs/semantics.md)\n",
               w.ops.size() == 1 ? ("'" + w.ops[0].name + "'").c_str() : w.name.c_str(), dims.c_str());
}

bool emit_best(const arch::Arch& a, const model::Workload& w, const mapper::Outcome& out, const ExploreOptions& o, std::FILE* text) {
  for (size_t k = 0; k < out.best.size(); ++k) {
    const std::string which = k == 0 ? "the best" : "number " + std::to_string(k + 1);
    try {
      const model::Dataflow f = model::load_dataflow_from_string(out.best[k].flow_yaml, which + " dataflow", a, w);
      const std::vector<std::string> paths = emit_lowered(a, w, f, o.dtype, o.emit, which + " found by dfx explore");
      std::fprintf(text, "programs (%s dataflow):", which.c_str());
      for (const auto& p : paths) std::fprintf(text, " %s", p.c_str());
      std::fprintf(text, "\nrun them with: %s\n", simulate_command(o.in, paths).c_str());
      return true;
    } catch (const WriteError& e) {
      std::fprintf(stderr, "%s\n", e.what());
      return false;
    } catch (const InputError& e) {
      std::fprintf(stderr, "%s dataflow cannot be lowered: %s\n", which.c_str(), e.what());
    }
  }
  std::fprintf(stderr, "no program written: none of the %zu best dataflows lowers (try a larger --top)\n", out.best.size());
  return false;
}

}  // namespace

int run_explore(const ExploreOptions& o) {
  arch::Arch a = load_arch(o.in);
  model::Workload w = load_workload(o.in);
  mapper::SearchOptions s = search_options(o);
  check_outputs(o, a.cores);
  if (!o.emit.empty()) s.lowering = parse_dtype(o.dtype, w);  // the best must become a program
  s.stop = &g_stop;
  std::signal(SIGINT, on_interrupt);
  const bool tty = !o.quiet && !o.log_json && isatty(STDERR_FILENO);
  attach_progress(o, s, tty);
  mapper::Outcome out = mapper::explore(a, w, s);
  if (tty) std::fprintf(stderr, "\n");
  // With --json -, --out - or --html -, standard output carries that file alone (for a pipe into
  // jq, or > flow.yaml): the rest to stderr.
  std::FILE* text = o.json == "-" || o.out == "-" || o.html == "-" ? stderr : stdout;
  // `valid` counts candidates (repeats answered from the cache included), not analyses.
  std::fprintf(text, "dfx explore: %s on %s%s — %lld evaluations (%lld analysed, %lld ruled out by a floor on their cycles, "
              "the rest repeats), %lld of them valid, in %.1f s, %.0f per second\n\n",
              w.name.c_str(), a.name.c_str(), change_words(o.in).c_str(), static_cast<long long>(out.evaluations),
              static_cast<long long>(out.analyses), static_cast<long long>(out.ruled_out), static_cast<long long>(out.valid), out.seconds,
              out.seconds > 0 ? static_cast<double>(out.evaluations) / out.seconds : 0.0);
  const char* ended = out.interrupted ? "Ctrl-C stopped it" : "its budget ended first";
  if (out.interrupted) std::fprintf(text, "(stopped by Ctrl-C: the best found so far)\n\n");
  if (s.polish && !out.polished)
    std::fprintf(text, "(--polish: %s; some single change of the best's tiling may still improve it)\n\n", ended);
  if (s.polish_baselines && !out.baselines_polished)
    std::fprintf(text, "(--polish: %s for a baseline; some single change of its tiling may still improve it)\n\n", ended);
  if (out.not_lowered > 0)
    std::fprintf(text, "(%lld better dataflow%s left out: the lowering cannot express %s, docs/lowering.md)\n\n",
                static_cast<long long>(out.not_lowered), out.not_lowered == 1 ? "" : "s", out.not_lowered == 1 ? "it" : "them");
  print_table(out, text);
  if (!o.emit.empty()) say_baselines_not_lowerable(a, w, out, o, text);
  if (out.best.size() < static_cast<size_t>(o.top))
    std::fprintf(text, "(--top %d: %zu distinct valid dataflows found)\n", o.top, out.best.size());
  bool ok = true;
  if (o.out.empty()) std::fprintf(text, "\nbest dataflow (write it with --out FILE):\n%s", out.best.front().flow_yaml.c_str());
  else ok = write_flows(o, out, text);
  if (!o.emit.empty()) ok &= emit_best(a, w, out, o, text);
  else say_if_not_lowerable(a, w, out, o, text);
  say_if_read_apart(w, text);
  if (!o.json.empty()) ok &= write_file("--json", o.json, mapper::to_json(out, o.in.arch, o.in.workload, s, {o.in.sets, o.in.dims}, a.clock_ghz));
  if (!o.html.empty()) ok &= write_file("--html", o.html, html_report(a, w, out, change_words(o.in)));
  return ok ? 0 : 2;
}

}  // namespace dfx::cli
