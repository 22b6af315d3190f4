// The model-vs-simulator comparison.
#include "verify/compare.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "mapper/lower.h"
#include "model/placement.h"
#include "model/analyze.h"
#include "model/report_io.h"
#include "verify/reference.h"

namespace dfx::verify {
namespace {

// `v` with `decimals` fixed decimals, a sign always where `sign`.
std::string fixed(double v, int decimals, bool sign = false) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(decimals) << (sign ? std::showpos : std::noshowpos) << v;
  return os.str();
}

// `v` in `digits` significant digits, as %g writes it.
std::string general(double v, int digits = 6) {
  std::ostringstream os;
  os << std::setprecision(digits) << v;
  return os.str();
}

std::string row(const std::string& what, double model, double sim) {
  // A figure the model does not count (staging) has no relative difference.
  const std::string difference = model == 0 && sim != 0 ? "(not in model)" : fixed(model != 0 ? (sim - model) / model * 100 : 0.0, 1, true) + "%";
  return model::table_row({{what, -24}, {fixed(model, 0), 16}, {fixed(sim, 0), 16}, {difference, 12}}) + "\n";
}

// `text` in lines of at most `width` characters (a longer word alone on its line), the later ones
// indented by two spaces.
std::string wrapped(const std::string& text, size_t width) {
  std::string out, line, word;
  std::istringstream words(text);
  while (words >> word) {
    if (!line.empty() && line.size() + 1 + word.size() > width) out += line + "\n", line = "  ";
    line += (line.empty() || line == "  " ? "" : " ") + word;
  }
  return out + line + "\n";
}

}  // namespace

bool Comparison::outputs_ok() const {
  for (const auto& o : outputs)
    if (!o.ok) return false;
  return true;
}

double tolerance_of(arch::DType t) {
  switch (t) {
    case arch::DType::Int16: return 0;
    case arch::DType::Fp16: return 1e-2;
    case arch::DType::Bf16: return 8e-2;
  }
  return 0;
}

namespace {

// Whether index `ix` reads through a window: two dims or more that take more than one value
// (p*2 + r with r over 3; p + r with r over 1 reads no window).
bool windowed(const model::Workload& w, const model::AffineIndex& ix) {
  int varying = 0;
  for (const auto& term : ix.terms) varying += w.dims[static_cast<size_t>(term.dim)].size > 1;
  return varying > 1;
}

// The buffers of `f` that a loop above them makes the programs fill with more than the model:
// a written tensor under a loop over its producer's reduction (the programs read its partial
// sums back at the first step too), an input read through windows under a loop over one of the
// window's dims (the programs load each step's window whole, the overlap again).
std::vector<Reload> reloads_of(const arch::Arch& a, const model::Workload& w, const model::Dataflow& f) {
  const model::Placement p = model::place(a, w, f);
  std::vector<Reload> out;
  auto note = [&](int level, int tensor, Reload::Why why) {
    for (const Reload& r : out)
      if (r.level == level && r.why == why && r.tensor == w.tensors[static_cast<size_t>(tensor)].name) return;
    out.push_back({level, w.tensors[static_cast<size_t>(tensor)].name, why});
  };
  for (size_t t = 0; t < w.tensors.size(); ++t) {
    const model::Tensor& ten = w.tensors[t];
    const model::TensorPlacement& tp = p.tensors[t];
    std::vector<int> window_dims;
    for (int c : ten.consumers)
      for (const auto& in : w.ops[static_cast<size_t>(c)].inputs)
        if (in.tensor == static_cast<int>(t))
          for (const auto& ix : in.index)
            if (windowed(w, ix))
              for (const auto& term : ix.terms) window_dims.push_back(term.dim);
    const std::vector<int> sums = ten.producer >= 0 ? w.ops[static_cast<size_t>(ten.producer)].reduction_dims : std::vector<int>{};
    for (int c : ten.consumers) {
      const model::TensorAccess* first = nullptr;
      for (const auto& in : w.ops[static_cast<size_t>(c)].inputs)
        if (in.tensor == static_cast<int>(t)) {
          if (first && !first->indexes_alike(in)) note(0, static_cast<int>(t), Reload::Why::ReadTwice);
          first = &in;
        }
    }
    for (size_t n = 0; n < f.nodes.size(); ++n) {
      if (!tp.owner[n]) continue;
      for (int up = f.nodes[n].parent; up >= 0; up = f.nodes[static_cast<size_t>(up)].parent)
        for (const model::Loop& l : f.nodes[static_cast<size_t>(up)].loops) {
          if (l.factor <= 1) continue;
          if (tp.writes[n] && std::find(sums.begin(), sums.end(), l.dim) != sums.end())
            note(tp.level[n], static_cast<int>(t), Reload::Why::PartialSums);
          if (!tp.writes[n] && std::find(window_dims.begin(), window_dims.end(), l.dim) != window_dims.end())
            note(tp.level[n], static_cast<int>(t), Reload::Why::Windows);
        }
    }
  }
  return out;
}

}  // namespace

