// The search's thread pool: every thread runs each task once, back to back batches never
// overlap, and the threads' wait between batches (a spin, then a sleep) loses none of them.
#include "mapper/worker_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace dfx::mapper {
namespace {

// Runs `batches` tasks that share out kItems items each, and checks that every task ran on every
// thread once and every item was done in its own batch.
void run_batches(WorkerPool& pool, int threads, int batches, bool pause_between) {
  constexpr int kItems = 37;
  for (int b = 0; b < batches; ++b) {
    std::atomic<int> ran{0}, next{0};
    std::vector<int> done(kItems, -1);
    pool.run_on_all([&] {
      ++ran;
      for (int i = next++; i < kItems; i = next++) done[static_cast<size_t>(i)] = b;
    });
    ASSERT_EQ(ran.load(), threads) << "batch " << b;
    for (int i = 0; i < kItems; ++i) ASSERT_EQ(done[static_cast<size_t>(i)], b) << "batch " << b << ", item " << i;
    // Longer than the spin: the workers go to sleep and must be woken.
    if (pause_between) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

TEST(WorkerPool, EveryThreadRunsEachTaskOnce) {
  for (int threads : {1, 2, 3}) {
    WorkerPool pool(threads);
    run_batches(pool, threads, 2000, false);
    run_batches(pool, threads, 20, true);
  }
}

TEST(WorkerPool, MoreThreadsThanCores) {
  const int threads = static_cast<int>(std::thread::hardware_concurrency()) + 2;
  WorkerPool pool(threads);
  run_batches(pool, threads, 300, false);
  run_batches(pool, threads, 5, true);
}

}  // namespace
}  // namespace dfx::mapper
