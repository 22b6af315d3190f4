#pragma once
// Threads kept for the whole search: a batch of candidates is scored on all of them and the
// caller, and they wait between batches. Starting threads per batch cost ~10% of a two-thread
// search (hundreds of batches, each a few milliseconds).
#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace dfx::mapper {

class WorkerPool {
 public:
  explicit WorkerPool(int threads);  // the caller counts as one: threads - 1 are started
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Runs `task` once on every thread, the caller's included, and returns when all are done.
  // The task shares out its own work (an atomic counter): a thread that finds none returns.
  void run_on_all(const std::function<void()>& task);

 private:
  void serve();

  // A search hands out a batch every few hundred microseconds, and waking a sleeping thread
  // costs tens of them on a VM: each side spins this long before it sleeps (measured on G1 /
  // edge, two threads: 4-5% more candidates/s). Not with more threads than cores, where a
  // spinning thread would take a core from a working one.
  static constexpr double kSpinSeconds = 200e-6;
  double spin_seconds_ = 0;

  std::vector<std::thread> threads_;
  std::mutex mutex_;  // guards the sleeps: a generation or a finish is announced under it
  std::condition_variable start_, done_;
  const std::function<void()>* task_ = nullptr;  // written before the generation that runs it
  std::atomic<unsigned long> generation_{0};     // one per run_on_all: a worker runs each generation once
  std::atomic<int> busy_{0};                     // workers still running this generation
  std::atomic<bool> stopping_{false};
};

}  // namespace dfx::mapper
