#!/usr/bin/env bash
# Validation of the peer guest and its control channel with TWO guests: guest A (192.0.2.1, netdev
# stream server, tool in the TCP-server role) and guest B (192.0.2.2, netdev stream client, tool in
# the TCP-client role). The tools' TCP exchange runs over each guest's virtio-serial "ctl" port and
# a host relay (ctl-relay.py) that records the bytes both ways. Each test boots both guests afresh.
#
#   scripts/peer/validate-pair.sh [--guest DIR] [--out DIR] [--samples DIR] [--only REGEX]
#                                 [--iters N] [--nice N] [--list]
#   --out DIR      logs, pcaps (guest A's link), relay captures (default <repo>/target/peer/validate)
#   --samples DIR  also copy each test's control-channel capture there (server_to_client.bin,
#                  client_to_server.bin, exchange.txt, events.txt, commands.txt)
#   --only REGEX   run the tests whose names match
#   --no-ipv6      boot the guests with IPv6 off on eth0 (a link carrying only RoCE frames)
# Prints one line per test and a summary "N passed, N failed"; exits non-zero if any failed.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
die() { echo "validate-pair: error: $*" >&2; exit 2; }

guest=$repo/target/peer/guest; out=$repo/target/peer/validate; samples=""; only=""; iters=200; nice_n=0; list=0; v6=()
while [ $# -gt 0 ]; do
    case "$1" in
        --guest) guest=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --samples) samples=$2; shift 2 ;;
        --only) only=$2; shift 2 ;;
        --iters) iters=$2; shift 2 ;;
        --nice) nice_n=$2; shift 2 ;;
        --list) list=1; shift ;;
        --no-ipv6) v6=(--no-ipv6); shift ;;
        *) die "unknown option '$1'" ;;
    esac
done

port=18515
ipa=192.0.2.1; ipb=192.0.2.2
maca=52:54:00:00:00:01; macb=52:54:00:00:00:02
pt="-d rxe0 -x 1 -p $port -n $iters ${PEER_PERFTEST_EXTRA--F}"     # perftest common options (PEER_PERFTEST_EXTRA replaces -F)
pp="-d rxe0 -g 1 -p $port -n $iters"         # ibv_rc_pingpong common options
# name | eth0 MTU | server command | client command (the client's last argument is the server name)
tests=(
    "rc_pingpong_mtu1024|1500|ibv_rc_pingpong $pp -s 4096 -m 1024|ibv_rc_pingpong $pp -s 4096 -m 1024 127.0.0.1"
    "rc_pingpong_mtu4096|4200|ibv_rc_pingpong $pp -s 4096 -m 4096|ibv_rc_pingpong $pp -s 4096 -m 4096 127.0.0.1"
    "write_bw_mtu1024|1500|ib_write_bw $pt -m 1024|ib_write_bw $pt -m 1024 127.0.0.1"
    "write_bw_mtu4096|4200|ib_write_bw $pt -m 4096|ib_write_bw $pt -m 4096 127.0.0.1"
    "read_bw_mtu1024|1500|ib_read_bw $pt -m 1024|ib_read_bw $pt -m 1024 127.0.0.1"
    "read_bw_mtu4096|4200|ib_read_bw $pt -m 4096|ib_read_bw $pt -m 4096 127.0.0.1"
    "send_bw_mtu1024|1500|ib_send_bw $pt -m 1024|ib_send_bw $pt -m 1024 127.0.0.1"
    "send_bw_mtu4096|4200|ib_send_bw $pt -m 4096|ib_send_bw $pt -m 4096 127.0.0.1"
    "atomic_fetch_add|1500|ib_atomic_bw $pt -m 1024 -A FETCH_AND_ADD|ib_atomic_bw $pt -m 1024 -A FETCH_AND_ADD 127.0.0.1"
    "atomic_cmp_swap|1500|ib_atomic_bw $pt -m 1024 -A CMP_AND_SWAP|ib_atomic_bw $pt -m 1024 -A CMP_AND_SWAP 127.0.0.1"
    "write_lat_64|1500|ib_write_lat $pt -m 1024 -s 64|ib_write_lat $pt -m 1024 -s 64 127.0.0.1"
    "read_lat_64|1500|ib_read_lat $pt -m 1024 -s 64|ib_read_lat $pt -m 1024 -s 64 127.0.0.1"
    "send_lat_64|1500|ib_send_lat $pt -m 1024 -s 64|ib_send_lat $pt -m 1024 -s 64 127.0.0.1"
)
if [ "$list" = 1 ]; then printf '%s\n' "${tests[@]}" | tr '|' '\t'; exit 0; fi
[ -f "$guest/initramfs.cpio" ] || die "no guest in $guest (run scripts/peer/build-guest.sh)"
mkdir -p "$out"
socks=$(mktemp -d "${TMPDIR:-/tmp}/peer-pair.XXXXXX")
trap 'rm -rf "$socks"' EXIT
now() { date +%s.%N; }
dt() { python3 -c "import sys; print(f'{float(sys.argv[2])-float(sys.argv[1]):.1f}')" "$1" "$2"; }

