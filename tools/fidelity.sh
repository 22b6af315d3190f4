#!/usr/bin/env bash
# Regenerates docs/fidelity.md (and docs/fidelity_cycles.svg): about 100 lowered dataflows through
# the analytical model, the SystemC model and the RTL. Takes a few minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build-rel}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target dfx_fidelity -j2 >/dev/null
"$build/tools/dfx_fidelity" configs docs/fidelity.md --dataflows "${DATAFLOWS:-100}" \
  --validation ../shared/validation/tileflow_rtl_fused_gemm.csv --fixed tools/fidelity_set
