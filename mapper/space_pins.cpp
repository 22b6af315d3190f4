// Parts of the tree the user fixes by hand: the fusion (`dfx explore --groups`) and, with
// `--fix`, a group's primitive, its loops outside the ops, its loops over the cores, an op's
// spatial loops, loop order and where its output waits for later groups. Every point
// the space proposes keeps them; the rest is searched.
#include <algorithm>
#include <map>
#include <sstream>

#include "arch/errors.h"
#include "mapper/space.h"

namespace dfx::mapper {
namespace {

const SourceLoc kAt{"--fix", 0, 0, ""};

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string part; std::getline(in, part, sep);) out.push_back(part);
  return out;
}

// "m:16" → (dim index, 16); a clear error for anything else.
std::pair<int, int64_t> dim_factor(const model::Workload& w, const std::string& spec, const std::string& item) {
  const size_t colon = item.find(':');
  const std::string name = item.substr(0, colon);
  const int d = w.dim_index(name);
  if (d < 0) throw InputError(kAt, "'" + spec + "': unknown dimension '" + name + "'");
  const int64_t size = w.dims[static_cast<size_t>(d)].size;
  int64_t f = 0;
  try {
    size_t used = 0;
    if (colon != std::string::npos) f = std::stoll(item.substr(colon + 1), &used);
    if (colon == std::string::npos || used != item.size() - colon - 1) f = 0;
  } catch (const std::exception&) {
    f = 0;
  }
  if (f < 1 || f > size)
    throw InputError(kAt, "'" + spec + "': expected DIM:F with 1 <= F <= " + std::to_string(size) + " for '" + name + "', found '" + item + "'");
  return {d, f};
}

}  // namespace

std::vector<int> Space::fixed_members(int g) const {
  std::vector<int> members;
  for (size_t o = 0; o < fixed_groups_.size(); ++o)
    if (fixed_groups_[o] == g) members.push_back(static_cast<int>(o));
  return members;
}

int Space::fixed_group_named(const std::string& spec, const std::string& target) const {
  std::vector<int> ops;
  for (const std::string& name : split(target, '+')) {
    const int op = w_.op_index(name);
    if (op < 0) throw InputError(kAt, "'" + spec + "': unknown op '" + name + "'");
    ops.push_back(op);
  }
  if (fixed_groups_.empty())
    throw InputError(kAt, "'" + spec + "' fixes part of a group: fix the fusion with --groups too");
  const int g = fixed_groups_[static_cast<size_t>(ops.front())];
  std::sort(ops.begin(), ops.end());
  if (ops != fixed_members(g)) throw InputError(kAt, "'" + spec + "': '" + target + "' is not one of the groups of --groups");
  return g;
}

void Space::pin(const std::vector<std::string>& specs) {
  const size_t groups = fixed_groups_.empty() ? 0 : static_cast<size_t>(fixed_groups_.back()) + 1;
  pins_.prim.assign(groups, -1);
  pins_.cores.assign(groups, kSearched);
  pins_.loops.assign(groups, {});
  pins_.spatial.assign(w_.ops.size(), {});
  pins_.order.assign(w_.ops.size(), kSearched);
  pins_.home.assign(w_.ops.size(), kSearched);
  std::map<std::pair<std::string, int>, std::string> given;  // (key, op or group) → its spec
  for (const std::string& spec : specs) {
    const size_t colon = spec.find(':'), eq = spec.find('=');
    if (colon == std::string::npos || eq == std::string::npos || eq < colon)
      throw InputError(kAt, "'" + spec + "': expected TARGET:KEY=VALUE, e.g. qk:sp=m:16,l:16 or qk+av:prim=Pipe");
    const std::string target = spec.substr(0, colon), key = spec.substr(colon + 1, eq - colon - 1), value = spec.substr(eq + 1);
    const bool of_group = key == "prim" || key == "loops" || key == "cores";
    const int fixed = of_group ? fixed_group_named(spec, target) : w_.op_index(target);  // the op or group it fixes a part of
    if (of_group) pin_group_spec(spec, fixed, key, value);
    else if (key == "sp") pin_spatial_spec(spec, target, value);
    else if (key == "order") pin_order_spec(spec, target, value);
    else if (key == "home") pin_home_spec(spec, target, value);
    else throw InputError(kAt, "'" + spec + "': unknown key '" + key + "' (prim, loops, cores, sp, order or home)");
    // A part fixed twice would keep the last value without a word: refused instead.
    const auto [earlier, fresh] = given.emplace(std::make_pair(key, fixed), spec);
    if (!fresh) throw InputError(kAt, "'" + spec + "' fixes what '" + earlier->second + "' fixed already; give one");
  }
}

