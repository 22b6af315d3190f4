// Property: the fast analysis equals the brute-force oracle on random small cases.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <sstream>

#include "model/analyze.h"
#include "model/held.h"
#include "model/walk.h"
#include "model/cycles_floor.h"
#include "model/footprint_floor.h"
#include "model/placement.h"
#include "model/tree_shape.h"
#include "tests/property/oracle.h"
#include "tests/property/random_tree.h"

namespace dfx::oracle {
namespace {

struct Loaded {
  arch::Arch a;
  model::Workload w;
  model::Dataflow f;
};

bool load(const RandomCase& c, Loaded& out) {
  try {
    out.a = arch::load_arch_from_string(c.arch_yaml, "arch");
    out.w = model::load_workload_from_string(c.workload_yaml, "workload");
    out.f = model::load_dataflow_from_string(c.flow_yaml, "flow", out.a, out.w);
    model::place(out.a, out.w, out.f);
    return true;
  } catch (const InputError&) {
    return false;  // the generator may draw trees the loader rightly rejects
  }
}

// A spatial loop whose factor does not divide its dimension: its last instance (usually) has
// less to do than the others.
bool has_uneven_spatial_loop(const Loaded& l) {
  for (const auto& n : l.f.nodes)
    for (const auto& loop : n.loops)
      if (loop.spatial && l.w.dims[static_cast<size_t>(loop.dim)].size % loop.factor != 0) return true;
  return false;
}

// A spatial loop right after a temporal loop over the same dimension whose steps it spreads:
// in the partial last step (if any) fewer of its instances run.
bool has_padded_spatial_loop(const Loaded& l) {
  for (const auto& n : l.f.nodes)
    for (size_t i = 1; i < n.loops.size(); ++i) {
      const auto &outer = n.loops[i - 1], &inner = n.loops[i];
      const int64_t size = l.w.dims[static_cast<size_t>(inner.dim)].size;
      if (inner.spatial && !outer.spatial && outer.dim == inner.dim && size % outer.factor != 0 &&
          (size + outer.factor - 1) / outer.factor == inner.factor)
        return true;
    }
  return false;
}

// A tile with two spatial loops whose instances are not all alike (each uneven or padded, as
// above): they are walked in runs within runs.
bool has_two_irregular_spatial_loops(const Loaded& l) {
  for (const auto& n : l.f.nodes) {
    int irregular = 0;
    for (size_t i = 0; i < n.loops.size(); ++i) {
      const auto& loop = n.loops[i];
      const int64_t size = l.w.dims[static_cast<size_t>(loop.dim)].size;
      bool padded = false;  // a temporal loop earlier in the tile leaves a partial step
      for (size_t j = 0; j < i; ++j)
        padded |= !n.loops[j].spatial && n.loops[j].dim == loop.dim && size % n.loops[j].factor != 0;
      irregular += loop.spatial && (size % loop.factor != 0 || padded);
    }
    if (irregular >= 2) return true;
  }
  return false;
}

// An uneven spatial loop (as above) with a temporal loop after it in its tile or loops below it:
// valid only where its instances share no multicast source below (each run walked on its own).
bool has_uneven_loop_stepping_below(const Loaded& l) {
  for (size_t x = 0; x < l.f.nodes.size(); ++x) {
    const auto& n = l.f.nodes[x];
    for (size_t i = 0; i < n.loops.size(); ++i) {
      const auto& loop = n.loops[i];
      if (!loop.spatial || l.w.dims[static_cast<size_t>(loop.dim)].size % loop.factor == 0) continue;
      bool steps = false;
      for (size_t j = i + 1; j < n.loops.size(); ++j) steps |= !n.loops[j].spatial;
      for (size_t y = x + 1; y < l.f.nodes.size(); ++y)
        for (int up = l.f.nodes[y].parent; up >= 0; up = l.f.nodes[static_cast<size_t>(up)].parent)
          if (up == static_cast<int>(x)) steps |= !l.f.nodes[y].loops.empty();
      if (steps) return true;
    }
  }
  return false;
}

std::string describe(const RandomCase& c, const Loaded& l) {
  std::ostringstream os;
  os << "--- arch\n" << c.arch_yaml << "--- workload\n" << c.workload_yaml << "--- flow\n" << c.flow_yaml
     << "--- explained\n" << model::explain(l.f, l.a, l.w);
  return os.str();
}

// Compares every count; returns the first difference, or "" if they agree.
std::string first_difference(const Loaded& l, const model::WalkResult& fast, const model::WalkResult& slow) {
  std::ostringstream os;
  if (fast.problems.empty() != slow.problems.empty()) {
    os << "validity differs: fast " << fast.problems.size() << " problems, oracle " << slow.problems.size() << '\n';
    for (const auto& p : fast.problems) os << "  fast: " << p.str() << '\n';
    for (const auto& p : slow.problems) os << "  oracle: " << p.str() << '\n';
    return os.str();
  }
  if (!fast.problems.empty()) return "";
  if (fast.macs != slow.macs) os << "macs " << fast.macs << " vs " << slow.macs << '\n';
  if (fast.vector_ops != slow.vector_ops) os << "vector ops " << fast.vector_ops << " vs " << slow.vector_ops << '\n';
  for (size_t o = 0; o < l.w.ops.size(); ++o)
    if (fast.op_work[o] != slow.op_work[o])
      os << "op " << l.w.ops[o].name << " work " << fast.op_work[o] << " vs " << slow.op_work[o] << '\n';
  for (size_t lv = 0; lv < l.a.levels.size(); ++lv) {
    for (size_t t = 0; t < l.w.tensors.size(); ++t) {
      const auto& x = fast.traffic[lv][t];
      const auto& y = slow.traffic[lv][t];
      if (!(x == y))
        os << l.a.levels[lv].name << '/' << l.w.tensors[t].name << ": fast fill/read/update " << x.fill << '/'
           << x.read << '/' << x.update << ", oracle " << y.fill << '/' << y.read << '/' << y.update << '\n';
      if (fast.peak_elems[lv][t] != slow.peak_elems[lv][t])
        os << l.a.levels[lv].name << '/' << l.w.tensors[t].name << ": peak " << fast.peak_elems[lv][t]
           << " vs oracle " << slow.peak_elems[lv][t] << '\n';
    }
    if (fast.level_peak_elems[lv] != slow.level_peak_elems[lv])
      os << l.a.levels[lv].name << ": level peak " << fast.level_peak_elems[lv] << " vs oracle "
         << slow.level_peak_elems[lv] << '\n';
  }
  return os.str();
}

// A tensor the ops read along different dims (A[m,k] and A[n,k]; A[i,j] and A[j,i]).
bool reads_a_tensor_along_two_dims(const model::Workload& w) {
  for (size_t t = 0; t < w.tensors.size(); ++t) {
    std::vector<std::vector<int>> ways;
    for (const model::Op& op : w.ops)
      for (const auto& in : op.inputs)
        if (in.tensor == static_cast<int>(t)) {
          std::vector<int> dims;
          for (const auto& ix : in.index)
            for (const auto& term : ix.terms) dims.push_back(term.dim);
          if (std::find(ways.begin(), ways.end(), dims) == ways.end()) ways.push_back(dims);
        }
    if (ways.size() > 1) return true;
  }
  return false;
}

TEST(OracleProperty, FastAnalysisEqualsBruteForceOnRandomCases) {
  // DFX_PROPERTY_SEED / DFX_PROPERTY_CASES widen the search by hand; CI uses the defaults.
  const char* seed_env = std::getenv("DFX_PROPERTY_SEED");
  const char* cases_env = std::getenv("DFX_PROPERTY_CASES");
  std::mt19937_64 rng(seed_env ? std::strtoull(seed_env, nullptr, 10) : 20261121);
  const int wanted = cases_env ? std::atoi(cases_env) : 600;
  int compared = 0, valid = 0, drawn = 0, uneven = 0, padded = 0, two = 0, stepping = 0, missed = 0;
  int read_twice = 0, apart = 0;  // valid cases reading a tensor along two dims; cases refused for it
  while (valid < wanted && drawn < 100 * wanted) {
    ++drawn;
    RandomCase c = random_case(rng);
    Loaded l;
    if (!load(c, l)) continue;
    model::Placement p = model::place(l.a, l.w, l.f);
    model::WalkResult fast = model::walk_tree(l.a, l.w, l.f, p);
    model::WalkResult slow = brute_force(l.a, l.w, l.f);
    ++compared;
    valid += fast.problems.empty();
    uneven += fast.problems.empty() && has_uneven_spatial_loop(l);
    padded += fast.problems.empty() && has_padded_spatial_loop(l);
    two += fast.problems.empty() && has_two_irregular_spatial_loops(l);
    stepping += fast.problems.empty() && has_uneven_loop_stepping_below(l);
    missed += fast.classes_missed;
    read_twice += fast.problems.empty() && reads_a_tensor_along_two_dims(l.w);
    apart += std::any_of(fast.problems.begin(), fast.problems.end(),
                         [](const Problem& q) { return q.message.find("read along different dimensions") != std::string::npos; });
    std::string diff = first_difference(l, fast, slow);
    ASSERT_EQ(diff, "") << "case " << compared << " differs\n" << describe(c, l);
  }
  // Invalid draws (a factor beyond its extent) are compared too, but only valid ones count.
  EXPECT_GE(valid, wanted) << "only " << valid << " of " << compared << " random cases were valid";
  EXPECT_GE(uneven, wanted / 10) << "too few valid cases with an uneven spatial split";
  EXPECT_GE(padded, wanted / 20) << "too few valid cases with a padded spatial loop";
  EXPECT_GE(two, wanted / 40) << "too few valid cases with two irregular spatial loops in one tile";
  EXPECT_GE(stepping, wanted / 40) << "too few valid cases with an uneven spatial loop above loops";
  // A Gram matrix's A[m,k] beside A[n,k], a tensor beside its transpose: valid where no spatial
  // loop above a buffer of it moves the two reads apart, refused (by both) where one does.
  EXPECT_GE(read_twice, wanted / 40) << "too few valid cases reading a tensor along two dims";
  EXPECT_GE(apart, wanted / 100) << "too few cases refused for reading a tensor along dims a spatial loop moves apart";
  // Every count a spatial loop runs is found before the walk (model/walk_scan.h), so no tree is
  // walked twice.
  EXPECT_EQ(missed, 0) << "the instance scan missed a count in " << missed << " cases";
  std::cout << "compared " << compared << " cases (" << valid << " valid, " << uneven
            << " with a spatial factor not dividing its dimension, " << padded << " padded, " << two << " with two irregular in one tile, " << stepping
            << " with an uneven one above loops, " << read_twice << " reading a tensor along two dims; " << apart
            << " refused for it) out of " << drawn
            << " drawn; the instance scan missed a count in " << missed << "\n";
}

// Replaying a representative step (model/walk_replay.h) must change nothing: every count the
// oracle test compares, and the cycles, per-op cycles and register feeds it does not. Random
// trees are small, so steps are replayed at every loop here (StepReplay::All), not only where
// loops step below them as analyses do.
TEST(ReplayProperty, ReplayedStepsEqualWalkedOnesOnRandomCases) {
  // DFX_PROPERTY_SEED / DFX_PROPERTY_CASES (cases with a replay) widen it by hand, as above.
  const char* seed_env = std::getenv("DFX_PROPERTY_SEED");
  const char* cases_env = std::getenv("DFX_PROPERTY_CASES");
  std::mt19937_64 rng(seed_env ? std::strtoull(seed_env, nullptr, 10) : 20261126);
  const int wanted = cases_env ? std::atoi(cases_env) : 200;
  int valid = 0, replayed = 0;
  for (int drawn = 0; replayed < wanted && drawn < 500 * wanted; ++drawn) {
    RandomCase c = random_case(rng);
    Loaded l;
    if (!load(c, l)) continue;
    const model::Placement p = model::place(l.a, l.w, l.f);
    const model::WalkResult fast = model::walk_tree(l.a, l.w, l.f, p, nullptr, model::StepReplay::All, model::HeldAs::Sets);
    const model::WalkResult walked = model::walk_tree(l.a, l.w, l.f, p, nullptr, model::StepReplay::Off, model::HeldAs::Sets);
    ASSERT_EQ(walked.replayed_steps, 0);
    ASSERT_EQ(fast.problems.size(), walked.problems.size()) << describe(c, l);
    if (!fast.problems.empty()) continue;
    ++valid;
    replayed += fast.replayed_steps > 0;
    ASSERT_EQ(first_difference(l, fast, walked), "") << describe(c, l);
    auto near = [](double x, double y) { return std::abs(x - y) <= 1e-9 * std::max({1.0, std::abs(x), std::abs(y)}); };
    ASSERT_TRUE(near(fast.cycles, walked.cycles)) << fast.cycles << " vs " << walked.cycles << "\n" << describe(c, l);
    for (size_t o = 0; o < l.w.ops.size(); ++o) {
      ASSERT_EQ(fast.op_cycles[o], walked.op_cycles[o]) << l.w.ops[o].name << "\n" << describe(c, l);
      ASSERT_TRUE(near(fast.op_instruction_cycles[o], walked.op_instruction_cycles[o])) << l.w.ops[o].name << "\n" << describe(c, l);
    }
    ASSERT_EQ(fast.feed_reads, walked.feed_reads) << describe(c, l);
    ASSERT_EQ(fast.feed_updates, walked.feed_updates) << describe(c, l);
  }
  EXPECT_GE(replayed, wanted);  // cases where a step was replayed: the ones the check above is about
  std::cout << replayed << " of " << valid << " valid cases replayed a step\n";
}

// Every figure of two walks the same to the bit, else the first that differs.
std::string any_difference(const Loaded& l, const model::WalkResult& a, const model::WalkResult& b) {
  std::ostringstream os;
  os << first_difference(l, a, b);
  if (a.cycles != b.cycles) os << "cycles " << a.cycles << " vs " << b.cycles << '\n';
  for (size_t o = 0; o < l.w.ops.size(); ++o)
    if (a.op_cycles[o] != b.op_cycles[o]) os << "op " << l.w.ops[o].name << " cycles " << a.op_cycles[o] << " vs " << b.op_cycles[o] << '\n';
  if (a.op_instruction_cycles != b.op_instruction_cycles) os << "instruction cycles differ\n";
  if (a.feed_reads != b.feed_reads || a.feed_updates != b.feed_updates) os << "register feeds differ\n";
  return os.str();
}

// Buffers held as boxes (model/held.h) give the walk's result to the bit: every count, time and
// problem, partial steps and runs of instances not all alike included (the oracle test above
// holds the boxes to the oracle too, since walk_tree keeps boxes wherever it can; archs timed by
// instructions are checked on the mapper's points, tests/unit/held_test.cpp).
TEST(BoxesProperty, SameWalkAsWithSetsOnRandomCases) {
  const char* seed_env = std::getenv("DFX_PROPERTY_SEED");
  const char* cases_env = std::getenv("DFX_PROPERTY_CASES");
  std::mt19937_64 rng(seed_env ? std::strtoull(seed_env, nullptr, 10) : 20261127);
  const int wanted = cases_env ? std::atoi(cases_env) : 400;
  int valid = 0, uneven = 0, timed = 0;
  for (int drawn = 0; valid < wanted && drawn < 100 * wanted; ++drawn) {
    RandomCase c = random_case(rng);
    Loaded l;
    if (!load(c, l) || !model::accesses_are_boxes(l.w)) continue;
    const model::Placement p = model::place(l.a, l.w, l.f);
    const model::WalkResult boxes = model::walk_tree(l.a, l.w, l.f, p, nullptr, model::StepReplay::Off, model::HeldAs::Boxes);
    const model::WalkResult sets = model::walk_tree(l.a, l.w, l.f, p, nullptr, model::StepReplay::Off, model::HeldAs::Sets);
    ASSERT_EQ(boxes.problems.size(), sets.problems.size()) << describe(c, l);
    for (size_t i = 0; i < boxes.problems.size(); ++i) ASSERT_EQ(boxes.problems[i].message, sets.problems[i].message) << describe(c, l);
    if (!sets.problems.empty()) continue;
    ++valid;
    uneven += has_uneven_spatial_loop(l) || has_padded_spatial_loop(l);
    timed += l.a.instruction_timed();
    ASSERT_EQ(any_difference(l, boxes, sets), "") << describe(c, l);
  }
  EXPECT_GE(valid, wanted);
  EXPECT_GE(uneven, wanted / 10) << "too few cases with spatial loops walked in runs";
  std::cout << valid << " valid cases compared, " << uneven << " with runs of instances not all alike, " << timed
            << " on archs timed by instructions\n";
}

// Calls `check` on the first `wanted` random cases whose analysis is valid (an invalid tree's
// figures may be partial: the walk stops at a problem); returns how many it found.
template <class Check>
int for_valid_random_cases(uint64_t seed, int wanted, Check check) {
  std::mt19937_64 rng(seed);
  int valid = 0;
  for (int drawn = 0; valid < wanted && drawn < 100 * wanted; ++drawn) {
    RandomCase c = random_case(rng);
    Loaded l;
    if (!load(c, l)) continue;
    const model::Report r = model::analyze(l.a, l.w, l.f);
    if (!r.valid) continue;
    ++valid;
    check(c, l, r);
    if (::testing::Test::HasFatalFailure()) break;
  }
  return valid;
}

// The search drops trees whose footprint floor exceeds a capacity before analysing them: sound
// only if the floor never exceeds the peak the analysis (= the oracle, above) reports. Rejecting
// an invalid tree early is harmless: only valid ones are compared.
TEST(FootprintFloorProperty, NeverAboveTheAnalysedPeakOnRandomCases) {
  int tight = 0;
  const int valid = for_valid_random_cases(20261123, 600, [&](const RandomCase& c, const Loaded& l, const model::Report& r) {
    const std::vector<int64_t> floor = model::footprint_floor(l.a, l.w, l.f);
    bool equal = true;
    for (size_t lv = 0; lv < floor.size(); ++lv) {
      ASSERT_LE(floor[lv], r.levels[lv].peak_bytes) << "level " << l.a.levels[lv].name << "\n" << describe(c, l);
      equal = equal && floor[lv] == r.levels[lv].peak_bytes;
    }
    tight += equal;
  });
  EXPECT_GE(valid, 600);
  EXPECT_GT(tight, 0);  // a floor of zero everywhere would pass the first check and be useless
  std::cout << tight << " of " << valid << " valid cases have a floor equal to the peak at every level\n";
}

// The search skips trees whose cycles floor is above what they would be compared with: that
// leaves its results unchanged only if no valid tree's analysis reports fewer cycles.
TEST(CyclesFloorProperty, NeverAboveTheAnalysedCyclesOnRandomCases) {
  int bounded = 0;
  const int valid = for_valid_random_cases(20261124, 600, [&](const RandomCase& c, const Loaded& l, const model::Report& r) {
    const double floor = model::cycles_floor(l.a, l.w, l.f);
    ASSERT_LE(floor, r.cycles) << describe(c, l);
    bounded += floor > 0;
  });
  EXPECT_GE(valid, 600);
  EXPECT_GT(2 * bounded, valid);  // a floor of zero would pass the check above and rule out nothing
  std::cout << bounded << " of " << valid << " valid cases have a floor above zero\n";
}

// The floor a search computes from the walk's visits once a tree is built (where fused
// producers have windows): never above the cycles, never below cycles_floor, and above it where a
// producer's windows overlap.
TEST(VisitedComputeFloorProperty, BetweenTheCyclesFloorAndTheAnalysedCyclesOnRandomCases) {
  int sharper = 0;
  const int valid = for_valid_random_cases(20261128, 600, [&](const RandomCase& c, const Loaded& l, const model::Report& r) {
    const double visited = model::visited_compute_floor(l.a, l.w, l.f, model::TreeShape(l.a, l.w, l.f));
    const double floor = model::cycles_floor(l.a, l.w, l.f);
    ASSERT_LE(visited, r.cycles) << describe(c, l);
    ASSERT_GE(visited, floor * (1 - 1e-9)) << describe(c, l);
    sharper += visited > floor * 1.01;
  });
  EXPECT_GE(valid, 600);
  EXPECT_GT(sharper, 0);  // equal to cycles_floor everywhere, it would rule out nothing more
  std::cout << sharper << " of " << valid << " valid cases have a floor from the walk's visits over 1% above cycles_floor\n";
}

// An op's own tiles take part in the tree's latency visit for visit (a parent's latency is at
// least each child's, and sums its iterations), so no op's own cycles exceed the tree's; and its
// leaf's compute is part of them, so they are at least its compute cycles. Both bounds hold on
// every tree the random cases draw, transfers or not.
TEST(OwnCyclesProperty, BetweenTheOpsComputeAndTheTreesCyclesOnRandomCases) {
  int timed = 0, with_transfers = 0;
  const int valid = for_valid_random_cases(20261125, 600, [&](const RandomCase& c, const Loaded& l, const model::Report& r) {
    for (const model::OpReport& op : r.ops) {
      if (!op.own_cycles) continue;
      ++timed;
      const double own = *op.own_cycles, slack = 1e-9 * std::max(1.0, r.cycles);
      ASSERT_LE(op.compute_cycles, own + slack) << op.name << "\n" << describe(c, l);
      ASSERT_LE(own, r.cycles + slack) << op.name << "\n" << describe(c, l);
      with_transfers += own > op.compute_cycles * 1.01;
    }
  });
  EXPECT_GE(valid, 600);
  EXPECT_GT(with_transfers, 0);  // own cycles equal to compute everywhere would say nothing about transfers
  std::cout << with_transfers << " of " << timed << " ops timed in " << valid << " valid cases spend over 1% of their own time moving data\n";
}

// Parts of the tree that run side by side and share a source: Para or Pipe children, or the
// runs of a spatial loop whose instances are not all alike (walked one run at a time, the first
// one timed). Each is timed at the source's full bandwidth.
bool runs_side_by_side(const Loaded& l) {
  for (const auto& n : l.f.nodes)
    if (!n.is_leaf && n.children.size() > 1 && (n.prim == model::Prim::Para || n.prim == model::Prim::Pipe)) return true;
  return has_uneven_spatial_loop(l) || has_padded_spatial_loop(l);
}

// No tree runs faster than it can move its data: its cycles are at least every level's busy
// time (what it moves between levels at its bandwidth). Where nothing runs side by side the tree's latency alone must be
// (each activation times what it moves — before 2026-12-05 a written buffer's partial sums
// coming back were counted but not timed); elsewhere the report takes the busiest level's time
// where it is longer (model/analyze.cpp).
TEST(BusyProperty, CyclesAtLeastEveryLevelsTransfersOnRandomCases) {
  int alone = 0, paced = 0;
  const int valid = for_valid_random_cases(20261205, 600, [&](const RandomCase& c, const Loaded& l, const model::Report& r) {
    const bool side_by_side = runs_side_by_side(l);
    alone += !side_by_side;
    for (size_t lv = 0; lv < r.levels.size(); ++lv) {
      const double busy = r.levels[lv].busy_cycles;  // its transfers between levels
      const double slack = 1e-9 * std::max(1.0, busy);
      ASSERT_GE(r.cycles + slack, busy) << r.levels[lv].name << "\n" << describe(c, l);
      if (!side_by_side && !l.a.instruction_timed()) {
        ASSERT_GE(r.latency_cycles + slack, busy) << r.levels[lv].name << " (the latency)\n" << describe(c, l);
      }
      paced += busy >= r.cycles - slack;
    }
  });
  EXPECT_GE(valid, 600);
  EXPECT_GT(2 * alone, valid);  // most cases check the latency itself
  EXPECT_GT(paced, 0);          // some level's transfers pace a tree: the bound is met, not loose everywhere
  std::cout << alone << " of " << valid << " valid cases run nothing side by side; a level's transfers pace " << paced << "\n";
}

}  // namespace
}  // namespace dfx::oracle
