// arch.yaml → Arch, in two phases: read and check everything (collecting problems), then build.
#include <algorithm>
#include <map>

#include "arch/arch.h"
#include "arch/config.h"
#include "arch/isa.h"
#include "arch/units.h"

namespace dfx::arch {
namespace {

const std::vector<std::string> kVectorOps = {"add", "sub", "mul", "div", "max", "min", "abs", "sqrt", "tanh", "sigmoid", "gelu",
                                             "exp", "sum", "relu", "scale", "cast", "copy"};

// Bounds far beyond any chip that keep every product of them (a unit's PEs over its instances,
// a level's instances per PE) inside int64_t: 2^31 rows by 2^31 columns on 4 cores wrapped to
// -17179869180 PEs. Cerebras' wafer has ~850,000 cores.
constexpr int64_t kMaxCores = int64_t{1} << 20, kMaxSubCores = 1024, kMaxUnitSide = int64_t{1} << 16;
constexpr double kMaxUnitPes = 1099511627776.0;  // 2^40, every instance together

struct Scope {
  int64_t cores = 1, sub_cores = 1;
  // The chip's matrix PEs and vector lanes, every instance of the unit together (0: no such unit).
  int64_t matrix_pes = 0, vector_lanes = 0;
};

int64_t instances_for(MapReader& r, const Scope& s, Diagnostics& diag) {
  if (r.has("instances")) return r.integer_or("instances", 1, 1, kMaxCores * kMaxSubCores);
  std::string per = r.str_or("per", "chip");
  if (per == "chip") return 1;
  if (per == "core") return s.cores;
  if (per == "sub_core") return s.cores * s.sub_cores;
  // One per PE or lane of the unit as it is replicated (per core or per sub-core): a core's one
  // array beside four sub-cores has the registers of one array, not four.
  if (per == "pe") return s.matrix_pes > 0 ? s.matrix_pes : s.cores * s.sub_cores;
  if (per == "lane") return s.vector_lanes > 0 ? s.vector_lanes : s.cores * s.sub_cores;
  diag.add(r.node()["per"].loc(),
           "unknown sharing '" + per + "' (known: chip, core, sub_core, pe, lane)");
  return 1;
}

bool read_role(const std::string& s, Role& role) {
  static const std::map<std::string, Role> roles = {
      {"left", Role::Left}, {"right", Role::Right}, {"acc", Role::Acc}, {"vector", Role::Vector}};
  auto it = roles.find(s);
  if (it == roles.end()) return false;
  role = it->second;
  return true;
}

void read_unit(const ConfigNode& node, UnitKind kind, const Scope& s, Arch& a, Diagnostics& diag) {
  MapReader r(node, diag);
  ComputeUnit u;
  u.kind = kind;
  u.name = kind == UnitKind::Matrix ? "matrix" : "vector";
  if (kind == UnitKind::Matrix) {
    if (r.has("cube")) {
      auto dims = r.child("cube");
      int64_t pes = 1;
      if (!dims.is_seq() || dims.items().size() != 3)
        diag.add(dims.loc(), "cube must be a list [m, n, k]");
      for (const auto& d : dims.items())
        if (auto v = parse_integer(d, diag, 1, kMaxUnitSide)) pes *= *v, u.shape.push_back(*v);
      u.pes_per_instance = pes;
    } else {
      // One side without the other would leave it at 1 without a word (QA pass 9: rows: 64 alone
      // made a 64 × 1 array).
      if (r.has("rows") != r.has("cols"))
        diag.add(r.node().loc(), std::string("a matrix unit takes both rows and cols (") + (r.has("rows") ? "cols" : "rows") +
                                     " is missing; a single row or column is written as 1)");
      u.shape = {r.integer_or("rows", 1, 1, kMaxUnitSide), r.integer_or("cols", 1, 1, kMaxUnitSide)};
      u.pes_per_instance = u.shape[0] * u.shape[1];
    }
    u.op_pj = r.number_or("mac_pj", 0.0, 0.0);
  } else {
    u.pes_per_instance = r.integer_or("lanes", 1, 1, kMaxUnitSide * kMaxUnitSide);
    u.shape = {u.pes_per_instance};
    u.ops = r.str_list_or("ops", {});
    // An empty list would read as the default (every op) rather than none.
    if (r.has("ops") && u.ops.empty() && r.node()["ops"].is_seq())
      diag.add(r.node()["ops"].loc(), "an empty list of vector ops: leave 'ops' out for every op the unit knows");
    for (const auto& op : u.ops)
      if (closest_match(op, kVectorOps) != op)
        diag.add(r.node()["ops"].loc(), "unknown vector op '" + op + "'");
    u.op_pj = r.number_or("op_pj", 0.0, 0.0);
  }
  if (r.has("schedule")) {
    const std::string sched = r.str_or("schedule", "tree");
    if (sched != "tree" && sched != "instruction")
      diag.add(r.node()["schedule"].loc(), "schedule must be 'tree' or 'instruction', not '" + sched + "'");
    if (sched == "instruction") u.schedule = ComputeUnit::Schedule::Instruction;
  }
  u.instances = instances_for(r, s, diag);
  if (static_cast<double>(u.pes_per_instance) * static_cast<double>(u.instances) > kMaxUnitPes)
    diag.add(node.loc(), "the " + u.name + " unit has " + std::to_string(u.pes_per_instance) + " PEs in each of " +
                             std::to_string(u.instances) + " instances; dfx models at most 2^40 in all");
  r.finish();
  a.units.push_back(u);
}

constexpr int64_t kMaxWordBytes = 1024;

void read_level(const ConfigNode& node, const Scope& s, Arch& a, Diagnostics& diag,
                std::vector<std::pair<std::string, SourceLoc>>& parents) {
  MapReader r(node, diag);
  MemoryLevel lv;
  lv.loc = node.loc();
  lv.name = r.str("name", true).value_or("?");
  if (a.level_index(lv.name) >= 0) diag.add(node.loc(), "duplicate level name '" + lv.name + "'");
  auto cap = r.child("capacity");
  if (cap.valid()) {
    lv.capacity_bytes = parse_bytes(cap, diag).value_or(-1);
    lv.capacity_loc = cap.loc();
    // A level that holds nothing can hold no tile: every dataflow would fail, and explore could
    // only say it found none.
    if (lv.capacity_bytes >= 0 && lv.capacity_bytes < 1) diag.add(cap.loc(), "capacity must be at least 1 B (or 'unlimited')");
  }
  else if (r.ok()) diag.add(cap.loc(), "missing required key 'capacity' (a size, or 'unlimited')");  // else: not a mapping, said
  // Bytes per element moved; bounded so that every count of bytes stays exact in 64 bits.
  const int64_t word_bytes = r.integer_or("word_bytes", 2, 1);
  if (word_bytes > kMaxWordBytes)
    diag.add(node["word_bytes"].loc(), "word_bytes must be at most " + std::to_string(kMaxWordBytes) + ", found " + std::to_string(word_bytes));
  lv.word_bytes = static_cast<int>(std::min(word_bytes, kMaxWordBytes));
  auto bw = [&](const char* key) {
    auto n = r.child(key);
    if (!n.valid()) {
      if (r.ok()) diag.add(n.loc(), std::string("missing required key '") + key + "'");
      return 1.0;
    }
    double v = parse_bandwidth(n, a.clock_ghz, diag).value_or(1.0);
    if (v <= 0) diag.add(n.loc(), "bandwidth must be positive");
    return v;
  };
  lv.read_bw = bw("read_bw");
  lv.write_bw = bw("write_bw");
  lv.latency = r.integer_or("latency", 0, 0);
  lv.banks = r.integer_or("banks", 1, 1);
  if (r.has("port")) {
    const std::string port = r.str_or("port", "stream");
    if (port != "row" && port != "stream") diag.add(r.node()["port"].loc(), "port must be 'row' or 'stream', not '" + port + "'");
    lv.row_port = port == "row";
  }
  lv.multicast = r.boolean_or("multicast", true);
  lv.instances = instances_for(r, s, diag);
  lv.read_pj = r.number_or("read_pj", 0.0, 0.0);
  lv.write_pj = r.number_or("write_pj", 0.0, 0.0);
  auto holds = r.str_list_or("holds", {});
  if (r.has("holds")) {
    for (bool& h : lv.holds) h = false;
    for (const auto& name : holds) {
      Role role;
      if (read_role(name, role))
        lv.holds[static_cast<int>(role)] = true;
      else
        diag.add(r.node()["holds"].loc(),
                 "unknown tensor role '" + name + "' (known: left, right, acc, vector)");
    }
  }
  std::string parent = r.str_or("parent", a.levels.empty() ? "" : a.levels.back().name);
  parents.emplace_back(parent, r.node()["parent"].loc());
  r.finish();
  a.levels.push_back(lv);
}

void read_paths(const ConfigNode& node, Arch& a, Diagnostics& diag) {
  if (!node.valid()) {  // default: every level talks to its parent
    for (size_t i = 1; i < a.levels.size(); ++i)
      a.paths.push_back({a.levels[i].parent, static_cast<int>(i), "dma"});
    return;
  }
  a.paths_declared = true;
  if (!node.is_seq()) diag.add(node.loc(), "paths must be a list of {from, to, engine}");
  for (const auto& item : node.items()) {
    MapReader r(item, diag);
    DataPath p;
    for (auto [key, dst] : {std::pair{"from", &p.from}, std::pair{"to", &p.to}}) {
      auto name = r.str(key, true);
      if (!name) continue;
      *dst = a.level_index(*name);
      if (*dst < 0) {
        std::vector<std::string> names;
        for (const auto& l : a.levels) names.push_back(l.name);
        std::string hint = closest_match(*name, names);
        diag.add(r.node()[key].loc(), "unknown level '" + *name + "'" +
                                          (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
      }
    }
    p.engine = r.str_or("engine", "dma");
    Pipe pipe;
    if (!engine_pipe(p.engine, pipe)) {
      const std::vector<std::string> engines = {"dma", "dma_out", "MTE1", "MTE2", "MTE3", "fixpipe"};
      const std::string hint = closest_match(p.engine, engines);
      diag.add(r.node()["engine"].loc(), "unknown engine '" + p.engine + "' (" +
                                             (hint.empty() ? "dma, dma_out, MTE1, MTE2, MTE3, fixpipe" : "did you mean '" + hint + "'?") + ")");
    }
    r.finish();
    if (p.from >= 0 && p.to >= 0) a.paths.push_back(p);
  }
}

Arch build(const ConfigNode& root) {
  Diagnostics diag;
  Arch a;
  MapReader r(root, diag);
  if (!r.ok()) diag.throw_if_any();
  a.name = r.str("name", true).value_or("?");
  a.source = r.str_or("source", "");
  if (auto clk = r.child("clock"); clk.valid()) a.clock_ghz = parse_frequency_ghz(clk, diag).value_or(1.0);
  a.cores = r.integer_or("cores", 1, 1, kMaxCores);
  a.sub_cores = r.integer_or("sub_cores", 1, 1, kMaxSubCores);

  Scope s{a.cores, a.sub_cores};
  ConfigNode compute = r.child("compute");
  if (!compute.valid()) diag.add(compute.loc(), "missing required key 'compute'");
  else if (MapReader cr(compute, diag); cr.ok()) {
    // Units first: 'per: pe' on a memory level needs the matrix size.
    if (auto m = cr.child("matrix"); m.valid()) read_unit(m, UnitKind::Matrix, s, a, diag);
    if (auto v = cr.child("vector"); v.valid()) read_unit(v, UnitKind::Vector, s, a, diag);
    cr.finish();
    if (a.units.empty()) diag.add(compute.loc(), "compute needs a 'matrix' or a 'vector' unit");
  }
  for (const auto& u : a.units)
    (u.kind == UnitKind::Matrix ? s.matrix_pes : s.vector_lanes) = u.total_pes();

  ConfigNode levels = r.child("levels");
  std::vector<std::pair<std::string, SourceLoc>> parents;
  if (!levels.is_seq() || levels.items().empty())
    diag.add(levels.loc(), "levels must be a non-empty list, outermost (DRAM) first");
  for (const auto& lv : levels.items()) read_level(lv, s, a, diag, parents);
  for (size_t i = 0; i < a.levels.size(); ++i) {
    const auto& [pname, ploc] = parents[i];
    if (i == 0) {
      if (!pname.empty()) diag.add(ploc, "the outermost level has no parent");
      continue;
    }
    int p = a.level_index(pname);
    if (p < 0 || p >= static_cast<int>(i))
      diag.add(ploc, "parent '" + pname + "' must name a level listed before '" +
                         a.levels[i].name + "'");
    else
      a.levels[i].parent = p;
  }
  read_paths(r.child("paths"), a, diag);
  r.finish();
  diag.throw_if_any();
  return a;
}

}  // namespace

Arch load_arch(const std::string& path) { return build(ConfigNode::load_file(path)); }

Arch load_arch(const std::string& path, const std::vector<Override>& changes) {
  return build(ConfigNode::load_file(path, changes));
}

Arch load_arch_from_string(const std::string& text, const std::string& name) {
  return build(ConfigNode::load_string(text, name));
}

}  // namespace dfx::arch
