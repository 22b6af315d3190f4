#include "tools/html_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "model/dataflow.h"
#include "model/report_io.h"

namespace dfx::cli {
namespace {

std::string esc(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '<') o += "&lt;";
    else if (c == '>') o += "&gt;";
    else if (c == '&') o += "&amp;";
    else if (c == '"') o += "&quot;";
    else o += c;
  }
  return o;
}

std::string num(double v) { return model::human(v); }
std::string bold_if(bool bold, const std::string& text) { return bold ? "<b>" + text + "</b>" : text; }

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// How much of the cycles the bottleneck is busy: well below all, the dataflow waits on itself.
std::string busy_share(const model::Report& r) {
  return r.cycles > 0 ? fmt("%.0f%%", 100 * r.bottleneck_cycles / r.cycles) : "";
}

// The tree as nested boxes: a tile's level, loops and primitive on its header; an op's box adds
// its instances, its compute alone and its own cycles (model::OpReport), the longest stage marked.
void tree_html(const model::Dataflow& f, const arch::Arch& a, const model::Workload& w, const model::Report& r, int id,
               std::ostringstream& os) {
  const model::TreeNode& n = f.nodes[static_cast<size_t>(id)];
  if (n.is_leaf) {
    const model::Op& op = w.ops[static_cast<size_t>(n.op)];
    os << "<div class='leaf " << (op.unit == arch::UnitKind::Matrix ? "mat" : "vec") << "'><b>" << esc(op.name)
       << "</b><br><code>" << esc(op.expr) << "</code>";
    if (static_cast<size_t>(n.op) < r.ops.size()) {
      const model::OpReport& o = r.ops[static_cast<size_t>(n.op)];
      os << "<br><span class='work" << (model::stage_cycles(o) == model::longest_stage_cycles(r) ? " longest" : "") << "'>" << o.instances
         << (op.unit == arch::UnitKind::Matrix ? " PEs" : " lanes") << " · " << num(o.compute_cycles) << " cycles";
      if (o.own_cycles) os << " · own " << num(*o.own_cycles);
      os << "</span>";
    }
    os << "</div>";
    return;
  }
  std::string levels;
  for (int l : n.levels) levels += (levels.empty() ? "" : ",") + a.levels[static_cast<size_t>(l)].name;
  os << "<div class='tile'><div class='head'><span class='lvl'>" << esc(levels) << "</span> ";
  for (const auto& l : n.loops)
    os << "<span class='" << (l.spatial ? "sp" : "tp") << "'>" << esc(w.dims[static_cast<size_t>(l.dim)].name) << ':'
       << l.factor << "</span> ";
  if (n.children.size() > 1) os << "<span class='prim'>" << model::prim_name(n.prim) << "</span>";
  for (const auto& [tensor, level] : n.keep)
    os << " <span class='keep'>" << esc(w.tensors[static_cast<size_t>(tensor)].name) << " in "
       << esc(a.levels[static_cast<size_t>(level)].name) << "</span>";
  os << "</div><div class='kids " << (n.prim == model::Prim::Pipe || n.prim == model::Prim::Para ? "row" : "col") << "'>";
  for (int c : n.children) tree_html(f, a, w, r, c, os);
  os << "</div></div>";
}

