#include "mapper/worker_pool.h"

#include <chrono>

namespace dfx::mapper {
namespace {

// Polls `ready` for up to `seconds`; true as soon as it holds.
template <class Ready>
bool spin_until(Ready ready, double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  for (int i = 1;; ++i) {
    if (ready()) return true;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
    if (i % 64 == 0 && std::chrono::steady_clock::now() >= until) return ready();
  }
}

}  // namespace

WorkerPool::WorkerPool(int threads)
    : spin_seconds_(static_cast<unsigned>(threads) <= std::thread::hardware_concurrency() ? kSpinSeconds : 0) {
  for (int t = 1; t < threads; ++t) threads_.emplace_back([this] { serve(); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  start_.notify_all();
  for (auto& t : threads_) t.join();
}

void WorkerPool::run_on_all(const std::function<void()>& task) {
  if (threads_.empty()) return task();
  task_ = &task;
  busy_.store(static_cast<int>(threads_.size()));
  {
    std::lock_guard<std::mutex> lock(mutex_);  // a worker about to sleep sees it, or is woken
    generation_.fetch_add(1);
  }
  start_.notify_all();
  task();
  if (spin_until([this] { return busy_.load() == 0; }, spin_seconds_)) return;
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [this] { return busy_.load() == 0; });
}

void WorkerPool::serve() {
  unsigned long seen = 0;
  for (;;) {
    auto announced = [&] { return stopping_.load() || generation_.load() != seen; };
    if (!spin_until(announced, spin_seconds_)) {
      std::unique_lock<std::mutex> lock(mutex_);
      start_.wait(lock, announced);
    }
    if (stopping_.load()) return;
    seen = generation_.load();
    (*task_)();
    if (busy_.fetch_sub(1) == 1) {
      std::lock_guard<std::mutex> lock(mutex_);  // the caller checks busy_ under it before sleeping
      done_.notify_one();
    }
  }
}

}  // namespace dfx::mapper
