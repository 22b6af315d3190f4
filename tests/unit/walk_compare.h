#pragma once
// Two walk results held equal field by field, to the bit: the walk with boxes against the walk
// with sets (held_test), the closed form against the walk (template_eval_test).
#include <gtest/gtest.h>

#include <string>

#include "model/walk.h"

namespace dfx::test {

inline void expect_same_walk(const model::WalkResult& got, const model::WalkResult& want, const std::string& where) {
  ASSERT_EQ(got.problems.size(), want.problems.size()) << where;
  EXPECT_EQ(got.cycles, want.cycles) << where;
  EXPECT_EQ(got.macs, want.macs) << where;
  EXPECT_EQ(got.vector_ops, want.vector_ops) << where;
  EXPECT_EQ(got.op_work, want.op_work) << where;
  EXPECT_EQ(got.op_cycles, want.op_cycles) << where;
  EXPECT_EQ(got.op_instruction_cycles, want.op_instruction_cycles) << where;
  EXPECT_EQ(got.peak_elems, want.peak_elems) << where;
  EXPECT_EQ(got.level_peak_elems, want.level_peak_elems) << where;
  EXPECT_EQ(got.feed_reads, want.feed_reads) << where;
  EXPECT_EQ(got.feed_updates, want.feed_updates) << where;
  for (size_t l = 0; l < got.traffic.size(); ++l)
    for (size_t t = 0; t < got.traffic[l].size(); ++t)
      EXPECT_TRUE(got.traffic[l][t] == want.traffic[l][t]) << "level " << l << " tensor " << t << "\n" << where;
}

}  // namespace dfx::test