// Horizontal bars of fill / read / update per level for a few candidates, each level on a
// linear scale of its own (levels differ by orders of magnitude; candidates at one level are
// what the chart compares, and a log scale drew 18x as 1.2x).
std::string traffic_svg(const std::vector<const mapper::Candidate*>& cands) {
  const char* colors[] = {"#4e79a7", "#f28e2b", "#59a14f"};
  const char* kinds[] = {"fill", "read", "update"};
  std::ostringstream os;
  const size_t levels = cands.front()->report.levels.size();
  const int row = 14, group = static_cast<int>(cands.size()) * 3 * row + 18;
  os << "<svg width='960' height='" << static_cast<int>(levels) * group + 30 << "' font-size='11'>";
  for (int k = 0; k < 3; ++k)
    os << "<rect x='" << 160 + k * 90 << "' y='2' width='10' height='10' fill='" << colors[k] << "'/><text x='"
       << 174 + k * 90 << "' y='11'>" << kinds[k] << "</text>";
  for (size_t l = 0; l < levels; ++l) {
    const int y0 = 24 + static_cast<int>(l) * group;
    double most = 1;
    for (const auto* c : cands) {
      const model::Traffic& t = c->report.levels[l].traffic;
      most = std::max({most, static_cast<double>(t.fill), static_cast<double>(t.read), static_cast<double>(t.update)});
    }
    os << "<text x='0' y='" << y0 + 12 << "' font-weight='bold'>" << esc(cands.front()->report.levels[l].name) << "</text>";
    for (size_t ci = 0; ci < cands.size(); ++ci) {
      const auto& lv = cands[ci]->report.levels[l];
      const auto& t = lv.traffic;
      const double v[3] = {static_cast<double>(t.fill), static_cast<double>(t.read), static_cast<double>(t.update)};
      // Of the reads and updates, the units' own (operands, results, register feeds).
      const double own[3] = {0, static_cast<double>(lv.unit_reads), static_cast<double>(lv.unit_updates)};
      for (int k = 0; k < 3; ++k) {
        const int y = y0 + 16 + (static_cast<int>(ci) * 3 + k) * row;
        const double wpx = 440.0 * v[k] / most;
        if (k == 0) os << "<text x='10' y='" << y + 10 << "'>" << esc(cands[ci]->name) << "</text>";
        os << "<rect x='160' y='" << y << "' width='" << fmt("%.1f", wpx) << "' height='" << row - 3 << "' fill='"
           << colors[k] << "'/><text x='" << fmt("%.1f", 165 + wpx) << "' y='" << y + 10 << "'>" << num(v[k])
           << (own[k] > 0 ? " (" + num(own[k]) + " by the units)" : "") << "</text>";
      }
    }
  }
  os << "</svg><p class='note'>Elements moved, each level on its own linear scale; \"by the units\": the ops' own operand reads and result "
        "writes at that level and the transfers to and from per-PE registers inside it, which the units do themselves "
        "(on units that take whole instructions, their times cover them).</p>";
  return os.str();
}

// The PEs and lanes of the units the workload's ops run on: a unit it never uses adds nothing it
// could reach (edge's 256 lanes lifted a GEMM chain's roof to 4,352 ops/cycle, and a tree keeping
// the array 97.7% busy sat at 92% of it).
double peak_ops(const arch::Arch& a, const model::Workload& w) {
  double peak = 0;
  for (const auto& u : a.units)
    if (std::any_of(w.ops.begin(), w.ops.end(), [&](const model::Op& op) { return op.unit == u.kind; }))
      peak += static_cast<double>(u.total_pes());
  return peak;
}

// Points count DRAM reads and writes together, which may move side by side: the roof takes both
// bandwidths (an upper bound, as a roof must be, where a port serves both in turn).
double dram_bytes_per_cycle(const arch::Arch& a) {
  return (a.levels[0].read_bw + a.levels[0].write_bw) * static_cast<double>(a.levels[0].instances);
}

