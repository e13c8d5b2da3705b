#!/usr/bin/env bash
# The main job: `ferroce demo`, two whole ferroce NICs (the cycle-accurate hardware on the
# Verilator engine) on a simulated spine-leaf fabric. Installs what the Verilator engine needs
# (Debian's verilator, make and g++; root or sudo) when it is missing, then runs the demo with
# the arguments given, e.g. `bash scripts/demo.sh --out build/demo`.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v verilator >/dev/null || need+=(verilator)
command -v make >/dev/null || need+=(make)
command -v g++ >/dev/null || need+=(g++)
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  echo "demo: installing ${need[*]} (the Verilator engine of the NIC model)"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
exec cargo run --release -- demo "$@"
