#pragma once
// What a value becomes when a unit writes it: the rounding and wrapping rules of each element
// type, shared by the simulator, its reference checks and (later) the RTL (docs/simulator.md).
#include <cstdint>
#include <vector>

#include "arch/isa.h"

namespace dfx::sim {

// The storage type: int16 wraps to 16 bits, fp16/bf16 round to nearest even.
double to_storage(arch::DType t, double v);
// The accumulator type: int32 (wrapping) for int16 data, fp32 for floats.
double to_accumulator(arch::DType t, double v);
// A matrix-unit operand: the low 16 bits for integers, the storage rounding for floats.
inline double to_operand(arch::DType t, double v) { return to_storage(t, v); }
bool is_integer(arch::DType t);

// A vector op on one element (y is the second source, imm the scale), before storage: exact
// for integers (division truncates, x / 0 = 0), fp32 for floats.
double vector_result(arch::DType t, arch::VecOp op, double x, double y, int64_t imm);
// What a vector result becomes in memory: integers keep accumulator width (only cast narrows
// them to int16); floats round to the storage type.
double vector_store(arch::DType t, arch::VecOp op, double v);
// A row reduction's running value after one more element (fp32 for floats).
double reduce_step(arch::DType t, arch::VecOp op, double acc, double v);

// Random data for an input: integers in [-8, 7], floats in [-1, 1) rounded to the type.
std::vector<double> random_values(arch::DType t, int64_t count, uint64_t seed);

}  // namespace dfx::sim
