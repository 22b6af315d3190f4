#!/usr/bin/env bash
# README command 1: install what is missing, build, and run dfx's main job on a shipped default.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DDFX_TESTS=OFF >/dev/null
cmake --build build -j"$(nproc)" --target dfx
./build/tools/dfx eval configs/arch/edge.yaml configs/workloads/attention_g1.yaml \
  configs/dataflows/attention_g1_edge_fused_pipe.yaml --explain
