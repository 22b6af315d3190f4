#!/usr/bin/env bash
# Installs the Debian packages dfx builds against, if any is missing. Idempotent: a machine that
# has them all is left untouched (no network access needed).
set -euo pipefail
packages=(
  build-essential cmake pkg-config
  libyaml-cpp-dev nlohmann-json3-dev libeigen3-dev libboost-graph-dev
  libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev libmimalloc-dev
  libsystemc-dev verilator
  python3
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
