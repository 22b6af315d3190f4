#include "tests/property/random_tree.h"

#include <map>
#include <set>
#include <sstream>
#include <vector>

namespace dfx::oracle {
namespace {

int pick(std::mt19937_64& rng, int lo, int hi) {  // inclusive
  return std::uniform_int_distribution<int>(lo, hi)(rng);
}
bool chance(std::mt19937_64& rng, double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; }

struct Family {
  std::vector<std::string> dims;
  std::vector<std::pair<std::string, std::string>> ops;  // name, expr
  std::map<std::string, std::vector<std::string>> op_dims;
  std::vector<std::pair<std::string, std::string>> same_size = {};  // (dim, dim whose size it takes)
};

Family family(std::mt19937_64& rng) {
  switch (pick(rng, 0, 8)) {
    case 0:
      return {{"m", "n", "k"}, {{"mm", "C[m,n] += A[m,k] * B[k,n]"}}, {{"mm", {"m", "n", "k"}}}};
    case 1:
      return {{"m", "k", "l", "n"},
              {{"g1", "C[m,l] += A[m,k] * B[k,l]"}, {"g2", "E[m,n] += C[m,l] * D[l,n]"}},
              {{"g1", {"m", "k", "l"}}, {"g2", {"m", "l", "n"}}}};
    case 2:
      return {{"b", "m", "k", "l", "n"},
              {{"qk", "S[b,m,l] += Q[b,m,k] * K[b,k,l]"}, {"mx", "X[b,m] max= S[b,m,l]"},
               {"ex", "P[b,m,l] = exp(S[b,m,l] - X[b,m])"}, {"av", "O[b,m,n] += P[b,m,l] * V[b,l,n]"}},
              {{"qk", {"b", "m", "k", "l"}}, {"mx", {"b", "m", "l"}}, {"ex", {"b", "m", "l"}}, {"av", {"b", "m", "l", "n"}}}};
    case 3:
      return {{"c1", "c2", "c3", "p", "r", "q", "s"},
              {{"cv1", "O1[c2,p] += I[c1,p*2+r] * W1[c2,c1,r]"}, {"cv2", "O2[c3,q] += O1[c2,q+s] * W2[c3,c2,s]"}},
              {{"cv1", {"c1", "c2", "p", "r"}}, {"cv2", {"c2", "c3", "q", "s"}}}};
    case 4:
      return {{"i", "j"},
              {{"ex", "B[i,j] = exp(A[i,j])"}, {"rs", "C[i] += B[i,j]"}, {"dv", "D[i,j] = B[i,j] / C[i]"}},
              {{"ex", {"i", "j"}}, {"rs", {"i", "j"}}, {"dv", {"i", "j"}}}};
    case 5:  // an op that reads one tensor twice (a square, as in a norm), fused with its reduction
      return {{"i", "j"},
              {{"sq", "B[i,j] = A[i,j] * A[i,j]"}, {"rs", "C[i] += B[i,j]"}},
              {{"sq", {"i", "j"}}, {"rs", {"i", "j"}}}};
    case 6:  // one tensor read along different dims: a Gram matrix (n's size is m's)
      return {{"m", "n", "k"}, {{"gr", "C[m,n] += A[m,k] * A[n,k]"}}, {{"gr", {"m", "n", "k"}}}, {{"n", "m"}}};
    case 7:  // and a tensor beside its transpose (j's size is i's), fused with a reduction
      return {{"i", "j"},
              {{"tr", "B[i,j] = A[i,j] * A[j,i]"}, {"rs", "C[i] += B[i,j]"}},
              {{"tr", {"i", "j"}}, {"rs", {"i", "j"}}},
              {{"j", "i"}}};
    default:
      return {{"h", "r", "c"},
              {{"cv", "O[c,h] += I[c,h*2+r] * W[c,r]"}},
              {{"cv", {"c", "h", "r"}}}};
  }
}

std::string arch_yaml(std::mt19937_64& rng, std::vector<std::string>& chain, std::string& beside) {
  std::ostringstream os;
  os << "name: random\ncompute:\n  matrix: {rows: 64, cols: 64}\n  vector: {lanes: 4096}\nlevels:\n";
  // Some levels cannot multicast: each instance below them is fed its own copy.
  auto multicast = [&] { return chance(rng, 0.3) ? ", multicast: false" : ""; };
  os << "  - {name: DRAM, capacity: unlimited, read_bw: 4, write_bw: 4" << multicast() << "}\n";
  chain = {"DRAM"};
  const int inner = pick(rng, 1, 3);
  const char* names[] = {"L2", "L1", "L0"};
  for (int i = 0; i < inner; ++i) {
    os << "  - {name: " << names[i] << ", capacity: unlimited, read_bw: 8, write_bw: 8" << multicast() << "}\n";
    chain.push_back(names[i]);
  }
  beside.clear();
  if (chance(rng, 0.3)) {  // a level beside the chain: transfers to it go through DRAM
    beside = "U";
    os << "  - {name: U, parent: DRAM, capacity: unlimited, read_bw: 8, write_bw: 8}\n";
    os << "paths:\n  - {from: DRAM, to: " << chain[1] << "}\n";
    for (size_t i = 2; i < chain.size(); ++i) os << "  - {from: " << chain[i - 1] << ", to: " << chain[i] << "}\n";
    os << "  - {from: DRAM, to: U}\n";
  }
  return os.str();
}

class TreeGen {
 public:
  TreeGen(std::mt19937_64& rng, const Family& fam, const std::map<std::string, int>& sizes,
          const std::vector<std::string>& chain, const std::string& beside)
      : rng_(rng), fam_(fam), sizes_(sizes), chain_(chain), beside_(beside) {}

