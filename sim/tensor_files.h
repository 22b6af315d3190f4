#pragma once
// Tensor values in NumPy's .npy format, so that inputs and outputs open in any numerical tool.
#include <cstdint>
#include <string>
#include <vector>

namespace dfx::sim {

// Contract: reads a C-ordered array of little-endian float64/float32/int16/int32/int64 (any
// shape) as flat values; throws InputError naming the file for anything else.
std::vector<double> read_npy(const std::string& path);
// Writes float64 values with the given shape. Throws InputError if the file cannot be written.
void write_npy(const std::string& path, const std::vector<double>& values, const std::vector<int64_t>& shape);

}  // namespace dfx::sim