// Roofline: performance (ops per cycle) against arithmetic intensity (ops per DRAM byte).
std::string roofline_svg(const arch::Arch& a, const model::Workload& w, const std::vector<const mapper::Candidate*>& cands) {
  const double peak = peak_ops(a, w), bw = dram_bytes_per_cycle(a);
  auto lx = [](double v) { return 60 + 120 * std::log10(std::max(v, 1e-3) / 1e-2); };  // 0.01 .. 1e4
  const double top = std::log10(peak * 2);
  auto ly = [&](double v) { return 20 + 260 * (top - std::log10(std::max(v, 1e-3))) / (top + 1); };
  std::ostringstream os;
  os << "<svg width='960' height='320' font-size='11'><rect x='60' y='20' width='720' height='260' fill='none' stroke='#999'/>"
     << "<text x='60' y='13'>roof: peak " << num(peak) << " ops/cycle, DRAM " << num(bw) << " B/cycle (reads and writes)</text>";
  // The roof: min(peak, intensity × bandwidth).
  os << "<polyline fill='none' stroke='#333' stroke-width='2' points='";
  for (double i = 1e-2; i <= 1e4; i *= 1.25) os << fmt("%.1f", lx(i)) << ',' << fmt("%.1f", ly(roof(a, w, i))) << ' ';
  os << "'/>";
  for (double i = 1e-2; i <= 1e4; i *= 10) os << "<text x='" << fmt("%.0f", lx(i) - 8) << "' y='296'>" << fmt("%g", i) << "</text>";
  for (double v = 1; v <= peak * 2; v *= 10)
    if (ly(v) <= 280) os << "<text x='56' y='" << fmt("%.0f", ly(v) + 4) << "' text-anchor='end'>" << fmt("%g", v) << "</text>";
  os << "<text x='360' y='314'>ops per DRAM byte</text><text x='4' y='150' transform='rotate(-90 10,150)'>ops per cycle</text>";
  const char* colors[] = {"#e15759", "#4e79a7", "#76b7b2", "#f28e2b", "#59a14f", "#edc948",
                          "#b07aa1", "#ff9da7", "#9c755f", "#17becf", "#393b79", "#8c6d31"};
  const size_t n = cands.size();
  for (size_t i = 0; i < n; ++i) {
    const auto& r = cands[i]->report;
    const double ops = static_cast<double>(r.macs + r.vector_ops);
    const double x = lx(ops / std::max<double>(1, static_cast<double>(r.dram_bytes))), y = ly(ops / r.cycles);
    // Names go in a legend beside the chart: dataflows often sit on one spot of the roof.
    const double row = 34 + 16 * static_cast<double>(i);
    // Each point a size smaller than the one before, drawn over it: points on one spot nest as rings.
    const double radius = 3 + 1.5 * static_cast<double>(n - 1 - i);
    os << "<circle cx='" << fmt("%.1f", x) << "' cy='" << fmt("%.1f", y) << "' r='" << fmt("%.1f", radius) << "' fill='"
       << colors[i % 12] << "' stroke='#fff'/><circle cx='800' cy='" << fmt("%.1f", row - 4) << "' r='5' fill='" << colors[i % 12]
       << "'/><text x='810' y='" << fmt("%.1f", row) << "'>" << esc(cands[i]->name) << "</text>";
  }
  os << "</svg>";
  return os.str();
}

std::string convergence_svg(const mapper::Outcome& out) {
  if (out.convergence.empty()) return "<p>No valid candidate.</p>";
  const double first = out.convergence.front().second, last = out.convergence.back().second;
  const double n = static_cast<double>(std::max<int64_t>(1, out.evaluations));
  auto x = [&](double e) { return 60 + 700 * e / n; };
  // Log scale: the first valid candidates are often orders of magnitude worse than the last.
  const double span = std::max(1e-9, std::log(first) - std::log(last));
  auto y = [&](double c) { return 20 + 200 * (std::log(first) - std::log(c)) / span; };
  std::ostringstream os;
  os << "<svg width='800' height='250' font-size='11'><rect x='60' y='10' width='700' height='220' fill='none' stroke='#999'/>"
     << "<polyline fill='none' stroke='#e15759' stroke-width='2' points='";
  // The best cost falls as the search goes on: a step down at each improvement.
  double prev = first;
  for (const auto& [e, c] : out.convergence) {
    os << fmt("%.1f", x(static_cast<double>(e))) << ',' << fmt("%.1f", y(prev)) << ' ';
    os << fmt("%.1f", x(static_cast<double>(e))) << ',' << fmt("%.1f", y(c)) << ' ';
    prev = c;
  }
  os << fmt("%.1f", x(n)) << ',' << fmt("%.1f", y(last)) << "'/>"
     << "<text x='756' y='24' text-anchor='end'>best cost " << num(first) << " → " << num(last) << " (log scale)</text>"
     << "<text x='60' y='246'>0</text><text x='760' y='246' text-anchor='end'>" << num(n)
     << "</text><text x='380' y='246'>evaluations</text></svg>";
  return os.str();
}