void Space::pin_group_spec(const std::string& spec, int g, const std::string& key, const std::string& value) {
  const size_t gi = static_cast<size_t>(g);
  const std::vector<int> members = fixed_members(g);
  const std::vector<int>& dims = outer_dims(members);
  if (key == "prim") {
    if (members.size() == 1) throw InputError(kAt, "'" + spec + "': a group of one op has no primitive to fix");
    for (model::Prim p : prims_)
      if (value == model::prim_name(p)) pins_.prim[gi] = static_cast<int>(p);
    if (pins_.prim[gi] < 0) throw InputError(kAt, "'" + spec + "': a fused group may use " + prim_list() + " (see --prims)");
    return;
  }
  auto dim_names = [&](const std::vector<int>& ds) {
    std::string s;
    for (int d : ds) s += (s.empty() ? "" : ", ") + w_.dims[static_cast<size_t>(d)].name;
    return s.empty() ? std::string("none") : s;
  };
  // Each DIM:F of the value as (position among the group's outer dims, F).
  auto outer_items = [&](const std::string& verb, const std::string& where) {
    std::vector<std::pair<size_t, int64_t>> out;
    for (const std::string& item : split(value, ',')) {
      const auto [d, f] = dim_factor(w_, spec, item);
      const auto at = std::find(dims.begin(), dims.end(), d);
      if (at == dims.end())
        throw InputError(kAt, "'" + spec + "': the group " + verb + " " + dim_names(dims) + where + ", not '" + w_.dims[static_cast<size_t>(d)].name + "'");
      out.emplace_back(static_cast<size_t>(at - dims.begin()), f);
    }
    return out;
  };
  if (key == "loops") {
    pins_.loops[gi].assign(dims.size(), 0);
    for (const auto& [i, f] : outer_items("loops over", " outside its ops")) pins_.loops[gi][i] = f;
    return;
  }
  // cores
  if (value == "none") {
    pins_.cores[gi] = -1;
    return;
  }
  std::vector<int64_t> wanted(dims.size(), 1);
  for (const auto& [i, f] : outer_items("may spread", " over the cores")) wanted[i] = f;
  const auto& splits = core_splits(members);
  std::string options;
  for (size_t k = 0; k < splits.size(); ++k) {
    bool same = true;
    for (size_t i = 0; i < dims.size(); ++i) same = same && splits[k].on(i) == wanted[i];
    if (same) {
      pins_.cores[gi] = static_cast<int>(k);
      return;
    }
    options += std::string(options.empty() ? "" : "; ") + w_.dims[static_cast<size_t>(dims[splits[k].dim[0]])].name + ":" +
               std::to_string(splits[k].cores[0]);
    if (splits[k].cores[1] > 1) options += "," + w_.dims[static_cast<size_t>(dims[splits[k].dim[1]])].name + ":" + std::to_string(splits[k].cores[1]);
  }
  // A dim an op of the group reads one tensor along in two ways is never offered: say so.
  std::string apart;
  const uint64_t read_apart = dims_read_apart(w_, static_cast<size_t>(members.front()), static_cast<size_t>(members.back()) + 1);
  for (size_t i = 0; i < dims.size(); ++i)
    if (wanted[i] > 1 && (read_apart >> dims[i] & 1) && apart.empty())
      apart = "; the group reads a tensor along '" + w_.dims[static_cast<size_t>(dims[i])].name +
              "' in two ways, and cores spread over it would hold slices of it of different shapes";
  throw InputError(kAt, "'" + spec + "': not a way this group can use the " + std::to_string(cores_) + " cores (" +
                            (options.empty() ? std::string("it cannot") : "those are " + options) + ", or none)" + apart);
}

