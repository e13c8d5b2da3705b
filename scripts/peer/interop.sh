#!/usr/bin/env bash
# Live interop: the simulated ferroce NIC (`ferroce peer`, the cycle-accurate hardware model)
# against an unmodified Linux RDMA tool on Soft-RoCE (rdma_rxe) in a QEMU guest, one case at a
# time. Each case boots a guest (run-guest.sh), starts `ferroce peer` on the same link and control
# sockets, waits for both, and checks: both exit 0, the Linux tool printed its own success output,
# and every RoCE frame of both captures (the guest's, taken by QEMU, and the NIC's, at its MAC)
# carries a good ICRC by ferroce's own parser and by the independent oracle when one is given.
#
# Usage:
#   scripts/peer/interop.sh [options] CASE...
#   CASE = TOOL:ROLE:MTU[:SIZE[:ITERS[:LOSS[:NET]]]]
#     TOOL  rc_pingpong | write_bw | read_bw | send_bw | atomic_fadd | atomic_cas
#     ROLE  ferroce's role: server (the Linux tool is the client) or client
#     MTU   RoCE path MTU, 1024 or 4096 (the guest NIC gets MTU 4200 for 4096)
#     SIZE  message size in bytes (default 1024; atomics are always 8)
#     ITERS iterations (default 100)
#     LOSS  fraction of RoCE frames the link drops, each direction (default 0)
#     NET   ipv4 (default: RoCEv2 over IPv4, IPv6 off on the guest's link) or ipv6 (RoCEv2
#           over IPv6 between global addresses; the guest keeps IPv6 on, with a permanent
#           neighbour entry for ferroce, and its ND/MLD frames reach the NIC, which drops them)
# Options:
#   --ferroce BIN     the ferroce binary (default <repo>/target/release/ferroce)
#   --guest DIR       build-guest.sh output (default <repo>/target/peer/guest)
#   --out DIR         logs, JSON summaries and captures, one folder per case
#                     (default <repo>/target/peer/runs)
#   --oracle FILE     an independent ICRC checker run as `python3 FILE a.pcap b.pcap` whose lines
#                     report `'bad': N` for bad frames (optional)
#   --timeout S       wall-clock limit per case (default 240)
# Exit status: 0 if every case passed; 1 otherwise (a table of results is printed either way).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
die() { echo "interop: error: $*" >&2; exit 2; }

ferroce=$repo/target/release/ferroce
guest=$repo/target/peer/guest
out=$repo/target/peer/runs
oracle=""
timeout_s=240
cases=()
while [ $# -gt 0 ]; do
    case $1 in
        --ferroce) ferroce=$2; shift 2 ;;
        --guest) guest=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --oracle) oracle=$2; shift 2 ;;
        --timeout) timeout_s=$2; shift 2 ;;
        -h|--help) sed -n '2,28p' "$0"; exit 0 ;;
        -*) die "unknown option $1" ;;
        *) cases+=("$1"); shift ;;
    esac
