#pragma once
// Helpers shared by the unit tests: load configs by name, expect a located InputError.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "arch/arch.h"
#include "arch/errors.h"
#include "model/dataflow.h"
#include "model/workload.h"

namespace dfx::test {

inline std::string config(const std::string& rel) { return std::string(DFX_CONFIG_DIR) + "/" + rel; }

// One GEMM, C[m,n] += A[m,k] * B[k,n], with `dims` ("m: 4, k: 4, n: 4"); `name` as written in
// YAML (quoted or not).
inline model::Workload one_gemm(const std::string& name, const std::string& dims) {
  return model::load_workload_from_string(
      "name: " + name + "\ndims: {" + dims + "}\nops:\n  - {name: g, expr: \"C[m,n] += A[m,k] * B[k,n]\"}\n", "gemm.yaml");
}

// Runs fn, requires an InputError, and returns its full text (every problem, with locations).
inline std::string input_error(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an InputError";
  return "";
}

// Tests run on several (arch, workload) pairs from configs/, named by both.
struct ArchWorkload {
  const char* arch;
  const char* workload;
};

class OnArchWorkload : public ::testing::TestWithParam<ArchWorkload> {
 protected:
  arch::Arch a = arch::load_arch(config(std::string("arch/") + GetParam().arch + ".yaml"));
  model::Workload w = model::load_workload(config(std::string("workloads/") + GetParam().workload + ".yaml"));
};

// Tests of the search on the pair its benchmarks use: attention G1 on edge.
class OnAttentionG1Edge : public ::testing::Test {
 protected:
  arch::Arch a = arch::load_arch(config("arch/edge.yaml"));
  model::Workload w = model::load_workload(config("workloads/attention_g1.yaml"));
};

inline std::string arch_workload_name(const ::testing::TestParamInfo<ArchWorkload>& p) {
  return std::string(p.param.arch) + "_" + p.param.workload;
}

}  // namespace dfx::test