void Space::pin_spatial_spec(const std::string& spec, const std::string& target, const std::string& value) {
  const int index = w_.op_index(target);
  if (index < 0) throw InputError(kAt, "'" + spec + "': unknown op '" + target + "' (sp fixes one op's spatial loops)");
  const size_t o = static_cast<size_t>(index);
  const model::Op& op = w_.ops[o];
  Factors sp(op.dims.size(), 1);
  if (value != "none")
    for (const std::string& item : split(value, ',')) {
      const auto [d, f] = dim_factor(w_, spec, item);
      const auto at = std::find(op.dims.begin(), op.dims.end(), d);
      if (at == op.dims.end()) throw InputError(kAt, "'" + spec + "': op '" + target + "' has no dimension '" + w_.dims[static_cast<size_t>(d)].name + "'");
      sp[static_cast<size_t>(at - op.dims.begin())] = f;
    }
  const PeAxes& axes = unit_axes(o);
  if (!axes.fits(sp)) throw InputError(kAt, "'" + spec + "': does not fit one core's " + axes.describe());
  pins_.spatial[o] = sp;
}

void Space::pin_order_spec(const std::string& spec, const std::string& target, const std::string& value) {
  const int index = w_.op_index(target);
  if (index < 0) throw InputError(kAt, "'" + spec + "': unknown op '" + target + "' (order fixes one op's loop order)");
  const size_t o = static_cast<size_t>(index);
  const model::Op& op = w_.ops[o];
  auto names = [&](const std::vector<size_t>& positions) {
    std::string s;
    for (size_t i : positions) s += (s.empty() ? "" : ",") + w_.dims[static_cast<size_t>(op.dims[i])].name;
    return s;
  };
  if (ordered_dims(o, 0).empty()) throw InputError(kAt, "'" + spec + "': op '" + target + "' loops over no output dimension: no order to fix");
  for (int r = 0; r < loop_orders(o); ++r)
    if (names(ordered_dims(o, r)) == value) {
      pins_.order[o] = r;
      return;
    }
  std::string reductions;
  for (int d : op.reduction_dims) reductions += (reductions.empty() ? "" : ",") + w_.dims[static_cast<size_t>(d)].name;
  const std::vector<size_t> all = ordered_dims(o, 0);
  const size_t head = unordered_head(all.size());
  const std::string fixed_head = names(std::vector<size_t>(all.begin(), all.begin() + static_cast<long>(head)));
  throw InputError(kAt, "'" + spec + "': op '" + target + "' loops over its output dims " + names(all) +
                            ": name each once, outermost first, " +
                            (head == 0 ? "in any order" : fixed_head + " first in this order, then the innermost " + std::to_string(kOrderedDims) + " in any order") +
                            (reductions.empty() ? "" : " (its reduction loops " + reductions + " stay innermost)"));
}

void Space::pin_home_spec(const std::string& spec, const std::string& target, const std::string& value) {
  const int index = w_.op_index(target);
  if (index < 0) throw InputError(kAt, "'" + spec + "': unknown op '" + target + "' (home fixes where one op's output waits)");
  if (fixed_groups_.empty()) throw InputError(kAt, "'" + spec + "' fixes where an output waits between groups: fix the fusion with --groups too");
  Choice grouping;
  grouping.group_of = fixed_groups_;
  const std::vector<size_t> handing = handover_ops(grouping);
  if (std::find(handing.begin(), handing.end(), static_cast<size_t>(index)) == handing.end())
    throw InputError(kAt, "'" + spec + "': no later group reads the output of op '" + target + "' under --groups: it waits nowhere");
  std::string options = a_.levels[0].name;
  if (value == a_.levels[0].name) pins_.home[static_cast<size_t>(index)] = 0;
  for (size_t k = 0; k < levels_.handover.size(); ++k) {
    const std::string& name = a_.levels[static_cast<size_t>(levels_.handover[k])].name;
    options += ", " + name;
    if (value == name) pins_.home[static_cast<size_t>(index)] = static_cast<int>(k) + 1;
  }
  if (pins_.home[static_cast<size_t>(index)] == kSearched)
    throw InputError(kAt, "'" + spec + "': an output handed to a later group waits in " + options + " on arch '" + a_.name + "'");
}