done
[ ${#cases[@]} -gt 0 ] || die "no case given (e.g. rc_pingpong:server:1024)"
[ -x "$ferroce" ] || die "no ferroce binary at $ferroce (cargo build --release)"
[ -f "$guest/initramfs.cpio" ] || die "no guest in $guest (scripts/peer/build-guest.sh)"
[ -z "$oracle" ] || [ -f "$oracle" ] || die "--oracle $oracle: no such file"
mkdir -p "$out"

# The link's addresses live only on the private unix-socket link (192.0.2.0/24 is a
# documentation range).
GUEST_IP=192.0.2.1
GUEST_MAC=52:54:00:00:00:01
NIC_IP=192.0.2.2
NIC_MAC=02:fe:00:00:00:02
PORT=18515
GUEST_IP6=2001:db8::1
NIC_IP6=2001:db8::2

# The guest's command for one case: the Linux tool, bridged to the control channel.
guest_cmd() { # tool role(ferroce's) mtu size iters net
    local tool=$1 role=$2 mtu=$3 size=$4 iters=$5 net=$6 bin args g=1
    # GID index 1: rxe's IPv4-mapped RoCEv2 GID; for IPv6 the guest's /init finds the index of
    # the global address's GID (the shell in the guest expands it)
    [ "$net" = ipv4 ] || g='$PEER_GID6_INDEX'
    case $tool in
        rc_pingpong) bin=ibv_rc_pingpong
            args="-d rxe0 -g $g -p $PORT -n $iters -s $size -m $mtu" ;;
        write_bw) bin=ib_write_bw; args="-d rxe0 -x $g -p $PORT -n $iters -s $size -m $mtu" ;;
        read_bw) bin=ib_read_bw; args="-d rxe0 -x $g -p $PORT -n $iters -s $size -m $mtu" ;;
        send_bw) bin=ib_send_bw; args="-d rxe0 -x $g -p $PORT -n $iters -s $size -m $mtu" ;;
        atomic_fadd) bin=ib_atomic_bw
            args="-d rxe0 -x $g -p $PORT -n $iters -m $mtu -A FETCH_AND_ADD" ;;
        atomic_cas) bin=ib_atomic_bw
            args="-d rxe0 -x $g -p $PORT -n $iters -m $mtu -A CMP_AND_SWAP" ;;
        *) die "unknown tool $tool" ;;
    esac
    if [ "$role" = server ]; then
        echo "peer-bridge client $PORT $bin $args 127.0.0.1"
    else
        echo "peer-bridge server $PORT $bin $args"
    fi
}

# The Linux tool's own success output: rc_pingpong's "N iters in" line, perftest's results
# table (its header and a row of numbers).
tool_ok() { # tool log
    case $1 in
        rc_pingpong) grep -Eq '^[0-9]+ iters in [0-9.]+ seconds' "$2" ;;
        *) grep -Eq '^ *#bytes +#iterations' "$2" && grep -Eq '^ *[0-9]+ +[0-9]+ +[0-9.]+' "$2" ;;
    esac
}