  void tile(std::ostringstream& os, int indent, size_t first, size_t last, size_t level, int depth) {
    std::string pad(static_cast<size_t>(indent), ' ');
    std::string lv = chain_[level];
    if (!beside_.empty() && level > 0 && chance(rng_, 0.15)) lv = beside_;
    os << pad << "tile: " << lv << "\n";
    std::set<std::string> dims;
    for (size_t o = first; o <= last; ++o)
      for (const auto& d : fam_.op_dims.at(fam_.ops[o].first)) dims.insert(d);
    std::vector<std::string> dv(dims.begin(), dims.end());
    os << pad << "loops: [";
    int nloops = pick(rng_, 0, 3);
    for (int i = 0; i < nloops; ++i) {
      const std::string& d = dv[static_cast<size_t>(pick(rng_, 0, static_cast<int>(dv.size()) - 1))];
      int factor = pick(rng_, 1, std::max(1, sizes_.at(d)));
      os << (i ? ", " : "") << '"' << d << ':' << factor << (chance(rng_, 0.25) ? ":sp" : "") << '"';
    }
    // Now and then one or two spatial loops last, over leaves, the only place one whose
    // instances are not all alike may go: a factor that does not divide its extent (the last
    // instance has less to do), or a partial step of a loop above (fewer instances run).
    size_t n = last - first + 1;
    const bool over_leaves = n <= 3 && chance(rng_, 0.3);
    if (over_leaves) {
      std::vector<std::string> temporal, spatial;
      const int spreads = chance(rng_, 0.4) ? 2 : 1;
      for (int k = 0; k < spreads; ++k) {
        const std::string& d = dv[static_cast<size_t>(pick(rng_, 0, static_cast<int>(dv.size()) - 1))];
        const int size = sizes_.at(d);
        if (size >= 3 && chance(rng_, 0.5)) {
          // Padding: t steps of ceil(size/t) instances, fewer in the partial last step.
          const int steps = pick(rng_, 2, size - 1), chunk = (size + steps - 1) / steps;
          temporal.push_back(d + ':' + std::to_string(steps));
          spatial.push_back(d + ':' + std::to_string(chunk) + ":sp");
        } else {
          spatial.push_back(d + ':' + std::to_string(pick(rng_, 2, std::max(2, size))) + ":sp");
        }
      }
      bool comma = nloops > 0;
      for (const auto* part : {&temporal, &spatial})
        for (const std::string& l : *part) os << (comma ? ", " : "") << '"' << l << '"', comma = true;
    }
    os << "]\n";
    const char* prims[] = {"Seq", "Shar", "Para", "Pipe"};
    os << pad << "prim: " << prims[pick(rng_, 0, 3)] << "\n";
    os << pad << "children:\n";
    // Split the ops into 1..3 contiguous groups; a group of one op may become a leaf here.
    size_t groups = over_leaves ? n : static_cast<size_t>(pick(rng_, 1, static_cast<int>(std::min<size_t>(3, n))));
    std::vector<size_t> cuts = {first};
    for (size_t g = 1; g < groups; ++g) cuts.push_back(first + g * n / groups);
    cuts.push_back(last + 1);
    for (size_t g = 0; g + 1 < cuts.size(); ++g) {
      size_t a = cuts[g], b = cuts[g + 1] - 1;
      bool leaf = a == b && (over_leaves || depth >= 3 || chance(rng_, 0.4));
      if (leaf && over_leaves && chance(rng_, 0.6)) {
        // A loop-less tile between: its buffers are one per instance of the uneven loop (the
        // registers under a PE array), fed from the tile above by one multicast.
        const size_t below = std::min(chain_.size() - 1, level + 1);
        os << pad << "  - tile: " << chain_[below] << "\n" << pad << "    children:\n" << pad << "      - op: " << fam_.ops[a].first << "\n";
        continue;
      }
      if (leaf) {
        os << pad << "  - op: " << fam_.ops[a].first << "\n";
        continue;
      }
      size_t next = std::min(chain_.size() - 1, level + static_cast<size_t>(pick(rng_, 0, 1)));
      std::ostringstream child;
      tile(child, indent + 4, a, b, next, depth + 1);
      std::string text = child.str();
      text.replace(static_cast<size_t>(indent) + 2, 2, "- ");
      os << text;
    }
  }