void Space::pin_homes(Choice& c) const {
  bool any = false;
  for (size_t o = 0; o < pins_.home.size(); ++o) any = any || pins_.home[o] != kSearched;
  if (!any || c.group_of != fixed_groups_) return;
  c.home.resize(w_.ops.size(), 0);
  for (size_t o = 0; o < pins_.home.size(); ++o)
    if (pins_.home[o] != kSearched) c.home[o] = pins_.home[o];
  if (std::all_of(c.home.begin(), c.home.end(), [](int h) { return h == 0; })) c.home.clear();
}

void Space::fix_groups(const std::vector<std::vector<std::string>>& groups) {
  const SourceLoc at{"--groups", 0, 0, ""};
  std::vector<int> group_of(w_.ops.size(), -1);
  for (size_t g = 0; g < groups.size(); ++g)
    for (const std::string& name : groups[g]) {
      const int op = w_.op_index(name);
      if (op < 0) throw InputError(at, "unknown op '" + name + "' (workload '" + w_.name + "')");
      int& slot = group_of[static_cast<size_t>(op)];
      if (slot >= 0) throw InputError(at, "op '" + name + "' is listed twice");
      slot = static_cast<int>(g);
    }
  for (size_t o = 0; o < w_.ops.size(); ++o) {
    if (group_of[o] < 0) throw InputError(at, "op '" + w_.ops[o].name + "' is in no group; list every op once");
    if (o > 0 && group_of[o] != group_of[o - 1] && group_of[o] != group_of[o - 1] + 1)
      throw InputError(at, "groups must be runs of ops in the workload's order (" + w_.ops[o - 1].name + " then " +
                               w_.ops[o].name + ")");
  }
  if (group_of.front() != 0) throw InputError(at, "the first group must start with op '" + w_.ops.front().name + "'");
  fix_groups(std::move(group_of));
}

std::string Space::prim_list() const {
  std::string s;
  for (model::Prim p : prims_) s += (s.empty() ? "" : ", ") + std::string(model::prim_name(p));
  return s;
}

void Space::pin_structure(Choice& c) const {
  for (size_t g = 0; g < pins_.prim.size() && g < c.prim.size(); ++g)
    if (pins_.prim[g] >= 0) c.prim[g] = static_cast<model::Prim>(pins_.prim[g]);
  lone_ops_seq(c);
  pin_homes(c);
}

void Space::pin_outer(Choice& c, size_t g) const {
  if (g >= pins_.cores.size() || c.group_of != fixed_groups_) return;
  if (pins_.cores[g] != kSearched) c.core_dim[g] = pins_.cores[g];
  for (size_t i = 0; i < pins_.loops[g].size() && i < c.outer[g].size(); ++i)
    if (pins_.loops[g][i] > 0) c.outer[g][i] = pins_.loops[g][i];
}

void Space::pin_ops(Choice& c) const {
  for (size_t o = 0; o < pins_.spatial.size() && o < c.spatial.size(); ++o)
    if (!pins_.spatial[o].empty()) c.spatial[o] = pins_.spatial[o];
  for (size_t o = 0; o < pins_.order.size() && o < c.order.size(); ++o)
    if (pins_.order[o] != kSearched) c.order[o] = pins_.order[o];
}

void Space::pin_all(Choice& c) const {
  pin_structure(c);
  for (size_t g = 0; g < c.outer.size(); ++g) pin_outer(c, g);
  pin_ops(c);
}

bool Space::honours_pins(const Choice& c) const {
  Choice pinned = c;
  pin_all(pinned);
  return pinned == c;
}

bool Space::pinned() const {
  for (int p : pins_.prim) if (p >= 0) return true;
  for (int k : pins_.cores) if (k != kSearched) return true;
  for (const auto& l : pins_.loops) if (!l.empty()) return true;
  for (const auto& s : pins_.spatial) if (!s.empty()) return true;
  for (int r : pins_.order) if (r != kSearched) return true;
  for (int h : pins_.home) if (h != kSearched) return true;
  return false;
}

}  // namespace dfx::mapper