results=()
failed=0
for c in "${cases[@]}"; do
    IFS=: read -r tool role mtu size iters loss net <<<"$c"
    [ -n "$tool" ] && [ -n "$role" ] && [ -n "$mtu" ] || die "case '$c': TOOL:ROLE:MTU needed"
    case $role in server|client) ;; *) die "case '$c': role must be server or client" ;; esac
    case $mtu in 1024|4096) ;; *) die "case '$c': MTU must be 1024 or 4096" ;; esac
    size=${size:-1024}; iters=${iters:-100}; loss=${loss:-0}; net=${net:-ipv4}
    case $net in ipv4|ipv6) ;; *) die "case '$c': NET must be ipv4 or ipv6" ;; esac
    case $tool in atomic_*) size=8 ;; esac
    name="${tool}_ferroce-${role}_mtu${mtu}_s${size}_n${iters}_loss${loss}"
    [ "$net" = ipv4 ] || name+="_$net"
    dir=$out/$name
    rm -rf "$dir"; mkdir -p "$dir"
    eth_mtu=1500; [ "$mtu" = 4096 ] && eth_mtu=4200
    # ferroce's local ACK timeout: 10 (~1 M cycles, several seconds of wall time: a slow guest
    # never trips it) on a lossless link; 8 (~260 k cycles, 1-3 s) when frames are dropped, so
    # that a lost request of ferroce's is resent within the run's time
    ack=10; [ "$loss" = 0 ] || ack=8
    cmd=$(guest_cmd "$tool" "$role" "$mtu" "$size" "$iters" "$net")
    if [ "$net" = ipv4 ]; then
        guest_net=(--nbr "$NIC_IP,$NIC_MAC" --no-ipv6); nic_ip=$NIC_IP
    else
        guest_net=(--nbr "$NIC_IP,$NIC_MAC" --ip6 "$GUEST_IP6/64" --nbr6 "$NIC_IP6,$NIC_MAC")
        nic_ip=$NIC_IP6
    fi
    echo "== $name"
    echo "   guest: $cmd"
    start=$(date +%s.%N)
    # the guest listens on both sockets; ferroce connects (retrying until they exist)
    "$here/run-guest.sh" --guest "$guest" --ip "$GUEST_IP/24" --mac "$GUEST_MAC" --mtu "$eth_mtu" \
        --net-sock "$dir/link.sock" --net-mode server --ctl-sock "$dir/ctl.sock" --ctl-mode server \
        "${guest_net[@]}" --pcap "$dir/guest.pcap" --timeout "$timeout_s" \
        --log "$dir/guest.log" --quiet --cmd "$cmd" &
    gpid=$!
    set +e
    "$ferroce" peer --tool "$tool" --role "$role" --link "$dir/link.sock" --ctl "$dir/ctl.sock" \
        --peer-mac "$GUEST_MAC" --my-ip "$nic_ip" --my-mac "$NIC_MAC" --size "$size" \
        --iters "$iters" --mtu "$mtu" --timeout "$((timeout_s - 10))" --pcap "$dir/nic.pcap" \
        --loss "$loss" --seed 4791 --ack-timeout "$ack" >"$dir/ferroce.json" 2>"$dir/ferroce.err"
    frc=$?
    wait "$gpid"
    grc=$?
    set -e
    secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    verdict=ok; why=""
    [ "$frc" = 0 ] || { verdict=FAIL; why+=" ferroce-exit=$frc"; }
    [ "$grc" = 0 ] || { verdict=FAIL; why+=" guest-exit=$grc"; }
    tool_ok "$tool" "$dir/guest.log" || { verdict=FAIL; why+=" no-tool-success-output"; }
    for p in guest nic; do
        if [ -s "$dir/$p.pcap" ]; then
            "$ferroce" pcap-info "$dir/$p.pcap" | tail -n 1 >"$dir/$p.pcap-summary.json"
            if ! grep -q '"bad_icrc":0,' "$dir/$p.pcap-summary.json" ||
                ! grep -q '"malformed":0' "$dir/$p.pcap-summary.json"; then
                verdict=FAIL; why+=" $p-capture-bad-frames"
            fi
        else
            verdict=FAIL; why+=" no-$p-capture"
        fi
    done
    if [ -n "$oracle" ] && [ -s "$dir/guest.pcap" ] && [ -s "$dir/nic.pcap" ]; then
        if ! /usr/bin/python3 "$oracle" "$dir/guest.pcap" "$dir/nic.pcap" >"$dir/oracle.txt" 2>&1 ||
            grep -q "'bad'" "$dir/oracle.txt" || ! grep -q "'ok'" "$dir/oracle.txt"; then
            verdict=FAIL; why+=" icrc-oracle"
        fi
    fi
    # (a failed case may lack these files: report "?" rather than end the script, set -e)
    frames=$(grep -o '"frames":[0-9]*' "$dir/nic.pcap-summary.json" 2>/dev/null | head -1 | cut -d: -f2 || true)
    resent=$(grep -o '"retransmitted_packets":[0-9]*' "$dir/ferroce.json" | cut -d: -f2 || true)
    lost=$(grep -o '"dropped_loss_\(in\|out\)":[0-9]*' "$dir/ferroce.json" | awk -F: '{ n += $2 } END { print n + 0 }' || true)
    # frames the NIC's receive path dropped as not RoCE (the guest's ND/MLD with IPv6 on; how
    # many depends on how much of the guest's boot ferroce was connected for): every one of
    # them, as its capture at the MAC shows them, must have been dropped and counted
    other=$(grep -o '"unsupported":[0-9]*' "$dir/ferroce.json" | head -1 | cut -d: -f2 || true)
    seen=$(grep -o '"other":[0-9]*' "$dir/nic.pcap-summary.json" 2>/dev/null | cut -d: -f2 || true)
    [ "${other:-x}" = "${seen:-0}" ] || { verdict=FAIL; why+=" not-roce-frames=${seen:-0}-but-dropped=${other:-?}"; }
    line=$(printf '%-58s %-4s %6ss frames=%s lost=%s ferroce-resent=%s nic-dropped-not-roce=%s%s' \
        "$name" "$verdict" "$secs" "${frames:-?}" "${lost:-?}" "${resent:-?}" "${other:-?}" "$why")
    echo "   $line"
    [ "$verdict" = ok ] || { failed=1; echo "   (see $dir: guest.log, ferroce.json, ferroce.err)"; \
        tail -n 15 "$dir/guest.log" | sed 's/^/   guest| /'; }
    results+=("$line")
done
echo "== interop results"
printf '%s\n' "${results[@]}"
exit $failed
