#pragma once
// The time of a part of the walk (model/walk.cpp): its latency under TileFlow's rules
// (docs/semantics.md, "Latency") and how long each resource of a core is busy in it. Machines
// whose units take whole instructions from queues (schedule: instruction) overlap whatever the
// resources allow, so their cycles follow the busiest resource (cycles_decoupled).
#include <algorithm>

#include "arch/arch.h"
#include "arch/unit_costs.h"

namespace dfx::model {

struct Time {
  double latency = 0;
  double compute = 0;       // latency with the program's transfers left out: the chain of instructions
  double in = 0, out = 0;   // transfers into / out of the levels a program addresses
  double port = 0;          // the root level's (DRAM's) port, loads and stores together
  // The latencies of the loads [0] and the stores [1] whose pieces outlast them on the port
  // (TransferTime::colliding_wait): cores that run one program move in step, and when a round
  // of one engine's pieces does not fit in the other's wait, the two overlap on the port, finish
  // together and wait together — the port idles for a latency every round they both have but
  // one: a store follows its loads a round later.
  double colliding_waits[2] = {0, 0};
  double colliding[2] = {0, 0};  // how many such transfers
  double unit[2] = {0, 0};  // per arch::UnitKind: the unit's instructions
  double instructions[2] = {0, 0};  // per arch::UnitKind: how many
  // A floor under the loads and the chain together, from the dispatcher: it issues in program
  // order into queues of arch::kQueueDepth, so a unit given more than that in one iteration
  // holds back the next iteration's loads until it has taken all but a queue's worth (see
  // pipeline_iterations).
  double dispatch_floor = 0;
  // Two-machine flow shop (the load engine, then the instruction chain), for parts of unlike
  // size in program order — a large load at an outer loop's step stalls the chain behind it,
  // which the sums above average away. `engine`: the load engine's time, each load's latency
  // and pieces plus the port pieces of stores that interleave with them; `makespan`: from the
  // first load to the end of the chain (stores after it not included).
  double engine = 0, makespan = 0;
  // Transfers between two on-chip levels a program addresses (ascend_like's MTE1, fixpipe,
  // MTE3): in-order engines that carry the units' operands and intermediates between them.
  double staged = 0;
  bool looped = false;  // holds iterations of a loop whose instructions overlap
  // The order the units run in: the first and last unit (-1: none), the units used, and whether
  // a unit runs again after another one did (then in-order queues serialize repetitions).
  int first = -1, last = -1;
  unsigned used = 0;
  bool revisits = false;

