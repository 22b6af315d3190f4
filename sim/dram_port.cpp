// The shared DRAM port. Work is kept in fractional cycles so that a transfer alone takes exactly
// ⌈bytes / bandwidth⌉ cycles however it is cut into bursts.
#include "sim/dram_port.h"

#include <algorithm>
#include <cmath>

namespace dfx::sim {

DramPort::DramPort(const Clock& clock, const Abort& abort, int requesters, int64_t burst_bytes)
    : clock_(clock), abort_(abort), requests_(static_cast<size_t>(requesters)), burst_(std::max<int64_t>(1, burst_bytes)) {}

void DramPort::spawn() {
  sc_core::sc_spawn_options opts;
  opts.set_stack_size(256 * 1024);
  sc_core::sc_spawn([this] { serve(); }, "dram_port", &opts);
}

void DramPort::transfer(int requester, int64_t bytes, double bytes_per_cycle) {
  Request& r = requests_[static_cast<size_t>(requester)];
  r.remaining = static_cast<double>(bytes);
  r.bw = bytes_per_cycle;
  r.active = true;
  arrived_.notify(sc_core::SC_ZERO_TIME);
  while (r.active && !abort_.requested) sc_core::wait(r.done);
}

void DramPort::wake_all() {
  arrived_.notify(sc_core::SC_ZERO_TIME);
  for (Request& r : requests_) r.done.notify(sc_core::SC_ZERO_TIME);
}

std::vector<size_t> DramPort::active() const {
  std::vector<size_t> out;
  for (size_t i = 0; i < requests_.size(); ++i)
    if (requests_[i].active) out.push_back(i);
  return out;
}

void DramPort::serve() {
  while (!abort_.requested) {
    // Decide only once everything else due this cycle has run: a core whose request starts in
    // this cycle takes part in this cycle's arbitration, as in the RTL.
    while (sc_core::sc_pending_activity_at_current_time() && !abort_.requested) sc_core::wait(sc_core::SC_ZERO_TIME);
    const std::vector<size_t> waiting = active();
    if (waiting.empty()) {
      sc_core::wait(arrived_);
      continue;
    }
    // Work continues from where the port left off if it never went idle.
    const auto now = static_cast<double>(clock_.now());
    if (free_at_ <= now - 1.0) free_at_ = now;
    if (waiting.size() == 1) {
      // The round robin moves past a core it served, as the RTL's arbiter does; an alone stream
      // that another core interrupts at once served nothing.
      if (stream_alone(requests_[waiting[0]])) next_ = waiting[0] + 1;
      continue;
    }
    auto it = std::lower_bound(waiting.begin(), waiting.end(), next_);
    const size_t pick = it == waiting.end() ? waiting.front() : *it;
    next_ = pick + 1;
    serve_burst(requests_[pick]);
  }
}

// The whole remainder at once; if another core arrives meanwhile, stop and share from there.
bool DramPort::stream_alone(Request& r) {
  const double start = free_at_;
  const double end = start + r.remaining / r.bw;
  const auto finish = static_cast<int64_t>(std::ceil(end - 1e-9));
  if (finish > clock_.now())
    sc_core::wait(sc_core::sc_time(static_cast<double>(finish - clock_.now()), sc_core::SC_NS), arrived_);
  const auto now = static_cast<double>(clock_.now());
  if (now + 1e-9 >= end) {
    free_at_ = end;
    r.remaining = 0;
    r.active = false;
    r.done.notify(sc_core::SC_ZERO_TIME);
    return true;
  }
  r.remaining -= (now - start) * r.bw;
  free_at_ = now;
  return now > start + 1e-9;
}

void DramPort::serve_burst(Request& r) {
  const double chunk = std::min(static_cast<double>(burst_), r.remaining);
  free_at_ += chunk / r.bw;
  r.remaining -= chunk;
  Clock::advance(static_cast<int64_t>(std::ceil(free_at_ - 1e-9)) - clock_.now());
  if (r.remaining <= 1e-9) {
    r.active = false;
    r.done.notify(sc_core::SC_ZERO_TIME);
  }
}

}  // namespace dfx::sim
