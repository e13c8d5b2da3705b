#!/usr/bin/env bash
# Self-test of the control channel (virtio-serial port "ctl" <-> unix-socket chardev on the host),
# with one guest and a host-side probe:
#   1. guest tool is the TCP server (peer-bridge server): the host sends N bytes covering all byte
#      values, the guest echoes them from behind its TCP socket and then closes it;
#   2. guest tool is the TCP client (peer-bridge client): the guest sends N random bytes, the host
#      echoes them, the guest compares and closes its socket.
#   3. as 2, with the chardev in client mode (the host listens);
#   4. the host closes first: the guest tool must see end-of-file.
# In cases 1 and 2 the guest sleeps 5 s after its tool has closed, before powering off, so the time at
# which the host sees end-of-stream tells whether the close travels through the channel (shortly
# after the data) or only when QEMU exits (5 s or more later).
#
#   scripts/peer/test-ctl-channel.sh [WORKDIR] [--guest DIR]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=${1:-$(mktemp -d "${TMPDIR:-/tmp}/peer-ctltest.XXXXXX")}
shift || true
mkdir -p "$work"
n=262144
rc=0

echo "== 1. guest = TCP server"
"$here/run-guest.sh" "$@" --quiet --log "$work/server.console" --ip 192.0.2.1/24 --net-sock "$work/net1.sock" \
    --ctl-sock "$work/ctl1.sock" --timeout 90 --cmd "
peer-bridge server 5000 socat TCP-LISTEN:5000,reuseaddr SYSTEM:'head -c $n >/tmp/rx; cat /tmp/rx'
r=\$?; echo \"tool done rc=\$r uptime=\$(cut -d' ' -f1 /proc/uptime)\"; sleep 5; exit \$r" &
g=$!
probe1=$(python3 "$here/ctl-probe.py" "$work/ctl1.sock" send-expect $n --wait-eof 30) || rc=1
wait $g || rc=1
echo "host: $probe1"
grep -a -E 'tool done|PEER-RESULT|peer-bridge' "$work/server.console" || true

echo "== 2. guest = TCP client"
"$here/run-guest.sh" "$@" --quiet --log "$work/client.console" --ip 192.0.2.2/24 --net-sock "$work/net2.sock" \
    --ctl-sock "$work/ctl2.sock" --timeout 90 --cmd "
head -c $n /dev/urandom >/tmp/tx
peer-bridge client 5000 bash -c 'exec 3<>/dev/tcp/127.0.0.1/5000; cat /tmp/tx >&3 & head -c $n <&3 >/tmp/rx; wait; exec 3>&-'
r=\$?; echo \"tool done rc=\$r uptime=\$(cut -d' ' -f1 /proc/uptime)\"
a=\$(md5sum </tmp/tx); b=\$(md5sum </tmp/rx); echo \"tx \$a rx \$b\"
[ \"\$a\" = \"\$b\" ] || r=1
sleep 5; exit \$r" &
g=$!
probe2=$(python3 "$here/ctl-probe.py" "$work/ctl2.sock" echo --wait-eof 30) || rc=1
wait $g || rc=1
echo "host: $probe2"
grep -a -E 'tool done|tx |PEER-RESULT|peer-bridge' "$work/client.console" || true
echo "== 3. guest = TCP client, chardev in client mode (the host listens, QEMU connects at start-up)"
rm -f "$work/ctl3.sock"
socat UNIX-LISTEN:"$work/ctl3.sock" EXEC:cat &
echo_pid=$!
n3=0; until [ -S "$work/ctl3.sock" ]; do n3=$((n3 + 1)); [ $n3 -lt 100 ] || break; sleep 0.1; done
"$here/run-guest.sh" "$@" --quiet --log "$work/client3.console" --ip 192.0.2.3/24 --net-sock "$work/net3.sock" \
    --ctl-sock "$work/ctl3.sock" --ctl-mode client --timeout 90 --cmd "
head -c $n /dev/urandom >/tmp/tx
peer-bridge client 5000 bash -c 'exec 3<>/dev/tcp/127.0.0.1/5000; cat /tmp/tx >&3 & head -c $n <&3 >/tmp/rx; wait; exec 3>&-'
r=\$?; a=\$(md5sum </tmp/tx); b=\$(md5sum </tmp/rx); echo \"tx \$a rx \$b\"
[ \"\$a\" = \"\$b\" ] || r=1
exit \$r" || rc=1
kill $echo_pid 2>/dev/null || true
wait $echo_pid 2>/dev/null || true
grep -a -E 'tx |PEER-RESULT|peer-bridge' "$work/client3.console" || true
echo "== 4. host closes first: the guest tool must see end-of-file"
"$here/run-guest.sh" "$@" --quiet --log "$work/eof.console" --ip 192.0.2.4/24 --net-sock "$work/net4.sock" \
    --ctl-sock "$work/ctl4.sock" --timeout 90 --cmd "
peer-bridge server 5000 socat TCP-LISTEN:5000,reuseaddr SYSTEM:'echo R; wc -c >/tmp/n'
r=\$?; n=\$(cat /tmp/n); echo \"tool done rc=\$r bytes=\$n\"; [ \"\$n\" = 1000 ] || r=1; exit \$r" &
g=$!
python3 - "$work/ctl4.sock" <<'PY' || rc=1
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
for _ in range(1200):
    try:
        s.connect(sys.argv[1]); break
    except OSError:
        time.sleep(0.05)
s.settimeout(60)
assert s.recv(2) == b"R\n"      # the guest's bridge is up
s.sendall(b"x" * 1000)
s.close()
print("host: sent 1000 bytes and closed")
PY
wait $g || rc=1
grep -a -E 'tool done|PEER-RESULT' "$work/eof.console" || true
echo "test-ctl-channel: $([ $rc = 0 ] && echo PASS || echo FAIL) (logs in $work)"
exit $rc
