#pragma once
// The mapper's candidates as the floor tests sample them: a random point, then mutations of it,
// a fresh random point every tenth step, each built into its tree.
#include <functional>
#include <random>

#include "mapper/space.h"
#include "model/dataflow.h"

namespace dfx::test {

inline void for_random_candidates(const mapper::Space& space, uint64_t seed, int count,
                                  const std::function<void(const model::Dataflow&)>& visit) {
  dfx::mapper::Rng rng(seed);
  mapper::Choice c = space.random(rng);
  for (int i = 0; i < count; ++i) {
    c = i % 10 == 0 ? space.random(rng) : space.mutate(c, rng);
    visit(space.build(c, "candidate"));
  }
}

}  // namespace dfx::test