Comparison compare(const arch::Arch& a, const model::Workload& w, const model::Dataflow& f, arch::DType t, uint64_t seed,
                   int64_t jitter) {
  Comparison c;
  c.dtype = t;
  c.tolerance = tolerance_of(t);
  c.model = model::analyze(a, w, f);
  if (!c.model.valid) throw InputError(c.model.problems);
  c.reloads = reloads_of(a, w, f);
  const mapper::Lowered low = mapper::lower(a, w, f, t);
  sim::SimOptions o;
  o.seed = seed;
  o.jitter = jitter;
  c.sim = sim::simulate(a, low.programs, {}, o, f.name + " (lowered)");
  c.outputs = check_outputs(c.sim.outputs, reference(w, c.sim.inputs, t), c.tolerance);
  return c;
}

std::vector<OutputCheck> check_outputs(const sim::TensorValues& outputs, const sim::TensorValues& ref, double tolerance) {
  std::vector<OutputCheck> out;
  for (const auto& [name, values] : outputs) {
    OutputCheck k;
    k.tensor = name;
    const std::vector<double>& r = ref.at(name);
    for (size_t e = 0; e < values.size(); ++e) {
      k.max_error = std::max(k.max_error, std::fabs(values[e] - r[e]));
      k.max_reference = std::max(k.max_reference, std::fabs(r[e]));
    }
    k.ok = k.max_error <= tolerance * k.max_reference;
    out.push_back(k);
  }
  return out;
}

std::vector<ComparedFigure> compared_figures(const Comparison& c, const arch::Arch& a) {
  std::vector<ComparedFigure> out;
  out.push_back({"cycles", c.model.cycles, static_cast<double>(c.sim.cycles)});
  // Bytes across each level's boundary with its parent, both ways; DRAM is the root's total.
  std::vector<double> in(a.levels.size(), 0), leaving(a.levels.size(), 0);
  for (const auto& p : c.sim.paths) {
    in[static_cast<size_t>(p.to)] += static_cast<double>(p.bytes);
    leaving[static_cast<size_t>(p.from)] += static_cast<double>(p.bytes);
  }
  for (size_t l = 0; l < a.levels.size() && l < c.model.levels.size(); ++l) {
    const auto& lv = c.model.levels[l];
    const double wb = static_cast<double>(lv.word_bytes);
    if (l == 0) {
      out.push_back({lv.name + " read (B)", static_cast<double>(lv.traffic.read) * wb, leaving[0]});
      out.push_back({lv.name + " written (B)", static_cast<double>(lv.traffic.update) * wb, in[0]});
    } else {
      // What arrives over the arch's paths: fills from outside, results written back from inside
      // and staged transfers passing through; not what the units write here themselves.
      const int64_t moved_in = lv.traffic.fill + lv.traffic.update - lv.unit_updates;
      if (in[l] == 0 && moved_in == 0) continue;
      if (a.levels[l].instances > a.cores * a.sub_cores) continue;  // registers: no transfers in a program
      out.push_back({lv.name + " moved in (B)", static_cast<double>(moved_in) * wb, in[l], static_cast<int>(l)});
    }
  }
  return out;
}

