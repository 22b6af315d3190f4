#pragma once
// How long one buffer activation's transfer takes (docs/semantics.md, "Latency"). Internal to
// model/ (the fast walk uses it).
#include <cstdint>

#include "arch/arch.h"

namespace dfx::model {

struct TransferTime {
  double cycles = 0;
  double port = 0;  // the source's share when the source is the root level (the DRAM port)
  // Of `cycles`, the root's latency and issue when the transfer's own pieces on the root's port
  // take longer than that: then the loads and the stores of cores that run one program collide
  // on the port every round instead of taking turns in each other's waits (Time::cycles_decoupled).
  double colliding_wait = 0;
};

// The source sends `shared` elements (what the merged instances need), the buffer at `level`
// takes `fresh`; the slower end decides. A `port: row` end moves one piece of a row of `row`
// elements per cycle (the slice's innermost dimension, as the lowering lays tiles out), any other
// end streams bytes at its bandwidth. A transfer a program issues (into a level it addresses)
// also waits for its source's latency and takes its issue and last-write cycles.
TransferTime transfer_time(const arch::Arch& a, int source, int level, bool write, int64_t row, int64_t fresh, int64_t shared);

}  // namespace dfx::model
