#pragma once
// The time of a part of the walk (model/walk.cpp): its latency under TileFlow's rules
// (docs/semantics.md, "Latency") and how long each resource of a core is busy in it. Machines
// whose units take whole instructions from queues (schedule: instruction) overlap whatever the
// resources allow, so their cycles follow the busiest resource (cycles_decoupled).
#include <algorithm>

#include "arch/arch.h"

namespace dfx::model {

struct Time {
  double latency = 0;
  double compute = 0;       // latency with the program's transfers left out: the chain of instructions
  double in = 0, out = 0;   // transfers into / out of the levels a program addresses
  double port = 0;          // the root level's (DRAM's) port, loads and stores together
  double unit[2] = {0, 0};  // per arch::UnitKind: the unit's instructions
  // The order the units run in: the first and last unit (-1: none), the units used, and whether
  // a unit runs again after another one did (then in-order queues serialize repetitions).
  int first = -1, last = -1;
  unsigned used = 0;
  bool revisits = false;

  static Time on_unit(arch::UnitKind k, double cycles) {
    Time t;
    t.latency = t.compute = cycles;
    t.unit[static_cast<int>(k)] = cycles;
    t.first = t.last = static_cast<int>(k);
    t.used = 1u << static_cast<unsigned>(k);
    return t;
  }
  // Everything busy for `cycles`: a part no other work overlaps.
  static Time exclusive(double cycles) {
    Time t;
    t.latency = t.compute = t.in = t.out = t.port = t.unit[0] = t.unit[1] = cycles;
    return t;
  }
  // One after the other within one body: latencies and busy times add.
  Time& then(const Time& o) {
    const unsigned shared = used & o.used;
    const bool junction = shared == 0 || (last == o.first && shared == (1u << static_cast<unsigned>(last)));
    revisits = revisits || o.revisits || !junction;
    join_order(o);
    latency += o.latency;
    compute += o.compute;
    add_busy(o);
    return *this;
  }
  // The next iteration of a loop: as then(), but a repetition is not a revisit.
  Time& next_iteration(const Time& o) {
    revisits = revisits || o.revisits;
    join_order(o);
    latency += o.latency;
    compute += o.compute;
    add_busy(o);
    return *this;
  }
  // Iterations whose bodies visit the units in one pass overlap on in-order queues like a flow
  // shop: the busiest unit's total plus the rest of one body (`one`).
  void pipeline_iterations(const Time& one) {
    if (one.revisits || one.used == 0) return;
    const double bottleneck = std::max(unit[0], unit[1]), one_bottleneck = std::max(one.unit[0], one.unit[1]);
    compute = std::min(compute, bottleneck + one.compute - one_bottleneck);
  }
  // Side by side on split resources (Para, Pipe): the slower latency; shared resources add up.
  Time& beside(const Time& o) {
    revisits = revisits || o.revisits || (used & o.used) != 0;
    join_order(o);
    latency = std::max(latency, o.latency);
    compute = std::max(compute, o.compute);
    add_busy(o);
    return *this;
  }
  Time times(double n) const {
    Time t = *this;
    t.latency *= n, t.compute *= n, t.in *= n, t.out *= n, t.port *= n, t.unit[0] *= n, t.unit[1] *= n;
    return t;
  }
  // Decoupled queues: transfers run ahead of the instructions that need them, so the cycles are
  // those of the slower of the transfers and the instructions' chain (units alternate in program
  // order along it), with the first loads before it and the last store after it (a flow shop).
  // `after_last_load`: the instructions that still run once the last load is in; the last
  // store's port time (`last_store_port`) is already in `port`.
  double cycles_decoupled(double first_loads, double after_last_load, double last_store, double last_store_port) const {
    const double chain = std::max({compute, unit[0], unit[1]});
    return std::max({in + after_last_load + last_store, port + after_last_load + last_store - last_store_port,
                     first_loads + chain + last_store, first_loads + out});
  }

 private:
  void join_order(const Time& o) {
    if (o.used == 0) return;
    if (used == 0) first = o.first;
    last = o.last;
    used |= o.used;
  }
  void add_busy(const Time& o) {
    in += o.in, out += o.out, port += o.port, unit[0] += o.unit[0], unit[1] += o.unit[1];
  }
};

}  // namespace dfx::model
