#!/usr/bin/env bash
# README command 2: install what is missing, build everything with warnings as errors, and run
# every test tier (unit, property, golden, cosim) through ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
cmake -S . -B build-test -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDFX_WERROR=ON -DDFX_TESTS=ON >/dev/null
cmake --build build-test -j"$(nproc)"
cd build-test
ctest --output-on-failure -j"$(nproc)"