// Rows of cycles, speed-up over Layerwise, DRAM bytes, energy (and EDP), utilisation, the largest
// on-chip peak and the bottleneck; `best` in bold.
std::string candidate_table(const std::vector<const mapper::Candidate*>& rows, const mapper::Candidate* best, double layerwise, bool edp,
                            const Figures& figures) {
  std::ostringstream os;
  os << "<table><tr><th>dataflow</th><th>cycles</th><th>speed-up</th><th>DRAM bytes</th><th>energy pJ</th>"
     << (edp ? "<th>EDP pJ·cycles</th>" : "") << "<th>utilisation</th><th>buffer peak B</th><th>bottleneck</th></tr>";
  for (const auto* c : rows) {
    int64_t peak = 0;
    for (size_t l = 1; l < c->report.levels.size(); ++l) peak = std::max(peak, c->report.levels[l].peak_bytes);
    os << "<tr" << (c == best ? " class='best'" : "") << "><td>" << esc(c->name) << "</td><td>" << figures.cycles(c->report.cycles)
       << "</td><td>" << (layerwise > 0 ? fmt("%.2fx", layerwise / c->report.cycles) : "-") << "</td><td>"
       << num(static_cast<double>(c->report.dram_bytes)) << "</td><td>" << figures.energy(c->report.energy_pj) << "</td>"
       << (edp ? "<td>" + num(c->report.cycles * c->report.energy_pj) + "</td>" : "") << "<td>"
       << fmt("%.1f%%", 100 * c->report.utilization) << "</td><td>" << num(static_cast<double>(peak)) << "</td><td>"
       << esc(c->report.bottleneck) << " (" << busy_share(c->report) << ")</td></tr>";
  }
  os << "</table>";
  return os.str();
}

}  // namespace

Figures ranked_figures(const mapper::Outcome& out) {
  std::vector<double> cycles, energy;
  for (const auto* list : {&out.best, &out.pareto})
    for (const auto& c : *list) cycles.push_back(c.report.cycles), energy.push_back(c.report.energy_pj);
  return Figures{model::telling_apart(cycles), model::telling_apart(energy)};
}

double roof(const arch::Arch& a, const model::Workload& w, double ops_per_dram_byte) {
  return std::min(peak_ops(a, w), ops_per_dram_byte * dram_bytes_per_cycle(a));
}

