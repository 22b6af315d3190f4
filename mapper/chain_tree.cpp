// The flow.yaml of a chain solution (mapper/chain_internal.h): loops at DRAM in the order the
// solution's traffic assumes, every intermediate kept in the buffer, each operator in a buffer
// tile that spreads its output over the core's arrays or lanes.
#include <sstream>

#include "mapper/chain_internal.h"
#include "mapper/factors.h"
#include "model/dataflow.h"

namespace dfx::mapper {
namespace {

class ChainTreeWriter {
 public:
  ChainTreeWriter(const arch::Arch& a, const model::Workload& w, const Chain& c, const ChainSolution& s, int registers,
                  const CoreUnits& units)
      : a_(a), w_(w), c_(c), s_(s), registers_(registers), units_(units),
        buffer_(model::yaml_scalar(a.levels[static_cast<size_t>(s.buffer_level)].name)), dram_(model::yaml_scalar(a.levels[0].name)) {}

  std::string two_gemms() {
    const ChainStage& first = c_.stages[0];
    const ChainStage& second = c_.stages[1];
    std::vector<std::string> outer = outer_loops();
    if (ceil_div(size(first.l), s_.tl) > 1) outer.push_back(loop(first.l, ceil_div(size(first.l), s_.tl)));  // one trip: above a row's reductions, none
    root(outer, kept_by(first));
    gemm_tree("    ", first.gemm, first.l, s_.tl, c_.k, s_.tk);
    between_tiles("    ", first, s_.tl);
    gemm_tree("    ", second.gemm, second.l, s_.tn, first.l, s_.tl);
    return os_.str();
  }

  std::string longer() {
    std::vector<std::string> kept;
    for (size_t i = 1; i + 1 < c_.stages.size(); ++i)
      for (const std::string& k : kept_by(c_.stages[i])) kept.push_back(k);
    root(outer_loops(), kept);
    // The first two GEMMs under a tile over l_1: C_1 lives there, C_2 adds up over its steps.
    const ChainStage& first = c_.stages[0];
    const ChainStage& second = c_.stages[1];
    const int64_t l1_trips = ceil_div(size(first.l), s_.tl);
    os_ << "    - tile: " << dram_ << "\n      loops: [" << (l1_trips > 1 ? loop(first.l, l1_trips) : "")
        << "]\n      keep: {" << list(kept_by(first)) << "}\n      children:\n";
    gemm_tree("        ", first.gemm, first.l, s_.tl, c_.k, s_.tk);
    between_tiles("        ", first, s_.tl);
    gemm_tree("        ", second.gemm, second.l, alpha(second.l), first.l, s_.tl);
    // Each later GEMM reads whole rows of the one before.
    for (size_t i = 1; i + 1 < c_.stages.size(); ++i) {
      const ChainStage& before = c_.stages[i];
      const ChainStage& next = c_.stages[i + 1];
      between_tiles("    ", before, size(before.l));
      gemm_tree("    ", next.gemm, next.l, alpha(next.l), before.l, size(before.l));
    }
    return os_.str();
  }

 private:
  const arch::Arch& a_;
  const model::Workload& w_;
  const Chain& c_;
  const ChainSolution& s_;
  int registers_;
  CoreUnits units_;
  std::string buffer_, dram_;
  std::ostringstream os_;

  int64_t size(int d) const { return w_.dims[static_cast<size_t>(d)].size; }
  int64_t alpha(int d) const { return chain_tile(size(d), static_cast<double>(units_.cols)); }
  std::string loop(int d, int64_t f, bool spatial = false) const {
    return "\"" + w_.dims[static_cast<size_t>(d)].name + ":" + std::to_string(f) + (spatial ? ":sp\"" : "\"");
  }
  static std::string list(const std::vector<std::string>& items) {
    std::string out;
    for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
    return out;
  }
  std::string tensor_of(int op) const {
    return w_.tensors[static_cast<size_t>(w_.ops[static_cast<size_t>(op)].out.tensor)].name;
  }
  // A stage's output and what the ops between make of it, in the buffer.
  std::vector<std::string> kept_by(const ChainStage& st) const {
    std::vector<std::string> kept{tensor_of(st.gemm) + ": " + buffer_};
    for (int o : st.between) kept.push_back(tensor_of(o) + ": " + buffer_);
    return kept;
  }

  // The cores' loop, the batch dims (one core's share) and m's steps over one core's rows.
  std::vector<std::string> outer_loops() const {
    std::vector<std::string> outer;
    if (s_.core_dim >= 0) outer.push_back(loop(s_.core_dim, s_.cores, true));
    for (int b : c_.batch) {
      const int64_t per_core = b == s_.core_dim ? size(b) / s_.cores : size(b);
      if (b != s_.core_dim || per_core > 1) outer.push_back(loop(b, per_core));
    }
    const int64_t m_per_core = c_.m == s_.core_dim ? ceil_div(size(c_.m), s_.cores) : size(c_.m);
    outer.push_back(loop(c_.m, ceil_div(m_per_core, s_.tm)));
    return outer;
  }

