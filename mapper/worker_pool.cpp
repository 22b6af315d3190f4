#include "mapper/worker_pool.h"

namespace dfx::mapper {

WorkerPool::WorkerPool(int threads) {
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
  {
    std::lock_guard<std::mutex> lock(mutex_);
    task_ = &task;
    busy_ = static_cast<int>(threads_.size());
    ++generation_;
  }
  start_.notify_all();
  task();
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [this] { return busy_ == 0; });
  task_ = nullptr;
}

void WorkerPool::serve() {
  unsigned long seen = 0;
  for (;;) {
    const std::function<void()>* task = nullptr;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      start_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
      task = task_;
    }
    (*task)();
    std::lock_guard<std::mutex> lock(mutex_);
    if (--busy_ == 0) done_.notify_one();
  }
}

}  // namespace dfx::mapper
