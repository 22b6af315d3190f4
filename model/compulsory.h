#pragma once
// The roofline's DRAM traffic (model/analyze.cpp): what any dataflow of a workload moves at least.
#include "arch/arch.h"
#include "model/workload.h"

namespace dfx::model {

// Bytes of the workload's own inputs its ops read (a strided window skips some) and of its
// outputs, each moved once: reuse below DRAM ignored. The same for every tree.
struct CompulsoryBytes {
  double inputs = 0, outputs = 0;
};
CompulsoryBytes compulsory_bytes(const arch::Arch& a, const Workload& w);

}  // namespace dfx::model
