#!/usr/bin/env bash
# README command 1: install what is missing, build, and run dfx's main job on a shipped default:
# search the dataflows of self-attention G1 on the Edge accelerator, analyse the best one, then
# lower it to programs and run them on the cycle-level simulator against the model and a reference.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DDFX_TESTS=OFF >/dev/null
cmake --build build -j"$(nproc)" --target dfx
./build/tools/dfx explore configs/arch/edge.yaml configs/workloads/attention_g1.yaml \
  --seed 1 --out build/attention_g1_edge_best.yaml
echo
./build/tools/dfx eval configs/arch/edge.yaml configs/workloads/attention_g1.yaml \
  build/attention_g1_edge_best.yaml --explain
echo
./build/tools/dfx compare configs/arch/edge.yaml configs/workloads/attention_g1.yaml \
  build/attention_g1_edge_best.yaml
