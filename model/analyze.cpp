// analyze(): placement, the walk, then the checks and summary figures a user reads.
#include "model/analyze.h"

#include <algorithm>
#include <array>
#include <boost/container/small_vector.hpp>
#include <cmath>
#include <sstream>

#include "model/compulsory.h"
#include "model/index_set.h"
#include "model/placement.h"
#include "model/report_io.h"
#include "model/walk.h"

namespace dfx::model {
namespace {

// PEs a subtree needs of each unit ([matrix, vector]): spatial factors multiply; Seq/Shar
// children take turns (max), Para/Pipe children run at once (sum). Both units in one pass.
std::array<int64_t, 2> pes_needed(const Dataflow& f, const Workload& w, int node) {
  const TreeNode& n = f.nodes[static_cast<size_t>(node)];
  if (n.is_leaf) {
    const bool matrix = w.ops[static_cast<size_t>(n.op)].unit == arch::UnitKind::Matrix;
    return {matrix ? 1 : 0, matrix ? 0 : 1};
  }
  std::array<int64_t, 2> kids{0, 0};
  for (int c : n.children) {
    const std::array<int64_t, 2> k = pes_needed(f, w, c);
    for (size_t u = 0; u < 2; ++u) kids[u] = (n.prim == Prim::Seq || n.prim == Prim::Shar) ? std::max(kids[u], k[u]) : kids[u] + k[u];
  }
  int64_t spatial = 1;
  for (const auto& l : n.loops)
    if (l.spatial) spatial *= l.factor;
  return {spatial * kids[0], spatial * kids[1]};
}

// Why the arch cannot run `op`: no unit of its kind, or each vector operation its unit lacks
// (none when it can).
std::vector<std::string> cannot_run(const arch::Arch& a, const Op& op) {
  const arch::ComputeUnit* u = a.unit(op.unit);
  if (!u)
    return {"op '" + op.name + "' needs a " + (op.unit == arch::UnitKind::Matrix ? "matrix" : "vector") + " unit, which arch '" +
            a.name + "' does not have"};
  std::vector<std::string> why;
  for (const auto& vop : op.vector_ops)
    if (!u->ops.empty() && std::find(u->ops.begin(), u->ops.end(), vop) == u->ops.end())
      why.push_back("op '" + op.name + "' needs vector op '" + vop + "', which the vector unit does not support");
  return why;
}

void check_units(const arch::Arch& a, const Workload& w, const Dataflow& f, Report& r) {
  for (const auto& node : f.nodes)
    if (node.is_leaf)
      for (std::string& why : cannot_run(a, w.ops[static_cast<size_t>(node.op)])) r.problems.push_back({node.loc, std::move(why)});
  const std::array<int64_t, 2> needs = pes_needed(f, w, 0);
  for (auto kind : {arch::UnitKind::Matrix, arch::UnitKind::Vector}) {
    const arch::ComputeUnit* u = a.unit(kind);
    const int64_t need = needs[kind == arch::UnitKind::Matrix ? 0 : 1];
    (kind == arch::UnitKind::Matrix ? r.matrix_pes_used : r.vector_lanes_used) = need;
    if (u && need > u->total_pes())
      r.problems.push_back({f.root().loc, "the tree spreads over " + std::to_string(need) + " " +
                                              u->name + " PEs but the arch has " +
                                              std::to_string(u->total_pes())});
  }
}

// Per op: its work from the walk, and its spatial instances from the tree.
void summarise_ops(const arch::Arch& a, const Workload& w, const Dataflow& f, const WalkResult& walk, Report& r) {
  const bool tree_timed = !a.instruction_timed();
  r.ops.resize(w.ops.size());
  for (const TreeNode& leaf : f.nodes) {
    if (!leaf.is_leaf) continue;
    const auto o = static_cast<size_t>(leaf.op);
    OpReport& op = r.ops[o];
    op.name = w.ops[o].name;
    op.unit = w.ops[o].unit == arch::UnitKind::Matrix ? "matrix" : "vector";
    op.work = walk.op_work[o];
    for (int n = leaf.parent; n >= 0; n = f.nodes[static_cast<size_t>(n)].parent)
      for (const Loop& l : f.nodes[static_cast<size_t>(n)].loops)
        if (l.spatial) op.instances *= l.factor;
    // On units that take whole instructions the shapes decide (a 16-row block on a 16 x 16 x 16
    // cube, a row of 197 on 128 lanes): their instructions' time, not work over instances.
    op.compute_cycles = tree_timed ? static_cast<double>(op.work) / static_cast<double>(op.instances)
                                   : walk.op_instruction_cycles[o];
    if (tree_timed) op.own_cycles = walk.op_cycles[o];
  }
}

// Per level: the elements the units themselves read and update there — every leaf access (a
// MAC's operands, a lane's input and output) — and the transfers to and from per-PE registers
// inside it (a systolic array's operand and result flow; WalkResult::feed_reads). Inline: worked
// out for every tree a search analyses.
struct UnitAccesses {
  using PerLevel = boost::container::small_vector<int64_t, 8>;
  PerLevel leaf_reads, leaf_updates;  // [level]
  PerLevel feed_reads, feed_updates;  // [level]
};
UnitAccesses unit_accesses(const arch::Arch& a, const Workload& w, const Dataflow& f, const Placement& p, const WalkResult& walk) {
  using PerLevel = UnitAccesses::PerLevel;
  UnitAccesses u{PerLevel(a.levels.size(), 0), PerLevel(a.levels.size(), 0), PerLevel(walk.feed_reads.begin(), walk.feed_reads.end()),
                 PerLevel(walk.feed_updates.begin(), walk.feed_updates.end())};
  for (size_t n = 0; n < f.nodes.size(); ++n) {
    const TreeNode& leaf = f.nodes[n];
    if (!leaf.is_leaf) continue;
    const Op& op = w.ops[static_cast<size_t>(leaf.op)];
    const int64_t points = walk.op_work[static_cast<size_t>(leaf.op)] / std::max<int64_t>(1, op.ops_per_point);
    for (const auto& in : op.inputs) u.leaf_reads[static_cast<size_t>(p.tensors[static_cast<size_t>(in.tensor)].level[n])] += points;
    u.leaf_updates[static_cast<size_t>(p.tensors[static_cast<size_t>(op.out.tensor)].level[n])] += points;
  }
  return u;
}

// The busiest unit's instructions on one of its instances (units that take whole instructions).
double instruction_busy(const Workload& w, const WalkResult& walk) {
  double busy[2] = {0, 0};
  for (size_t o = 0; o < w.ops.size(); ++o) busy[static_cast<int>(w.ops[o].unit)] += walk.op_instruction_cycles[o];
  return std::max(busy[0], busy[1]);
}

void summarise(const arch::Arch& a, const Workload& w, const Dataflow& f, const Placement& p, const WalkResult& walk,
               const CompulsoryBytes& compulsory, Report& r) {
  r.macs = walk.macs;
  r.vector_ops = walk.vector_ops;
  r.cycles = walk.cycles;
  double bottleneck_time = 0;
  const arch::ComputeUnit* mu = a.unit(arch::UnitKind::Matrix);
  const arch::ComputeUnit* vu = a.unit(arch::UnitKind::Vector);
  double compute_time = 0;
  if (mu) compute_time = std::max(compute_time, static_cast<double>(walk.macs) / static_cast<double>(mu->total_pes()));
  if (vu) compute_time = std::max(compute_time, static_cast<double>(walk.vector_ops) / static_cast<double>(vu->total_pes()));
  // Where units take whole instructions, their shapes decide how long they are busy (a 1-row
  // block keeps a 16 x 16 cube busy as long as a 16-row one).
  const bool instructions = a.instruction_timed();
  double transfers_busy = 0;  // the busiest level's (LevelReport::busy_cycles)
  const UnitAccesses by_units = unit_accesses(a, w, f, p, walk);
  // On archs scheduled by the tree it is also at least the slowest op's compute on the PEs the
  // tree spreads it over (compute_cycles, work / instances, from summarise_ops): a tree on part
  // of the chip waits on that part, not on the chip's MACs / PEs (a tree without loops read
  // "compute, busy 0%"; attention G1's edge tree on cloud named DRAM at 6% while its Q·K kept
  // its array 99% busy).
  double slowest_op = 0;
  for (const OpReport& op : r.ops) slowest_op = std::max(slowest_op, op.compute_cycles);
  bottleneck_time = instructions ? std::max(compute_time, instruction_busy(w, walk)) : std::max(compute_time, slowest_op);
  r.bottleneck = "compute";
  r.levels.reserve(a.levels.size());
  r.energy_pj = (mu ? static_cast<double>(walk.macs) * mu->op_pj : 0) +
                (vu ? static_cast<double>(walk.vector_ops) * vu->op_pj : 0);
  for (size_t l = 0; l < a.levels.size(); ++l) {
    const auto& lv = a.levels[l];
    LevelReport L;
    L.name = lv.name;
    L.capacity_bytes = lv.capacity_bytes;
    L.instances = lv.instances;
    L.word_bytes = lv.word_bytes;
    // The workload's inputs and outputs live whole at the outermost level the whole run
    // (docs/semantics.md, "Footprint"): beside what the walk finds there (intermediates handed
    // over through it), they count towards its peak and its capacity.
    auto resident = [&](size_t t) {
      return l != 0 || w.tensors[t].is_intermediate() ? walk.peak_elems[l][t] : w.elements(static_cast<int>(t));
    };
    L.peak_bytes = (walk.level_peak_elems[l] + (l == 0 ? w.io_elements() : 0)) * lv.word_bytes;
    // Reports are kept by the thousand (the search's memo): their lists are sized exactly.
    auto touched = [&](size_t t) {
      const Traffic& tr = walk.traffic[l][t];
      return tr.fill != 0 || tr.read != 0 || tr.update != 0 || resident(t) != 0;
    };
    size_t listed = 0;
    for (size_t t = 0; t < w.tensors.size(); ++t) listed += touched(t);
    L.tensors.reserve(listed);
    for (size_t t = 0; t < w.tensors.size(); ++t) {
      const Traffic& tr = walk.traffic[l][t];
      if (!touched(t)) continue;
      L.tensors.push_back({w.tensors[t].name, tr, resident(t)});
      L.traffic.fill += tr.fill, L.traffic.read += tr.read, L.traffic.update += tr.update;
    }
    const double wb = lv.word_bytes;
    L.energy_pj = static_cast<double>(L.traffic.fill + L.traffic.update) * lv.write_pj +
                  static_cast<double>(L.traffic.read) * lv.read_pj;
    const double n = static_cast<double>(lv.instances);
    L.unit_reads = by_units.leaf_reads[l] + by_units.feed_reads[l];
    L.unit_updates = by_units.leaf_updates[l] + by_units.feed_updates[l];
    // A level is busy with what it moves, as the walk times it. The leaves' own accesses are
    // part of their compute (one cycle per point, or their instructions' time); so are the feeds
    // of per-PE registers on units that take whole instructions (a cube takes a block of
    // operands per instruction), while elsewhere the walk times them as transfers.
    const int64_t reads = L.traffic.read - by_units.leaf_reads[l] - (instructions ? by_units.feed_reads[l] : 0);
    const int64_t writes = L.traffic.fill + L.traffic.update - by_units.leaf_updates[l] - (instructions ? by_units.feed_updates[l] : 0);
    const double read_time = static_cast<double>(reads) * wb / (lv.read_bw * n);
    const double write_time = static_cast<double>(writes) * wb / (lv.write_bw * n);
    // Programs of units that take whole instructions load and store through one DRAM port.
    L.busy_cycles = instructions && l == 0 ? read_time + write_time : std::max(read_time, write_time);
    if (l == 0) {
      r.dram_bytes = static_cast<int64_t>(static_cast<double>(L.traffic.read + L.traffic.update + L.traffic.fill) * wb);
    }
    if (L.busy_cycles > bottleneck_time) bottleneck_time = L.busy_cycles, r.bottleneck = lv.name + " bandwidth";
    transfers_busy = std::max(transfers_busy, L.busy_cycles);
    r.energy_pj += L.energy_pj;
    if (!lv.unlimited() && static_cast<double>(L.peak_bytes) > lv.capacity_bytes)
      r.problems.push_back({lv.capacity_loc, "level '" + lv.name + "' needs " + human_bytes(static_cast<double>(L.peak_bytes)) +
                                        " per instance but holds " + human_bytes(lv.capacity_bytes)});
    r.levels.push_back(std::move(L));
  }
  r.bottleneck_cycles = bottleneck_time;
  // TileFlow's latency rule times each transfer at its ends' full bandwidth, so transfers that
  // overlap on one level's port (parts side by side: Para and Pipe children, the runs of a
  // spatial loop whose instances are not all alike; a tile's fill beside its children's
  // write-backs) can come out faster than the port serves them: no tree runs faster than its
  // busiest level (docs/semantics.md, "Latency").
  r.latency_cycles = walk.cycles;
  r.cycles = std::max(r.cycles, transfers_busy);
  // The roofline ignores reuse below DRAM: compulsory traffic (model/compulsory.h). Archs
  // scheduled by the tree move reads and writes side by side (each at its own bandwidth, as the
  // walk times them); programs of units that take whole instructions share one DRAM port.
  const double inputs = compulsory.inputs, outputs = compulsory.outputs;
  const double ports = static_cast<double>(a.levels[0].instances);
  const double read_time = inputs / (a.levels[0].read_bw * ports), write_time = outputs / (a.levels[0].write_bw * ports);
  r.roofline_cycles = std::max(compute_time, instructions ? read_time + write_time : std::max(read_time, write_time));
  // Of the matrix unit, or of the lanes where nothing runs on it (an element-wise workload).
  if (mu && r.cycles > 0 && (walk.macs > 0 || !vu)) r.utilization = static_cast<double>(walk.macs) / (r.cycles * static_cast<double>(mu->total_pes()));
  else if (vu && r.cycles > 0) r.utilization = static_cast<double>(walk.vector_ops) / (r.cycles * static_cast<double>(vu->total_pes()));
}

}  // namespace

Report analyze(const arch::Arch& a, const Workload& w, const Dataflow& f) { return analyze(a, w, f, nullptr); }

Report analyze(const arch::Arch& a, const Workload& w, const Dataflow& f, PhaseCache* phases, StepReplay replay,
               HeldAs held, ShapeCache* shapes) {
  return *analyze_below(a, w, f, CyclesBar{}, phases, replay, held, shapes).report;
}

BarredReport analyze_below(const arch::Arch& a, const Workload& w, const Dataflow& f, CyclesBar give_up,
                           PhaseCache* phases, StepReplay replay, HeldAs held, ShapeCache* shapes) {
  Report r;
  try {
    const std::shared_ptr<const TreeShape> shape = shapes ? shapes->shape(a, w, f) : std::make_shared<const TreeShape>(a, w, f);
    const Placement& p = shape->placement;
    check_units(a, w, f, r);
    WalkResult walk = walk_tree(a, w, f, *shape, phases, replay, held, give_up);
    if (walk.gave_up) return BarredReport{std::nullopt, walk.at_least};
    for (auto& pr : walk.problems) r.problems.push_back(pr);
    summarise_ops(a, w, f, walk, r);  // first: summarise() reads the ops' compute
    summarise(a, w, f, p, walk, shapes ? shapes->compulsory(a, w) : compulsory_bytes(a, w), r);
    recycle_walk_result(std::move(walk));
  } catch (const InputError& e) {
    for (const auto& pr : e.problems()) r.problems.push_back(pr);
  } catch (const SetTooLarge& e) {
    r.problems.push_back({f.root().loc, e.what()});
  }
  r.valid = r.problems.empty();
  if (!r.valid) r.reason = r.problems.front().message;
  return BarredReport{std::move(r), 0};
}

std::vector<Problem> no_dataflow_runs(const arch::Arch& a, const Workload& w) {
  std::vector<Problem> out;
  for (const Op& op : w.ops)
    for (std::string& why : cannot_run(a, op)) out.push_back({op.loc, std::move(why)});
  const arch::MemoryLevel& outermost = a.levels.front();
  const double io_bytes = static_cast<double>(w.io_elements() * outermost.word_bytes);
  if (!outermost.unlimited() && io_bytes > outermost.capacity_bytes)
    out.push_back({outermost.capacity_loc, "level '" + outermost.name + "' holds " + human_bytes(outermost.capacity_bytes) +
                                               " but the workload's inputs and outputs alone take " + human_bytes(io_bytes)});
  return out;
}

}  // namespace dfx::model
