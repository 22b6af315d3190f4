// The .npy format (version 1.0): magic "\x93NUMPY", version, a little-endian uint16 header
// length, a Python-dict header padded to 64 bytes, then raw data.
#include "sim/tensor_files.h"

#include <cstring>
#include <fstream>
#include <iterator>

#include "arch/errors.h"

namespace dfx::sim {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& msg) { throw InputError(SourceLoc{path, 0, 0, ""}, msg); }

std::string header_field(const std::string& header, const std::string& key) {
  const size_t k = header.find("'" + key + "'");
  if (k == std::string::npos) return "";
  size_t v = header.find(':', k);
  if (v == std::string::npos) return "";
  ++v;
  while (v < header.size() && header[v] == ' ') ++v;
  const char open = header[v];
  const char close = open == '\'' ? '\'' : open == '(' ? ')' : ',';
  const size_t end = header.find(close, v + 1);
  if (end == std::string::npos) return "";
  return header.substr(v + 1, end - v - 1);
}

template <typename T>
void convert(const std::vector<uint8_t>& raw, size_t offset, size_t count, std::vector<double>& out) {
  for (size_t i = 0; i < count; ++i) {
    T v;
    std::memcpy(&v, raw.data() + offset + i * sizeof(T), sizeof(T));
    out.push_back(static_cast<double>(v));
  }
}

}  // namespace

std::vector<double> read_npy(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) fail(path, "cannot open file");
  std::vector<uint8_t> raw((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (raw.size() < 10 || std::memcmp(raw.data(), "\x93NUMPY", 6) != 0) fail(path, "not a .npy file");
  const size_t header_len = raw[8] | (static_cast<size_t>(raw[9]) << 8);
  if (raw[6] != 1 || 10 + header_len > raw.size()) fail(path, "unsupported .npy version or truncated header");
  const std::string header(raw.begin() + 10, raw.begin() + static_cast<std::ptrdiff_t>(10 + header_len));
  if (header_field(header, "fortran_order").find("True") != std::string::npos) fail(path, "Fortran-ordered arrays are not supported");
  size_t count = 1;
  const std::string shape = header_field(header, "shape");
  for (const char* p = shape.c_str(); *p;) {
    char* end = nullptr;
    const long v = std::strtol(p, &end, 10);
    if (end == p) ++p;
    else count *= static_cast<size_t>(v), p = end;
  }
  const std::string descr = header_field(header, "descr");
  const size_t offset = 10 + header_len;
  const size_t width = descr == "<f8" || descr == "<i8" ? 8 : descr == "<f4" || descr == "<i4" ? 4 : descr == "<i2" ? 2 : 0;
  if (!width) fail(path, "unsupported element type '" + descr + "' (float64, float32, int16, int32, int64)");
  if (raw.size() - offset < count * width) fail(path, "truncated data: " + std::to_string(count) + " elements expected");
  std::vector<double> out;
  out.reserve(count);
  if (descr == "<f8") convert<double>(raw, offset, count, out);
  else if (descr == "<f4") convert<float>(raw, offset, count, out);
  else if (descr == "<i8") convert<int64_t>(raw, offset, count, out);
  else if (descr == "<i4") convert<int32_t>(raw, offset, count, out);
  else convert<int16_t>(raw, offset, count, out);
  return out;
}

void write_npy(const std::string& path, const std::vector<double>& values, const std::vector<int64_t>& shape) {
  std::string dims;
  for (int64_t d : shape) dims += std::to_string(d) + ", ";
  if (shape.size() > 1) dims.erase(dims.size() - 2);
  std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (" + dims + "), }";
  header.append(64 - (10 + header.size() + 1) % 64, ' ');
  header += '\n';
  std::ofstream f(path, std::ios::binary);
  if (!f) fail(path, "cannot write");
  f.write("\x93NUMPY\x01\x00", 8);
  const char len[2] = {static_cast<char>(header.size() & 0xff), static_cast<char>(header.size() >> 8)};
  f.write(len, 2);
  f << header;
  f.write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(values.size() * sizeof(double)));
}

}  // namespace dfx::sim