  static Time on_unit(arch::UnitKind k, double cycles, double instructions = 0) {
    Time t;
    t.instructions[static_cast<int>(k)] = instructions;
    t.latency = t.compute = t.makespan = cycles;
    t.unit[static_cast<int>(k)] = cycles;
    t.first = t.last = static_cast<int>(k);
    t.used = 1u << static_cast<unsigned>(k);
    return t;
  }
  // A load the engine runs ahead of a later part (counted in `in` and `port` where it is issued).
  static Time engine_only(double cycles) {
    Time t;
    t.engine = t.makespan = cycles;
    return t;
  }
  // Everything busy for `cycles`: a part no other work overlaps.
  static Time exclusive(double cycles) {
    Time t;
    t.latency = t.compute = t.in = t.out = t.port = t.unit[0] = t.unit[1] = cycles;
    t.engine = t.makespan = cycles;
    return t;
  }
  // One after the other within one body: latencies and busy times add.
  Time& then(const Time& o) {
    const unsigned shared = used & o.used;
    const bool junction = shared == 0 || (last == o.first && shared == (1u << static_cast<unsigned>(last)));
    revisits = revisits || o.revisits || !junction;
    join_order(o);
    follow(o);
    return *this;
  }
  // The next iteration of a loop: as then(), but a repetition is not a revisit.
  Time& next_iteration(const Time& o) {
    revisits = revisits || o.revisits;
    join_order(o);
    follow(o);
    return *this;
  }
  // A part's loads (their engine time) ahead of it: the chain waits for them.
  void load_first(double loads) {
    makespan = loads + std::max(makespan, compute);
  }
  // The flag operations a unit's queue gets per loop body beside its instructions, as the
  // lowering emits them: two waits ahead (its input is ready, its output buffer is free), two
  // sets after.
  static constexpr double kFlagEntries = 4;
  // Iterations whose bodies visit the units in one pass overlap on in-order queues like a flow
  // shop: the busiest unit's total plus the rest of one body (`one`) — as far as the dispatcher
  // lets the next iteration's loads in. A unit with more entries in one body than its queue
  // holds keeps everything after them in program order (the next body's loads) out until it
  // has started all but a queue's worth; when that takes its second wait, the one for this
  // body's upstream work, the loads and the units before it follow one another every body.
  void pipeline_iterations(const Time& one, int64_t trips) {
    if (one.used == 0) return;
    looped = true;  // a body of many iterations is not one the dispatcher rule counts entries in
    if (one.revisits) {
      // A body that uses a unit again after another (Q·K, softmax, P·V) hands its intermediates
      // between the units over the staging engines, and the engines take the next body's
      // operands only after this body's (their queues are in order): the body's staged
      // transfers are part of its chain, once.
      compute += staged;
      staged = 0;
      // Its units run one after another, so its queues stay full to its end however many
      // loops it holds: the dispatcher keeps the next body's loads out as below (since
      // 2026-11-27; configs/dataflows/attention_g2_ascend_explored: model 19.1 K before,
      // 30.4 K now, simulator 31.4 K).
      if (trips > 1) hold_loads_behind_the_dispatcher(one, trips);
      return;
    }
    const double bottleneck = std::max(unit[0], unit[1]), one_bottleneck = std::max(one.unit[0], one.unit[1]);
    compute = std::min(compute, bottleneck + one.compute - one_bottleneck);
    // Alike bodies: the flow shop's longest path turns from the engine to the chain at the
    // first body or at the last.
    makespan = std::min(makespan, std::max(one.makespan + compute - one.compute, engine - one.engine + one.makespan));
    if (!one.looped && trips > 1) hold_loads_behind_the_dispatcher(one, trips);
  }
  // Side by side on split resources (Para, Pipe): the slower latency; shared resources add up.
  Time& beside(const Time& o) {
    revisits = revisits || o.revisits || (used & o.used) != 0;
    join_order(o);
    latency = std::max(latency, o.latency);
    compute = std::max(compute, o.compute);
    makespan = std::max(makespan, o.makespan);
    add_busy(o);
    return *this;
  }
  Time times(double n) const {
    Time t = *this;
    t.latency *= n, t.compute *= n, t.in *= n, t.out *= n, t.port *= n, t.unit[0] *= n, t.unit[1] *= n;
    t.instructions[0] *= n, t.instructions[1] *= n, t.dispatch_floor *= n;
    t.colliding_waits[0] *= n, t.colliding_waits[1] *= n, t.colliding[0] *= n, t.colliding[1] *= n;
    t.staged *= n;
    t.makespan = makespan + (n - 1) * std::max(compute, engine);
    t.engine *= n;
    return t;
  }
  // Decoupled queues: transfers run ahead of the instructions that need them, so the cycles are
  // those of the slower of the transfers and the instructions' chain (units alternate in program
  // order along it), with the first loads before it and the last store after it (a flow shop).
  // `after_last_load`: the instructions that still run once the last load is in; the last
  // store's port time (`last_store_port`) is already in `port`.
  double cycles_decoupled(double first_loads, double after_last_load, double last_store, double last_store_port) const {
    const double chain = std::max({compute, unit[0], unit[1]});
    // Rounds collide when the chain paces the loads (each waits for a buffer an instruction
    // frees, as the store beside it does); when the loads take longer than the chain they run
    // back to back and the stores, an instruction behind them, fall into their waits.
    const double rounds = in > chain ? 0 : std::min(colliding[0], colliding[1]) - 1;
    const double port_idle = rounds > 0 ? rounds * (colliding_waits[0] + colliding_waits[1]) / (colliding[0] + colliding[1]) : 0;
    return std::max({in + after_last_load + last_store, dispatch_floor + last_store, makespan + last_store,
                     port + port_idle + after_last_load + last_store - last_store_port,
                     first_loads + chain + last_store, first_loads + out});
  }

 private:
  // The dispatch floor of `trips` bodies like `one` (see pipeline_iterations).
  void hold_loads_behind_the_dispatcher(const Time& one, int64_t trips) {
    for (int k = 0; k < 2; ++k) {
      const double entries = one.instructions[k] + kFlagEntries, held = entries - static_cast<double>(arch::kQueueDepth);
      if (one.instructions[k] <= 0 || held < 2) continue;
      // The unit's own work before the entry that must start (the two waits do none).
      const double before = std::max(0.0, held - 3) / one.instructions[k] * one.unit[k];
      const double upstream = one.last == k ? one.compute - one.unit[k] : 0;
      // Every body's upstream work in turn, all the loop's loads (`in`), the last body's rest.
      dispatch_floor = std::max(dispatch_floor, static_cast<double>(trips) * (before + upstream) + in + one.unit[k] - before);
    }
  }
  // `o` after this part in program order; the flow shop's path turns to the chain before o or in it.
  void follow(const Time& o) {
    makespan = std::max(makespan + o.compute, engine + o.makespan);
    latency += o.latency;
    compute += o.compute;
    add_busy(o);
  }
  void join_order(const Time& o) {
    if (o.used == 0) return;
    if (used == 0) first = o.first;
    last = o.last;
    used |= o.used;
  }
  void add_busy(const Time& o) {
    in += o.in, out += o.out, port += o.port, unit[0] += o.unit[0], unit[1] += o.unit[1];
    instructions[0] += o.instructions[0], instructions[1] += o.instructions[1];
    dispatch_floor += o.dispatch_floor;
    engine += o.engine;
    staged += o.staged;
    colliding_waits[0] += o.colliding_waits[0], colliding_waits[1] += o.colliding_waits[1];
    colliding[0] += o.colliding[0], colliding[1] += o.colliding[1];
    looped = looped || o.looped;
  }
};

}  // namespace dfx::model