std::vector<std::string> comparison_notes(const Comparison& c, const arch::Arch& a) {
  std::vector<std::string> notes;
  if (!a.instruction_timed())
    notes.push_back(a.name + " is timed by its tree, as TileFlow times it (the spatial loops place the work on the PEs; loads, "
                    "compute and stores overlap fully); the simulator runs the lowered programs (the whole array for each mma, "
                    "in-order pipes, dispatch): expect it slower (docs/simulator.md, \"Why the cycles differ\")");
  const std::vector<ComparedFigure> figures = compared_figures(c, a);
  const ComparedFigure& dram_read = figures[1];
  if (a.levels[0].multicast && c.sim.cores.size() > 1 && dram_read.simulator > dram_read.model)
    notes.push_back(a.levels[0].name + " multicasts: the model counts a tile sent to several cores once; the programs each read it");
  if (dram_read.simulator > dram_read.model)
    for (const Reload& r : c.reloads)
      if (r.why == Reload::Why::ReadTwice)
        notes.push_back(r.tensor + " is read in two ways by one operator: the programs load it into a buffer per read, the model "
                        "holds the two reads' union once");
  // Where a level receives more than the model counts, the tree's reasons (reloads_of): a
  // program's loop body is the same at every step, so it reads partial sums back at the first
  // step too (zeros) and loads each step's window whole (QA pass 8: L0C +100% under a loop of
  // two steps with no word of why; QA pass 9: partial sums named where a window's overlap was).
  for (const ComparedFigure& f : figures) {
    if (f.level < 1 || f.simulator <= f.model) continue;
    const std::string& level = a.levels[static_cast<size_t>(f.level)].name;
    std::string sums, windows;
    for (const Reload& r : c.reloads) {
      std::string& list = r.why == Reload::Why::PartialSums ? sums : windows;
      if (r.level == f.level && r.why != Reload::Why::ReadTwice) list += (list.empty() ? "" : ", ") + r.tensor;
    }
    if (!sums.empty())
      notes.push_back(level + " takes back partial sums of " + sums + ": the programs read them at the reduction's first step "
                      "too (zeros; a loop's body is the same at every step), the model only those written before (docs/lowering.md)");
    if (!windows.empty())
      notes.push_back(level + " receives " + windows + " through overlapping windows: the programs load each step's window "
                      "whole, the model only what the step before did not leave there");
  }
  return notes;
}

std::string comparison_table(const Comparison& c, const arch::Arch& a) {
  std::string s = model::table_row({{"", -24}, {"model", 16}, {"simulator", 16}, {"difference", 12}}) + "\n";
  for (const ComparedFigure& f : compared_figures(c, a)) s += row(f.name, f.model, f.simulator);
  for (const std::string& note : comparison_notes(c, a)) s += wrapped("note: " + note, 100);
  s += "\noutputs (" + std::string(arch::dtype_name(c.dtype)) + ", random inputs) against the Eigen reference:\n";
  for (const auto& o : c.outputs) {
    s += "  " + model::table_row({{o.tensor, -10}}) + " ";
    if (c.tolerance == 0)
      s += std::string(o.ok ? "bit-exact" : "DIFFERS") + " (largest difference " + general(o.max_error) + "; largest value " +
           general(o.max_reference) + ")\n";
    else
      s += std::string(o.ok ? "ok" : "OUT OF TOLERANCE") + ": largest error " + general(o.max_error, 3) + ", largest value " +
           general(o.max_reference, 3) + " (tolerance " + general(c.tolerance, 2) + " of it)\n";
  }
  return s;
}

}  // namespace dfx::verify
