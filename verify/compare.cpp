// The model-vs-simulator comparison.
#include "verify/compare.h"

#include <cmath>
#include <cstdio>

#include "mapper/lower.h"
#include "model/analyze.h"
#include "verify/reference.h"

namespace dfx::verify {
namespace {

std::string row(const std::string& what, double model, double sim) {
  char buf[160];
  if (model == 0 && sim != 0)  // e.g. staging the model does not count
    std::snprintf(buf, sizeof buf, "%-24s %16.0f %16.0f %12s\n", what.c_str(), model, sim, "(not in model)");
  else
    std::snprintf(buf, sizeof buf, "%-24s %16.0f %16.0f %+11.1f%%\n", what.c_str(), model, sim, model != 0 ? (sim - model) / model * 100 : 0.0);
  return buf;
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

Comparison compare(const arch::Arch& a, const model::Workload& w, const model::Dataflow& f, arch::DType t, uint64_t seed,
                   int64_t jitter) {
  Comparison c;
  c.dtype = t;
  c.tolerance = tolerance_of(t);
  c.model = model::analyze(a, w, f);
  if (!c.model.valid) throw InputError(c.model.problems);
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

std::string comparison_table(const Comparison& c, const arch::Arch& a) {
  std::string s;
  char buf[200];
  std::snprintf(buf, sizeof buf, "%-24s %16s %16s %12s\n", "", "model", "simulator", "difference");
  s += buf;
  s += row("cycles", c.model.cycles, static_cast<double>(c.sim.cycles));
  // Bytes across each level's boundary with its parent, both ways; DRAM is the root's total.
  std::vector<double> in(a.levels.size(), 0), out(a.levels.size(), 0);
  for (const auto& p : c.sim.paths) {
    in[static_cast<size_t>(p.to)] += static_cast<double>(p.bytes);
    out[static_cast<size_t>(p.from)] += static_cast<double>(p.bytes);
  }
  for (size_t l = 0; l < a.levels.size() && l < c.model.levels.size(); ++l) {
    const auto& lv = c.model.levels[l];
    const double wb = static_cast<double>(lv.word_bytes);
    if (l == 0) {
      s += row(lv.name + " read (B)", static_cast<double>(lv.traffic.read) * wb, out[0]);
      s += row(lv.name + " written (B)", static_cast<double>(lv.traffic.update) * wb, in[0]);
    } else {
      // What arrives over the arch's paths: fills from outside, results written back from inside
      // and staged transfers passing through; not what the units write here themselves.
      const int64_t moved_in = lv.traffic.fill + lv.traffic.update - lv.unit_updates;
      if (in[l] == 0 && moved_in == 0) continue;
      if (a.levels[l].instances > a.cores * a.sub_cores) continue;  // registers: no transfers in a program
      s += row(lv.name + " moved in (B)", static_cast<double>(moved_in) * wb, in[l]);
    }
  }
  s += "\noutputs (" + std::string(arch::dtype_name(c.dtype)) + ", random inputs) against the Eigen reference:\n";
  for (const auto& o : c.outputs) {
    if (c.tolerance == 0)
      std::snprintf(buf, sizeof buf, "  %-10s %s (largest difference %g; largest value %g)\n", o.tensor.c_str(),
                    o.ok ? "bit-exact" : "DIFFERS", o.max_error, o.max_reference);
    else
      std::snprintf(buf, sizeof buf, "  %-10s %s: largest error %.3g, largest value %.3g (tolerance %.2g of it)\n", o.tensor.c_str(),
                    o.ok ? "ok" : "OUT OF TOLERANCE", o.max_error, o.max_reference, c.tolerance);
    s += buf;
  }
  return s;
}

}  // namespace dfx::verify
