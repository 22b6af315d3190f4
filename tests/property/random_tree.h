#pragma once
// Random small cases for the property test: an arch, a workload from the library's families,
// and a tile tree, all as YAML text so that they also go through the real loaders.
#include <cstdint>
#include <random>
#include <string>

namespace dfx::oracle {

struct RandomCase {
  std::string arch_yaml, workload_yaml, flow_yaml;
};

RandomCase random_case(std::mt19937_64& rng);

}  // namespace dfx::oracle