pass=0; fail=0
: >"$out/summary.txt"
for t in "${tests[@]}"; do
    IFS='|' read -r name mtu scmd ccmd <<<"$t"
    if [ -n "$only" ] && ! [[ $name =~ $only ]]; then continue; fi
    d=$out/$name; s=$socks/$name
    rm -rf "$d"; mkdir -p "$d" "$s"
    printf 'server (guest A, %s): %s\nclient (guest B, %s): %s\neth0 MTU %s; control channel: peer-bridge server|client %s\n' \
        "$ipa" "$scmd" "$ipb" "$ccmd" "$mtu" "$port" >"$d/commands.txt"
    t0=$(now)
    "$here/run-guest.sh" --guest "$guest" --quiet --log "$d/server.console" --nice "$nice_n" "${v6[@]}" \
        --ip $ipa/24 --mac $maca --mtu "$mtu" --nbr $ipb,$macb \
        --net-sock "$s/net.sock" --net-mode server --ctl-sock "$s/ctl-a.sock" --pcap "$d/link.pcap" \
        --timeout 120 --cmd "peer-bridge server $port $scmd" &
    ga=$!
    "$here/run-guest.sh" --guest "$guest" --quiet --log "$d/client.console" --nice "$nice_n" "${v6[@]}" \
        --ip $ipb/24 --mac $macb --mtu "$mtu" --nbr $ipa,$maca \
        --net-sock "$s/net.sock" --net-mode client --ctl-sock "$s/ctl-b.sock" \
        --timeout 120 --cmd "peer-bridge client $port $ccmd" &
    gb=$!
    python3 "$here/ctl-relay.py" --a "$s/ctl-a.sock" --b "$s/ctl-b.sock" --name-a server --name-b client \
        --out "$d/exchange" --timeout 140 >"$d/relay.log" 2>&1 &
    gr=$!
    ra=0; rb=0
    wait $ga || ra=$?
    wait $gb || rb=$?
    wait $gr || true
    t1=$(now)
    res=$(grep -a -E '^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+|bytes in .* seconds' "$d/client.console" | head -2 | tr -s ' \n' ' ' || true)
    rdy=$(grep -a -o 'PEER-READY.*uptime=[0-9.]*' "$d/server.console" | grep -o 'uptime=[0-9.]*' || true)
    if [ $ra = 0 ] && [ $rb = 0 ]; then pass=$((pass + 1)); verdict=PASS; else fail=$((fail + 1)); verdict=FAIL; fi
    line="$verdict $name server_rc=$ra client_rc=$rb wall=$(dt "$t0" "$t1")s ready_${rdy:-?} | $res"
    echo "$line" | tee -a "$out/summary.txt"
    if [ -n "$samples" ]; then
        sd=$samples/$name; rm -rf "$sd"; mkdir -p "$sd"
        cp "$d/exchange/a_to_b.bin" "$sd/server_to_client.bin"
        cp "$d/exchange/b_to_a.bin" "$sd/client_to_server.bin"
        cp "$d/exchange/exchange.txt" "$d/exchange/events.txt" "$d/commands.txt" "$sd/"
        python3 "$here/decode-exchange.py" "$sd" >"$sd/decoded.txt" 2>&1 || true
    fi
done
echo "$pass passed, $fail failed" | tee -a "$out/summary.txt"
[ $fail = 0 ]
