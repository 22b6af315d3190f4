#!/usr/bin/env bash
# Bad input must give a located message and exit code 2: never a crash, a hang or another code.
# usage: run.sh DFX BAD_DIR CONFIG_DIR
set -u
dfx=$1 B=$2 C=$3
fail=0 n=0
while IFS='|' read -r name args expected; do
  name=$(echo "$name" | xargs)
  [ -z "$name" ] || [ "${name#\#}" != "$name" ] && continue
  args=$(echo "$args" | sed "s|\$B|$B|g; s|\$C|$C|g")
  expected=$(echo "$expected" | sed 's/^ *//; s/ *$//')
  n=$((n + 1))
  out=$(timeout 20 $dfx $args 2>&1)
  code=$?
  if [ "$code" -ne 2 ]; then
    echo "FAIL $name: exit code $code, expected 2"; echo "$out" | head -5; fail=$((fail + 1)); continue
  fi
  if ! grep -qF -- "$expected" <<<"$out"; then
    echo "FAIL $name: output lacks: $expected"; echo "$out" | head -8; fail=$((fail + 1)); continue
  fi
  echo "ok   $name"
done < "$B/cases.txt"
echo "$((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$n" -gt 0 ]
