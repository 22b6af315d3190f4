// The footprint floor against the full analysis on the mapper's candidates: never above the
// peak the analysis reports, so the search's early rejection never drops a tree that fits.
#include <gtest/gtest.h>


#include "mapper/space.h"
#include "mapper/template_levels.h"
#include "model/analyze.h"
#include "model/footprint_floor.h"
#include "tests/unit/random_candidates.h"
#include "tests/unit/test_util.h"

namespace dfx::model {
namespace {

class FootprintFloor : public test::OnArchWorkload {};

TEST_P(FootprintFloor, NeverAboveTheAnalysedPeakOnRandomCandidates) {
  // The on-chip level the template tiles a group into (cloud's L2 above it holds only outputs
  // handed between groups).
  const size_t at = static_cast<size_t>(mapper::template_levels(a, true, true).group.front());
  const auto& buffer = a.levels.at(at);
  int caught = 0, informative = 0, compared = 0;
  test::for_random_candidates(mapper::Space(a, w), 11, 150, [&](const Dataflow& f) {
    const Report r = analyze(a, w, f);
    const std::vector<int64_t> floor = footprint_floor(a, w, f);
    caught += static_cast<double>(floor[at]) > buffer.capacity_bytes;
    if (!r.valid) return;  // rejecting an invalid tree early is harmless; its peaks may be partial
    ++compared;
    for (size_t l = 0; l < floor.size(); ++l) ASSERT_LE(floor[l], r.levels[l].peak_bytes) << to_yaml(f, a, w);
    informative += 2 * floor[at] >= r.levels[at].peak_bytes;
  });
  EXPECT_GE(compared, 100);
  // A floor of zero would pass the check above and reject nothing.
  EXPECT_GE(2 * informative, compared) << "the floor is below half the buffer's peak on most candidates";
  std::cout << GetParam().workload << " on " << GetParam().arch << ": " << caught << " of 150 over capacity by the floor alone; "
            << informative << " of " << compared << " valid ones with a floor of at least half the buffer's peak\n";
}

INSTANTIATE_TEST_SUITE_P(Candidates, FootprintFloor,
                         ::testing::Values(test::ArchWorkload{"edge", "attention_g1"}, test::ArchWorkload{"edge", "gemm_chain_g1"},
                                           test::ArchWorkload{"cloud", "conv_chain_c1"}, test::ArchWorkload{"cloud", "attention_g3"}),
                         test::arch_workload_name);

}  // namespace
}  // namespace dfx::model
