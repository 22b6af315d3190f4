#!/usr/bin/env bash
# dfx leaves the simulator out (its start-up would slow every command) and hands simulate,
# compare and cosim to dfx-sim beside it: dfx must not load SystemC, a handed-over command must
# give what dfx-sim gives, and a dfx without dfx-sim beside it must say so (exit 3).
# Usage: sim_handoff_test.sh DFX CONFIGS
set -u
dfx=$1 configs=$2
sim="$(dirname "$dfx")/dfx-sim"
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT

ldd "$dfx" | grep -q libsystemc && fail "dfx loads SystemC"
ldd "$sim" | grep -q libsystemc || fail "dfx-sim does not load SystemC"

args=(simulate "$configs/arch/tpu_like.yaml" "$configs/programs/tpu_like_gemm.s" --json -)
"$dfx" "${args[@]}" > "$tmp/via_dfx.json"; rc=$?
[ $rc -eq 0 ] || fail "dfx simulate exited $rc"
"$sim" "${args[@]}" > "$tmp/direct.json" || fail "dfx-sim simulate failed"
grep -q '"cycles"' "$tmp/via_dfx.json" || fail "dfx simulate wrote no cycles"
cmp -s "$tmp/via_dfx.json" "$tmp/direct.json" || fail "dfx simulate and dfx-sim simulate differ"

"$dfx" simulate --no-such-option "$configs/arch/tpu_like.yaml" "$configs/programs/tpu_like_gemm.s" 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] || fail "a bad option exited $rc, not 2"

cp "$dfx" "$tmp/dfx"
"$tmp/dfx" "${args[@]}" > /dev/null 2> "$tmp/err"; rc=$?
[ $rc -eq 3 ] || fail "dfx without dfx-sim exited $rc, not 3"
grep -q "dfx: simulate runs in dfx-sim.*$tmp/dfx-sim" "$tmp/err" || fail "unclear message: $(cat "$tmp/err")"
echo "ok"
