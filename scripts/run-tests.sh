#!/usr/bin/env bash
# Runs every test binary of the workspace, two at a time: `cargo test --workspace --release
# --no-fail-fast`, except that the test binaries run side by side instead of one after another.
# Each binary still runs its own tests in parallel (the libtest harness); running two binaries
# at once keeps both cores busy while one of them waits on a single long test (a Yosys
# synthesis, a guest boot, one long simulation). Each binary runs as cargo runs it: from its
# package's directory, with the arguments given to this script (for example `--ignored`).
# Its output is printed whole when it ends, under a `Running` line like cargo's.
#
#   FERROCE_TEST_JOBS       binaries at once (default: the number of processors, at most 2)
#   FERROCE_TEST_BINARIES   only these binaries, by target name (`rx_cosim ferroce_proto`),
#                           and no documentation tests
#
# Exit status: 0 when every binary passed, 1 otherwise. The last line is the total,
# `tests: N passed, N failed`.
set -euo pipefail
cd "$(dirname "$0")/.."

mkdir -p target/test-logs
logs="$PWD/target/test-logs"
rm -f "$logs"/*

# Build every test binary, and list them: one "manifest dir <TAB> executable" line each.
cargo test --workspace --release --no-run --message-format=json-render-diagnostics \
  >"$logs/build.json"
list="$logs/binaries.tsv"
grep '"reason":"compiler-artifact"' "$logs/build.json" |
  grep -E '"profile":\{[^}]*"test":true\}' |
  grep '"executable":"/' |
  sed -E 's/.*"manifest_path":"([^"]*)\/Cargo.toml".*"executable":"([^"]*)".*/\1\t\2/' >"$list" || true
if [ -n "${FERROCE_TEST_BINARIES:-}" ]; then
  # only the binaries named (by their target name: `rx_cosim`, `ferroce_proto`, ...)
  for b in $FERROCE_TEST_BINARIES; do
    grep -E "/deps/${b}-[0-9a-f]+$" "$list" || { echo "run-tests: no test binary $b" >&2; exit 2; }
  done >"$list.only"
  mv "$list.only" "$list"
fi
n=$(wc -l <"$list")
if [ "$n" -eq 0 ]; then
  echo "run-tests: cargo built no test binary" >&2
  exit 1
fi

# The binaries known to run longest start first, so the two slots end close together.
first="peer_rxe csr_tools resp_write verilog_tools cli_verbs cli_synth pfc_lossless csr_cosim
  cli_run rx_verilog mr_tools vfio_guest ferroce_hdl tx_verilog cli_incast verbs_loss cli_respond
  atomic_cache link_faults tx_cosim rate_shaper cli_demo"
order="$logs/order.tsv"
: >"$order"
for b in $first; do
  grep -E "/deps/${b}-[0-9a-f]+$" "$list" >>"$order" || true
done
grep -v -F -f <(cut -f2 "$order") "$list" >>"$order" || true

# The environment cargo gives the programs it runs: the `[env]` table of .cargo/config.toml
# (RUST_MIN_STACK: emitting the whole NIC's Verilog recurses deeper than a default thread
# stack), unless already set.
while IFS= read -r line; do
  k=${line%%=*} v=${line#*=}
  k=${k// /} v=$(echo "$v" | sed -E 's/^ *"?//; s/"? *$//')
  if [ -n "$k" ] && [ -z "${!k:-}" ]; then
    export "$k=$v"
  fi
done < <(sed -n '/^\[env\]/,/^\[/{/^[A-Za-z_][A-Za-z0-9_]* *=/p}' .cargo/config.toml 2>/dev/null)

jobs=${FERROCE_TEST_JOBS:-$(nproc)}
[ "$jobs" -gt 2 ] && [ -z "${FERROCE_TEST_JOBS:-}" ] && jobs=2
echo "run-tests: $n test binaries, $jobs at a time"

run_one() {
  local dir=${1%%$'\t'*} exe=${1#*$'\t'} name log t0 rc=0
  name=$(basename "$exe" | sed -E 's/-[0-9a-f]+$//')
  log="$logs/$(basename "$exe").log"
  t0=$(date +%s)
  # shellcheck disable=SC2086 # the arguments given to run-tests.sh, split as words
  (cd "$dir" && "$exe" $RUN_TESTS_ARGS) >"$log" 2>&1 </dev/null || rc=$?
  echo "$rc" >"$log.rc"
  # one binary's output at a time
  flock "$logs/print.lock" sh -c 'echo "     Running $1 ($2 s, exit $3)"; cat "$4"' _ \
    "${dir##*/}/$name" "$(($(date +%s) - t0))" "$rc" "$log"
}
export -f run_one
export logs
export RUN_TESTS_ARGS="$*"

xargs -d '\n' -n 1 -P "$jobs" bash -c 'run_one "$1"' run_one <"$order" || true

# The documentation tests (cargo builds and runs them itself), last.
if [ -z "${FERROCE_TEST_BINARIES:-}" ]; then
  doc_rc=0
  cargo test --workspace --release --doc >"$logs/doctests.log" 2>&1 || doc_rc=$?
  echo "$doc_rc" >"$logs/doctests.log.rc"
  echo "     Running doctests (exit $doc_rc)"
  cat "$logs/doctests.log"
  printf '.\tdoctests\n' >>"$list"
fi

# Totals from the harness's own result lines, and the binaries that failed.
passed=0 failed=0 ignored=0 bad=()
while IFS=$'\t' read -r dir exe; do
  name=$(basename "$exe" | sed -E 's/-[0-9a-f]+$//')
  log="$logs/$(basename "$exe").log"
  rc=$(cat "$log.rc" 2>/dev/null || echo "not run")
  [ "$rc" = 0 ] || bad+=("$name (exit $rc)")
  while read -r p f i; do
    passed=$((passed + p)) failed=$((failed + f)) ignored=$((ignored + i))
  done < <(sed -nE 's/^test result: [A-Za-z]+\. ([0-9]+) passed; ([0-9]+) failed; ([0-9]+) ignored.*/\1 \2 \3/p' "$log")
done <"$list"
if [ "${#bad[@]}" -gt 0 ]; then
  echo "== failed: ${bad[*]}"
fi
echo "== $ignored test(s) ignored (long runs, run by name with --ignored: docs/TESTING.md)"
echo "tests: $passed passed, $failed failed" | tee "$logs/totals"
[ "${#bad[@]}" -eq 0 ]