 private:
  std::mt19937_64& rng_;
  const Family& fam_;
  const std::map<std::string, int>& sizes_;
  const std::vector<std::string>& chain_;
  const std::string& beside_;
};

}  // namespace

RandomCase random_case(std::mt19937_64& rng) {
  RandomCase c;
  std::vector<std::string> chain;
  std::string beside;
  c.arch_yaml = arch_yaml(rng, chain, beside);
  Family fam = family(rng);
  std::map<std::string, int> sizes;
  std::ostringstream ws;
  ws << "name: random\ndims: {";
  for (size_t i = 0; i < fam.dims.size(); ++i) {
    sizes[fam.dims[i]] = chance(rng, 0.2) ? pick(rng, 7, 13) : pick(rng, 1, 6);
    ws << (i ? ", " : "") << fam.dims[i] << ": " << sizes[fam.dims[i]];
  }
  ws << "}\nops:\n";
  for (const auto& [name, expr] : fam.ops) ws << "  - {name: " << name << ", expr: \"" << expr << "\"}\n";
  c.workload_yaml = ws.str();
  // Conv chains need matching shapes: O1's extent p must equal q + s - 1.
  if (sizes.count("q")) {
    sizes["p"] = sizes["q"] + sizes["s"] - 1;
    std::string& y = c.workload_yaml;
    size_t at = y.find("p: ");
    y.replace(at, y.find(',', at) - at, "p: " + std::to_string(sizes["p"]));
  }
  // A tensor read along two dims needs them the same size.
  for (const auto& [read, as] : fam.same_size) {
    sizes[read] = sizes[as];
    std::string& y = c.workload_yaml;
    size_t at = y.find(" " + read + ": ");
    y.replace(at, y.find_first_of(",}", at) - at, " " + read + ": " + std::to_string(sizes[read]));
  }
  std::ostringstream fs;
  fs << "name: random\ntree:\n";
  TreeGen(rng, fam, sizes, chain, beside).tile(fs, 2, 0, fam.ops.size() - 1, 0, 0);
  c.flow_yaml = fs.str();
  return c;
}

}  // namespace dfx::oracle
