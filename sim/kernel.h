#pragma once
// The SystemC side shared by the simulator's modules: one cycle is one nanosecond of SystemC
// time, measured from the start of the current run (a process may run many simulations).
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <systemc>

#include <cstdint>

namespace dfx::sim {

class Clock {
 public:
  Clock() : start_(sc_core::sc_time_stamp()) {}
  int64_t now() const { return static_cast<int64_t>((sc_core::sc_time_stamp() - start_).value() / kTicksPerCycle); }
  // Suspends the calling thread for `cycles` (nothing if cycles <= 0).
  static void advance(int64_t cycles) {
    if (cycles > 0) sc_core::wait(sc_core::sc_time(static_cast<double>(cycles), sc_core::SC_NS));
  }
  void advance_to(int64_t cycle) const { advance(cycle - now()); }

 private:
  static constexpr uint64_t kTicksPerCycle = 1000;  // SystemC's default resolution is 1 ps
  sc_core::sc_time start_;
};

// Every blocking loop checks this so that a deadlocked run can be torn down cleanly.
struct Abort {
  bool requested = false;
};

}  // namespace dfx::sim