  void root(const std::vector<std::string>& loops, const std::vector<std::string>& kept) {
    os_ << "name: chain_solver\nworkload: " << model::yaml_scalar(w_.name) << "\ntree:\n  tile: " << dram_ << "\n  loops: [" << list(loops) << "]\n";
    if (!kept.empty()) os_ << "  keep: {" << list(kept) << "}\n";
    os_ << "  children:\n";
  }

  // `n` elements over at most `at_most` instances: `across` of them per step, in `steps` steps.
  // The most that divide n, or on units the tree schedules, where instances may idle in the last
  // step, the widest even chunk: 197 tokens over 64 lanes as 4 steps of 50 (the last runs 47),
  // where the divisors of a prime leave one lane.
  struct Spread {
    int64_t steps = 1, across = 1;
  };
  Spread spread(int64_t n, int64_t at_most) const {
    const int64_t d = largest_divisor_at_most(n, static_cast<double>(at_most));
    if (a_.instruction_timed() || at_most < 1) return {n / d, d};
    const int64_t chunk = widest_spread(n, at_most);
    return chunk > d ? Spread{(n + chunk - 1) / chunk, chunk} : Spread{n / d, d};
  }

  // An operator's buffer tile over t1 × t2 of (m, out2) (none: out2 < 0), spread over up to
  // `across` × `down`, with `tred` steps of its reduction (none: red < 0); `indent` deep.
  void buffer_tile(int o, const std::string& indent, int out2, int64_t t1, int64_t t2, int64_t across, int64_t down, int red,
                   int64_t tred) {
    const model::Op& op = w_.ops[static_cast<size_t>(o)];
    // A matrix unit's rows and columns are two axes, one dim each (mapper/pe_axes.h); the lanes
    // are one, and m takes what out2 leaves of them.
    const Spread s2 = spread(t2, down);
    const Spread s1 = spread(t1, op.unit == arch::UnitKind::Matrix ? across : across * (down / s2.across));
    std::vector<std::string> loops;
    if (s1.steps > 1) loops.push_back(loop(c_.m, s1.steps));
    if (out2 >= 0 && s2.steps > 1) loops.push_back(loop(out2, s2.steps));
    if (red >= 0 && tred > 1) loops.push_back(loop(red, tred));
    if (s1.across > 1) loops.push_back(loop(c_.m, s1.across, true));
    if (out2 >= 0 && s2.across > 1) loops.push_back(loop(out2, s2.across, true));
    os_ << indent << "- tile: " << buffer_ << "\n" << indent << "  loops: [" << list(loops) << "]\n" << indent << "  children:\n";
    if (op.unit == arch::UnitKind::Matrix && registers_ >= 0)
      os_ << indent << "    - tile: " << a_.levels[static_cast<size_t>(registers_)].name << "\n" << indent
          << "      children: [{op: " << op.name << "}]\n";
    else
      os_ << indent << "    - {op: " << op.name << "}\n";
  }

  // A GEMM's tile of `t_out` of its output dim `out`, reducing `t_red` of `red`, under a loop at
  // DRAM over the rest of `out` (k for the first GEMM: its reduction, not its output, steps there).
  void gemm_tree(const std::string& indent, int gemm, int out, int64_t t_out, int red, int64_t t_red) {
    const int stepped = gemm == c_.stages[0].gemm ? red : out;
    const int64_t trips = ceil_div(size(stepped), stepped == red ? t_red : t_out);
    os_ << indent << "- tile: " << dram_ << "\n" << indent << "  loops: [" << loop(stepped, trips) << "]\n" << indent << "  children:\n";
    buffer_tile(gemm, indent + "    ", out, s_.tm, t_out, units_.rows, units_.cols, red, t_red);
  }

  // The ops between a stage's GEMM and the next over its m × `t_l` tile: element-wise ones
  // spread it over the lanes, one that reduces a row over l spreads the rows.
  void between_tiles(const std::string& indent, const ChainStage& st, int64_t t_l) {
    for (int o : st.between) {
      if (w_.ops[static_cast<size_t>(o)].reduction_dims.empty()) buffer_tile(o, indent, st.l, s_.tm, t_l, 1, units_.lanes, -1, 1);
      else buffer_tile(o, indent, -1, s_.tm, 1, units_.lanes, 1, st.l, t_l);
    }
  }
};

}  // namespace

std::string chain_tree(const arch::Arch& a, const model::Workload& w, const Chain& chain, const ChainSolution& s,
                       int registers, const CoreUnits& units) {
  ChainTreeWriter writer(a, w, chain, s, registers, units);
  return chain.stages.size() == 2 ? writer.two_gemms() : writer.longer();
}

}  // namespace dfx::mapper