std::string html_report(const arch::Arch& a, const model::Workload& w, const mapper::Outcome& out, const std::string& changes) {
  std::ostringstream os;
  const mapper::Candidate& best = out.best.front();
  os << "<!doctype html><html><head><meta charset='utf-8'><title>dfx explore: " << esc(w.name) << " on " << esc(a.name)
     << "</title><style>"
        "body{font-family:sans-serif;margin:24px;color:#222;max-width:1100px}"
        "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;text-align:right;white-space:nowrap}"
        "th{background:#f3f3f3}td:first-child{text-align:left}.best td{font-weight:bold;background:#fff7e6}"
        ".tile{border:1px solid #888;border-radius:6px;margin:4px;padding:4px;background:rgba(78,121,167,.05)}"
        ".head{font-size:12px;margin-bottom:3px}.lvl{font-weight:bold;color:#4e79a7}"
        ".tp{background:#eee;border-radius:3px;padding:0 3px}.sp{background:#d4ecd4;border-radius:3px;padding:0 3px}"
        ".prim{background:#f9d9b0;border-radius:3px;padding:0 4px;font-weight:bold}"
        ".keep{background:#dcd3ef;border-radius:3px;padding:0 4px}"
        ".kids.row{display:flex;flex-wrap:wrap}.leaf{border:1px solid #aaa;border-radius:4px;margin:3px;padding:3px 6px;font-size:12px}"
        ".leaf.mat{background:#e8f0fa}.leaf.vec{background:#fdf0e3}.note{color:#777;font-size:12px}"
        ".work{color:#555;font-size:11px}.work.longest{color:#b03a2e;font-weight:bold}"
        "</style></head><body>";
  os << "<h1>dfx explore: " << esc(w.name) << " on " << esc(a.name) << "</h1>";
  if (!changes.empty()) os << "<p class='note'>with<code>" << esc(changes) << "</code></p>";
  const char* objective = out.objective == mapper::Objective::Cycles   ? "cycles"
                          : out.objective == mapper::Objective::Energy ? "energy"
                                                                        : "energy × delay (EDP)";
  os << "<p>" << out.evaluations << " evaluations (" << out.valid << " valid) in " << fmt("%.1f", out.seconds)
     << " s, minimising " << objective << (out.interrupted ? "; <b>stopped by Ctrl-C</b>: the best found so far" : "")
     << ". Best: " << bold_if(out.objective == mapper::Objective::Cycles, num(best.report.cycles) + " cycles") << ", "
     << bold_if(out.objective == mapper::Objective::Energy, num(best.report.energy_pj) + " pJ")
     << (out.objective == mapper::Objective::Edp ? ", <b>EDP " + num(best.cost) + " pJ·cycles</b>" : "") << ", utilisation "
     << fmt("%.1f", 100 * best.report.utilization) << "%, bottleneck " << esc(best.report.bottleneck) << " (busy "
     << busy_share(best.report) << " of the cycles).</p>";
  double layerwise = 0;
  for (const auto& b : out.baselines)
    if (b.name == "Layerwise") layerwise = b.report.cycles;
  const Figures figures = ranked_figures(out);
  std::vector<const mapper::Candidate*> all;
  for (const auto& b : out.baselines) all.push_back(&b);
  for (const auto& b : out.best) all.push_back(&b);
  os << (out.baselines.empty() ? "<h2>Best</h2>" : "<h2>Baselines and best</h2>") << candidate_table(all, &best, layerwise, out.objective == mapper::Objective::Edp, figures);
  if (!out.baselines_not_found.empty()) {
    os << "<p class='note'>No valid tiling found:";
    for (const auto& b : out.baselines_not_found) os << "<br>" << esc(b.name) << ": " << esc(not_found_text(b)) << '.';
    os << "</p>";
  }
  if (!out.closed_form_invalid.empty()) os << "<p class='note'>Chimera (closed form): its tree is not valid here: " << esc(out.closed_form_invalid) << ".</p>";
  if (!out.pareto.empty()) {
    std::vector<const mapper::Candidate*> front;
    for (const auto& p : out.pareto) front.push_back(&p);
    os << "<h2>Cycles / energy Pareto front</h2><p class='note'>Nothing analysed is both faster and cheaper than any of "
          "these; by cycles.</p>"
       << candidate_table(front, nullptr, layerwise, false, figures);
  }
  os << "<h2>The best tree</h2><p class='note'>Tiles outermost first: level, loops (grey temporal, green spatial), "
        "primitive between children, intermediates kept at a level of their own (lilac). Pipe and Para children are drawn side by side. Under each op: the PEs or lanes "
        "it spreads over (cores included), its compute alone, every one busy (on units that take whole instructions: "
        "their time, from their shapes), and its own tiles' time, transfers included ('own'); in red the longest, "
        "which a Pipe waits for.</p>";
  model::Dataflow f = model::load_dataflow_from_string(best.flow_yaml, "best", a, w);
  tree_html(f, a, w, best.report, 0, os);
  std::vector<const mapper::Candidate*> pair = {&best};
  for (const auto& b : out.baselines)
    if (b.name == "Layerwise") pair.push_back(&b);
  os << "<h2>Traffic per level</h2>" << traffic_svg(pair);
  os << "<h2>Roofline</h2>" << roofline_svg(a, w, all);
  os << "<h2>Search convergence</h2>" << convergence_svg(out);
  os << "<h2>flow.yaml</h2><pre>" << esc(best.flow_yaml) << "</pre></body></html>\n";
  return os.str();
}

std::string not_found_text(const mapper::BaselineNotFound& b) {
  if (b.invalid == 0) return "no valid tiling found in its share of the evaluations";
  const std::string s = "none of the " + std::to_string(b.invalid) + " tilings of its structure scored is valid";
  return b.nearest.empty() ? s : s + "; the nearest to fitting: " + b.nearest;
}

}  // namespace dfx::cli
