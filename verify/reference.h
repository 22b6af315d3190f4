#pragma once
// The reference a lowered program is checked against: every tensor of a workload computed from
// its inputs with Eigen, rounding where the simulator's units round (sim/values.h), so integer
// results must match bit for bit and float results differ only by summation order.
#include "arch/isa.h"
#include "model/workload.h"
#include "sim/simulator.h"

namespace dfx::verify {

// Contract: `inputs` hold every workload input (row-major, full shape); returns every tensor.
// Throws InputError naming an operator that has no vector instruction.
sim::TensorValues reference(const model::Workload& w, const sim::TensorValues& inputs, arch::DType t);

}  // namespace dfx::verify
