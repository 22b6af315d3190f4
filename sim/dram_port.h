#pragma once
// The chip's shared DRAM port: transfers from all cores share its bandwidth, served round-robin
// in bursts; a transfer alone streams at full rate without per-burst events.
#include <vector>

#include "sim/kernel.h"

namespace dfx::sim {

class DramPort {
 public:
  DramPort(const Clock& clock, const Abort& abort, int requesters, int64_t burst_bytes);
  // Starts the serving thread; call once, before sc_start.
  void spawn();
  // Blocks the calling thread until `bytes` have crossed the port at `bytes_per_cycle`.
  void transfer(int requester, int64_t bytes, double bytes_per_cycle);
  void wake_all();  // for teardown after a deadlock

 private:
  struct Request {
    double remaining = 0;
    double bw = 1;
    bool active = false;
    sc_core::sc_event done;
  };
  const Clock& clock_;
  const Abort& abort_;
  std::vector<Request> requests_;
  int64_t burst_;
  sc_core::sc_event arrived_;
  double free_at_ = 0;  // fractional cycle at which the port finishes its current work
  size_t next_ = 0;     // round-robin pointer

  void serve();
  bool stream_alone(Request& r);  // false if interrupted before serving anything
  void serve_burst(Request& r);
  std::vector<size_t> active() const;
};

}  // namespace dfx::sim
