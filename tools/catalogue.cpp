// `dfx list`: everything a user can write in the three input formats, one line of doc each.
#include <algorithm>
#include <filesystem>
#include <iostream>

#include "arch/arch.h"
#include "tools/commands.h"

namespace dfx::cli {
namespace {

struct Entry {
  const char* name;
  const char* doc;
};

const Entry kLevelKeys[] = {
    {"name", "level name, unique; levels are listed outermost (DRAM) first"},
    {"capacity", "bytes per instance: 4 MiB, 384 KiB, 262144, or 'unlimited'"},
    {"word_bytes", "bytes per element at this level (default 2)"},
    {"read_bw / write_bw", "bytes per cycle per instance, or a rate such as 60 GB/s (uses 'clock')"},
    {"latency", "cycles from a transfer's request to its first data (default 0); each transfer the program issues pays it"},
    {"port", "stream (default): bytes move at the bandwidth; row: one contiguous row piece per cycle (the TPU-like RTL)"},
    {"multicast", "true (default): one transfer out of this level feeds several instances below it; false: each its own copy"},
    {"banks", "word-interleaved banks; an access touching fewer of them gets that share of the bandwidth (default 1; simulator)"},
    {"per / instances", "sharing: chip, core, sub_core, pe, lane; or an explicit instance count"},
    {"parent", "the enclosing level (default: the level listed before)"},
    {"holds", "tensor roles the level may hold: left, right, acc, vector (default all)"},
    {"read_pj / write_pj", "energy per element read / written"},
};
const Entry kArchKeys[] = {
    {"clock", "clock frequency, e.g. 1 GHz or 400 MHz"},
    {"cores / sub_cores", "number of cores and sub-cores per core"},
    {"compute.matrix", "rows, cols (or cube: [m, n, k]), per, mac_pj, schedule (tree: the tree's spatial loops place work; instruction: the unit blocks each instruction itself)"},
    {"compute.vector", "lanes, ops (subset of the vector ops), per, op_pj"},
    {"paths", "list of {from, to, engine}; engine: dma, dma_out, MTE1, MTE2, MTE3, fixpipe; default: each level with its parent on dma"},
};
const Entry kForms[] = {
    {"O[..] += A[..] * B[..]", "matrix unit: multiply-accumulate (A left, B right, O accumulator)"},
    {"O[..] max= X[..]", "vector unit: max-reduction over the dimensions missing from O"},
    {"O[..] += X[..]", "vector unit: sum-reduction"},
    {"O[..] = f(X[..], ...)", "vector unit: elementwise; + - * / and functions such as exp"},
    {"I[n,c,h*2+r,w*2+s]", "affine indices: sums of dim*constant and constants (strides, windows)"},
};
const Entry kVectorOps[] = {{"add", ""}, {"sub", ""}, {"mul", ""}, {"div", ""}, {"max", ""}, {"min", ""},
                            {"exp", ""}, {"sum", ""}, {"relu", ""}, {"abs", ""}, {"sqrt", ""}, {"tanh", ""}, {"sigmoid", ""}, {"gelu", ""}, {"scale", ""}, {"cast", ""}, {"copy", ""}};
const Entry kPrims[] = {
    {"Seq", "children one after another, each owning all resources; data the next child does not use is dropped"},
    {"Shar", "children one after another sharing memory: data stays resident for later children"},
    {"Para", "children at once on split resources; no data dependence allowed between them"},
    {"Pipe", "children pipelined on split resources; latency is the slowest stage"},
};
const Entry kSearches[] = {
    {"genetic", "dfx explore: crossover and mutation of tournament winners over groups, primitives, tiling (default)"},
    {"baseline tiling", "random re-tiling plus mutation of a fixed structure (Layerwise, Fused Seq/Pipe)"},
    {"exhaustive", "dfx explore --exhaustive: every point of the template space (small spaces)"},
    {"polish", "dfx explore --polish: then the best's tiling, one decision at a time, until no single change improves it"},
    {"mcts", "dfx explore --mcts: baselines tiled by Monte-Carlo tree search (UCB1), one decision at a time"},
    {"chain solver", "closed-form Chimera tiles for GEMM chains, element-wise ops and softmax between (REFERENCE.md §3), a baseline"},
    {"--objective", "cycles (default), energy, edp"},
};
const Entry kTileKeys[] = {
    {"tile", "memory level(s) of the tile, e.g. L1 or [L0A, L0B, L0C]"},
    {"loops", "outermost first: 'dim:factor' temporal, 'dim:factor:sp' spatial"},
    {"prim", "inter-tile primitive for the children: Seq (default), Shar, Para, Pipe"},
    {"children", "tiles, or leaves written {op: NAME}"},
    {"keep", "optional: {TENSOR: LEVEL}, an intermediate fused here kept at a level inside its fusion tile's"},
};

void section(const char* title, const Entry* begin, const Entry* end) {
  std::cout << title << '\n';
  for (const Entry* e = begin; e != end; ++e)
    std::cout << "  " << e->name << (e->doc[0] ? std::string(22 > std::string(e->name).size() ? 22 - std::string(e->name).size() : 1, ' ') + e->doc : "") << '\n';
  std::cout << '\n';
}

template <size_t N>
void section(const char* title, const Entry (&entries)[N]) {
  section(title, entries, entries + N);
}

void presets(const char* title, const std::string& dir) {
  std::cout << title << " (" << dir << ")\n";
  std::error_code ec;
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.path().extension() == ".yaml") names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  for (const auto& n : names) std::cout << "  " << n << '\n';
  if (names.empty()) std::cout << "  (none found)\n";
  std::cout << '\n';
}

}  // namespace

int run_list() {
  const std::string root = DFX_CONFIG_DIR;
  presets("Arch presets", root + "/arch");
  presets("Workloads", root + "/workloads");
  presets("Dataflows", root + "/dataflows");
  section("arch.yaml top-level keys", kArchKeys);
  section("Memory-level attributes (levels[*])", kLevelKeys);
  section("Workload operator forms (ops[*])", kForms);
  std::cout << "Vector ops:";
  for (const auto& v : kVectorOps) std::cout << ' ' << v.name;
  std::cout << "\n\n";
  section("Tile-tree node keys (flow.yaml)", kTileKeys);
  section("Inter-tile primitives", kPrims);
  section("Searches (dfx explore)", kSearches);
  return 0;
}

}  // namespace dfx::cli
