// Space::cycles_floor, the floor a search rules candidates out by before it builds them, against
// model::cycles_floor of the built tree: equal to the bit on the template's points.
#include <gtest/gtest.h>

#include <random>

#include "mapper/space.h"
#include "model/cycles_floor.h"
#include "tests/unit/test_util.h"

namespace dfx::mapper {
namespace {

class SpaceFloor : public test::OnArchWorkload {};

TEST_P(SpaceFloor, EqualsTheFloorOfTheBuiltTree) {
  const Space space(a, w);
  dfx::mapper::Rng rng(11);
  int positive = 0, pipes = 0, cores = 0;
  for (int i = 0; i < 400; ++i) {
    Choice c = space.random(rng);
    for (int step = 0; step < i % 5; ++step) c = space.mutate(c, rng, step % 2 == 0);
    const double built = model::cycles_floor(a, w, space.build(c, "candidate"));
    ASSERT_EQ(space.cycles_floor(c), built) << space.flow_yaml(c, "candidate");
    positive += built > 0;
    for (size_t g = 0; g < c.prim.size(); ++g) pipes += c.prim[g] == model::Prim::Pipe, cores += c.core_dim[g] >= 0;
  }
  if (a.instruction_timed()) {
    EXPECT_EQ(positive, 0);  // both floors are 0 there
  } else {
    EXPECT_GT(positive, 0);
  }
  // Both ways of combining a group's ops, and the division over the cores, were compared.
  EXPECT_GT(pipes, 0);
  if (a.cores > 1) {
    EXPECT_GT(cores, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Points, SpaceFloor,
                         ::testing::Values(test::ArchWorkload{"edge", "attention_g1"}, test::ArchWorkload{"edge", "gemm_chain_g1"},
                                           test::ArchWorkload{"cloud", "conv_chain_c1"}, test::ArchWorkload{"cloud", "attention_g3"},
                                           test::ArchWorkload{"ascend_like", "attention_g1"}),
                         test::arch_workload_name);

}  // namespace
}  // namespace dfx::mapper
