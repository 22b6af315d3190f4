// The tile tree as text: the paper's notation (explain) and flow.yaml (to_yaml).
#include <cctype>
#include <sstream>

#include "model/dataflow.h"
#include "model/placement.h"
#include "model/walk.h"

namespace dfx::model {
namespace {

std::string levels_text(const TreeNode& n, const arch::Arch& a) {
  std::string s;
  for (int l : n.levels) s += (s.empty() ? "" : ",") + a.levels[static_cast<size_t>(l)].name;
  return s;
}

void explain_node(const Dataflow& f, const arch::Arch& a, const Workload& w, const Placement& p,
                  int id, OpBoxes boxes, int depth, std::ostringstream& os) {
  const TreeNode& n = f.nodes[static_cast<size_t>(id)];
  std::string pad(static_cast<size_t>(depth) * 2, ' ');
  if (n.is_leaf) {
    const Op& op = w.ops[static_cast<size_t>(n.op)];
    os << pad << op.name << "  {";
    bool first = true;
    for (int d : op.dims) {
      const Range& r = boxes[static_cast<size_t>(n.op)][static_cast<size_t>(d)];
      os << (first ? "" : ", ") << w.dims[static_cast<size_t>(d)].name << ':' << r.second - r.first << '*';
      first = false;
    }
    os << "}  " << op.expr << '\n';
    return;
  }
  os << pad << "T@" << levels_text(n, a) << " {";
  const auto& below = p.ops_below[static_cast<size_t>(id)];
  for (size_t i = 0; i < n.loops.size(); ++i) {
    const Loop& l = n.loops[i];
    int64_t extent = extent_below(w, below, l.dim, boxes);
    int64_t chunk = extent > 0 ? (extent + l.factor - 1) / l.factor : 0;
    os << (i ? ", " : "") << (l.spatial ? "Sp " : "") << w.dims[static_cast<size_t>(l.dim)].name << ':'
       << l.factor;
    if (chunk > 0 && chunk * l.factor != extent) {
      const int64_t trips = (extent + chunk - 1) / chunk;
      os << "(tile " << chunk << ", " << trips << " steps, last " << extent - (trips - 1) * chunk << ')';
    }
    if (chunk > 0) restrict_and_project(w, below, l.dim, 0, chunk, boxes);
  }
  os << "} " << prim_name(n.prim);
  for (const auto& [t, l] : n.keep)
    os << " keep " << w.tensors[static_cast<size_t>(t)].name << "@" << a.levels[static_cast<size_t>(l)].name;
  os << "(\n";
  for (int c : n.children) explain_node(f, a, w, p, c, boxes, depth + 1, os);
  os << pad << ")\n";
}

}  // namespace

std::string yaml_scalar(const std::string& s) {
  bool plain = !s.empty() && (std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_');
  for (char c : s) plain = plain && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.');  // ASCII only
  static const char* const reserved[] = {"true", "false", "yes", "no", "on", "off", "null", "True", "False", "Yes", "No",
                                         "On", "Off", "Null", "TRUE", "FALSE", "YES", "NO", "ON", "OFF", "NULL", "y", "n", "Y", "N"};
  for (const char* r : reserved) plain = plain && s != r;
  if (plain) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') q += '\\', q += c;
    else if (c == '\n') q += "\\n";
    else if (c == '\t') q += "\\t";
    else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) q += "\\x" + std::string{"0123456789abcdef"[(c >> 4) & 15], "0123456789abcdef"[c & 15]};
    else q += c;
  }
  return q + '"';
}

namespace {

std::string yaml_levels(const TreeNode& n, const arch::Arch& a) {
  std::string s;
  for (int l : n.levels) s += (s.empty() ? "" : ",") + yaml_scalar(a.levels[static_cast<size_t>(l)].name);
  return n.levels.size() == 1 ? s : "[" + s + "]";
}

void yaml_node(const Dataflow& f, const arch::Arch& a, const Workload& w, int id, int depth,
               std::ostringstream& os) {
  const TreeNode& n = f.nodes[static_cast<size_t>(id)];
  std::string pad(static_cast<size_t>(depth) * 2, ' ');
  if (n.is_leaf) {
    os << pad << "op: " << yaml_scalar(w.ops[static_cast<size_t>(n.op)].name) << '\n';
    return;
  }
  os << pad << "tile: " << yaml_levels(n, a) << '\n';
  os << pad << "loops: [";
  for (size_t i = 0; i < n.loops.size(); ++i)
    os << (i ? ", " : "") << '"' << w.dims[static_cast<size_t>(n.loops[i].dim)].name << ':'
       << n.loops[i].factor << (n.loops[i].spatial ? ":sp" : "") << '"';
  os << "]\n" << pad << "prim: " << prim_name(n.prim) << '\n';
  if (!n.keep.empty()) {
    os << pad << "keep: {";
    for (size_t i = 0; i < n.keep.size(); ++i)
      os << (i ? ", " : "") << yaml_scalar(w.tensors[static_cast<size_t>(n.keep[i].first)].name) << ": "
         << yaml_scalar(a.levels[static_cast<size_t>(n.keep[i].second)].name);
    os << "}\n";
  }
  os << pad << "children:\n";
  for (int c : n.children) {
    std::ostringstream child;
    yaml_node(f, a, w, c, depth + 2, child);
    std::string text = child.str();
    text.replace(static_cast<size_t>(depth) * 2, 2, "- ");
    os << text;
  }
}

}  // namespace

std::string explain(const Dataflow& f, const arch::Arch& a, const Workload& w) {
  Placement p = place(a, w, f);
  OpBoxes boxes = OpBoxes::whole(w);
  std::ostringstream os;
  os << "# " << f.name << " — loops outermost first; 'Sp' spatial; leaf factors marked * are\n"
     << "# implicit: what remains of each dimension in the first tile, run on the compute unit.\n";
  explain_node(f, a, w, p, 0, boxes, 0, os);
  return os.str();
}

std::string to_yaml(const Dataflow& f, const arch::Arch& a, const Workload& w) {
  std::ostringstream os;
  os << "name: " << yaml_scalar(f.name) << "\nworkload: " << yaml_scalar(w.name) << "\ntree:\n";
  yaml_node(f, a, w, 0, 1, os);
  return os.str();
}

}  // namespace dfx::model
