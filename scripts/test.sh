#!/usr/bin/env bash
# The test command: installs the outside tools the tests need (Debian packages; root or sudo),
# then runs every test of the workspace. Safe and quick to re-run: installed tools are skipped.
#
#   scripts/install-tools.sh          tshark, scapy, iverilog, verilator, yosys, make, g++, gtkwave
#   scripts/peer/install-host-deps.sh QEMU, debootstrap, cpio, kmod (the live Soft-RoCE test,
#                                     which must also run as root: debootstrap builds its guest)
#
# A test whose tool is missing fails and names the command that installs it. To run without
# some tools anyway, set FERROCE_SKIP_MISSING_TOOLS=1 (and FERROCE_NO_INSTALL=1 to skip the
# installs): such tests are then skipped, each prints a SKIPPED line, and this script lists
# them after the run.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${FERROCE_NO_INSTALL:-0}" != 1 ]; then
  bash scripts/install-tools.sh
  bash scripts/peer/install-host-deps.sh
fi

# Every test that skips (a tool missing under the opt-out, or the published vectors absent)
# appends a SKIPPED line here; the list is printed after the run.
mkdir -p target
skip_log="$PWD/target/skipped-tests.txt"
: >"$skip_log"
export FERROCE_SKIP_LOG="$skip_log"

# `cargo test --workspace --release --no-fail-fast`, with two test binaries running side by side
# (scripts/run-tests.sh)
rc=0
bash scripts/run-tests.sh || rc=$?

n=$(wc -l <"$skip_log")
if [ "$n" -gt 0 ]; then
  echo "== $n test(s) skipped, not run:"
  sort "$skip_log"
else
  echo "== no test skipped"
fi
# the totals last (run-tests.sh printed them before the list above)
tail -n 1 target/test-logs/totals 2>/dev/null || true
exit "$rc"
