#!/usr/bin/env bash
# Boots one Soft-RoCE peer guest (built by build-guest.sh), runs one command in it and exits with
# that command's exit code, read from the guest's "PEER-RESULT rc=N" console line.
#
#   scripts/peer/run-guest.sh --ip 192.0.2.1/24 --net-sock S --net-mode server|client \
#       [--ctl-sock C --ctl-mode server|client] [--cmd 'shell command' | --script FILE] [options]
#
# Options:
#   --guest DIR         build-guest.sh output (default <repo>/target/peer/guest)
#   --ip ADDR/PREFIX    eth0 address (required)
#   --mac MAC           eth0 MAC (default 52:54:00:00:00:01)
#   --mtu N             eth0 MTU (default 1500: rxe active MTU 1024; 4200 or more gives 4096)
#   --nbr IP,MAC        permanent neighbour entry for a peer that does not answer ARP
#   --ip6 ADDR/PREFIX   also an IPv6 address on eth0 (rxe gets its RoCEv2 GID; the command
#                       finds the GID's index in $PEER_GID6_INDEX)
#   --nbr6 IP6,MAC      permanent IPv6 neighbour entry for a peer that does not speak ND
#   --net-sock PATH     unix socket of the RoCE link (-netdev stream); required
#   --net-mode M        server: QEMU listens on PATH (a stale PATH is removed first);
#                       client: QEMU connects to PATH, which must be listening (QEMU 7.2 does not
#                       retry; this script waits up to --net-wait seconds for PATH to appear)
#   --net-wait S        (default 30)
#   --ctl-sock PATH     unix socket of the control chardev (virtio-serial port "ctl"); optional
#   --ctl-mode M        server (default; QEMU listens, the other end connects whenever it likes)
#                       or client (QEMU connects at start-up; PATH must be listening)
#   --pcap FILE         capture the RoCE link (both directions) with -object filter-dump
#   --cmd STRING        shell command run in the guest (sh -c semantics, in /tmp)
#   --script FILE       shell script run in the guest (alternative to --cmd)
#   --timeout S         host-side limit for the whole QEMU run (default 180)
#   --guest-timeout S   guest-side limit for the command (default: --timeout minus 20)
#   --log FILE          also write the console to FILE
#   --quiet             do not copy the console to stdout (use with --log)
#   --nice N            run QEMU under nice N (default 0)
#   --mem MB            guest memory (default 384)
#   --no-ipv6           disable IPv6 on eth0: only ARP (if any) and RoCE frames on the link
#   --append STRING     extra kernel command line (e.g. "loglevel=7" to see the kernel's messages)
#   --file PATH         also put PATH into the guest as /peer/<its name> (repeatable)
#   --qemu-arg ARG      one more QEMU argument, e.g. --qemu-arg -device --qemu-arg edu (repeatable)
# Exit status: the command's exit code; 124 if the host timeout hit; 125 if no PEER-RESULT line
# was seen; 2 for usage errors.
# The kernel command line and command delivery are described in scripts/peer/guest/init.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
die() { echo "run-guest: error: $*" >&2; exit 2; }

guest=$repo/target/peer/guest
ip=""; mac=52:54:00:00:00:01; mtu=1500; nbr=""
net_sock=""; net_mode=server; net_wait=30
ctl_sock=""; ctl_mode=server
pcap=""; cmd=""; script=""; timeout_s=180; guest_timeout=""; log=""; quiet=0; nice_n=0; mem=384; extra_append=""
files=(); qemu_extra=()
while [ $# -gt 0 ]; do
    case "$1" in
        --guest) guest=$2; shift 2 ;;
        --ip) ip=$2; shift 2 ;;
        --mac) mac=$2; shift 2 ;;
        --mtu) mtu=$2; shift 2 ;;
        --nbr) nbr=$2; shift 2 ;;
        --ip6) extra_append+=" peer_ip6=$2"; shift 2 ;;
        --nbr6) extra_append+=" peer_nbr6=$2"; shift 2 ;;
        --net-sock) net_sock=$2; shift 2 ;;
        --net-mode) net_mode=$2; shift 2 ;;
        --net-wait) net_wait=$2; shift 2 ;;
        --ctl-sock) ctl_sock=$2; shift 2 ;;
        --ctl-mode) ctl_mode=$2; shift 2 ;;
        --pcap) pcap=$2; shift 2 ;;
        --cmd) cmd=$2; shift 2 ;;
        --script) script=$2; shift 2 ;;
        --timeout) timeout_s=$2; shift 2 ;;
        --guest-timeout) guest_timeout=$2; shift 2 ;;
        --log) log=$2; shift 2 ;;
        --quiet) quiet=1; shift ;;
        --nice) nice_n=$2; shift 2 ;;
        --mem) mem=$2; shift 2 ;;
        --append) extra_append=$2; shift 2 ;;
        --no-ipv6) extra_append+=" peer_ipv6=0"; shift ;;
        --file) files+=("$2"); shift 2 ;;
        --qemu-arg) qemu_extra+=("$2"); shift 2 ;;
        -h|--help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown option '$1' (see --help)" ;;
    esac
done
[ -n "$ip" ] || die "--ip is required"
[ -n "$net_sock" ] || die "--net-sock is required"
case "$net_mode" in server|client) ;; *) die "--net-mode must be server or client" ;; esac
case "$ctl_mode" in server|client) ;; *) die "--ctl-mode must be server or client" ;; esac
[ -z "$cmd" ] || [ -z "$script" ] || die "give --cmd or --script, not both"
[ -n "$cmd" ] || [ -n "$script" ] || die "give --cmd or --script"
[ -z "$script" ] || [ -f "$script" ] || die "no script file '$script'"
[ -n "$guest_timeout" ] || guest_timeout=$((timeout_s > 40 ? timeout_s - 20 : timeout_s * 3 / 4))
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 not found (scripts/peer/install-host-deps.sh)"
kernel=$guest/vmlinux
[ -f "$kernel" ] || kernel=$guest/vmlinuz
[ -f "$kernel" ] || die "no kernel in $guest (run scripts/peer/build-guest.sh)"
[ -f "$guest/initramfs.cpio" ] || die "no initramfs.cpio in $guest (run scripts/peer/build-guest.sh)"

work=$(mktemp -d "${TMPDIR:-/tmp}/peer-run.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The command travels as /peer/cmd in a second cpio archive appended to the initramfs (the kernel
# unpacks concatenated archives in order).
mkdir -p "$work/extra/peer"
if [ -n "$script" ]; then cp "$script" "$work/extra/peer/cmd"; else printf '%s\n' "$cmd" >"$work/extra/peer/cmd"; fi
for f in ${files[@]+"${files[@]}"}; do
    [ -f "$f" ] || die "--file $f: no such file"
    cp "$f" "$work/extra/peer/"
done
(cd "$work/extra" && find peer | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) >"$work/extra.cpio"
cat "$guest/initramfs.cpio" "$work/extra.cpio" >"$work/initrd.cpio"

# no_timer_check: on a loaded host TCG can miss Linux's boot-time check that the timer interrupt
# arrives through the IO-APIC, and the kernel then panics ("IO-APIC + timer doesn't work!")
append="console=ttyS0 panic=-1 quiet loglevel=4 mitigations=off no_timer_check peer_ip=$ip peer_mtu=$mtu peer_timeout=$guest_timeout"
[ -z "$nbr" ] || append+=" peer_nbr=$nbr"
[ -z "$extra_append" ] || append+=" $extra_append"

if [ "$net_mode" = server ]; then
    rm -f "$net_sock"
    netsrv=on
else
    netsrv=off
    n=0
    until [ -S "$net_sock" ]; do
        n=$((n + 1)); [ $n -le $((net_wait * 10)) ] || die "no listening socket at $net_sock after ${net_wait}s"
        sleep 0.1
    done
fi
qemu=(qemu-system-x86_64 -nodefaults -display none -no-reboot -accel tcg,tb-size=64 -m "$mem"
    -serial stdio -kernel "$kernel" -initrd "$work/initrd.cpio" -append "$append"
    -netdev "stream,id=n0,server=$netsrv,addr.type=unix,addr.path=$net_sock"
    -device "virtio-net-pci,netdev=n0,mac=$mac,romfile=")
[ -z "$pcap" ] || qemu+=(-object "filter-dump,id=f0,netdev=n0,file=$pcap")
qemu+=(${qemu_extra[@]+"${qemu_extra[@]}"})
if [ -n "$ctl_sock" ]; then
    if [ "$ctl_mode" = server ]; then
        rm -f "$ctl_sock"
        qemu+=(-chardev "socket,id=c0,path=$ctl_sock,server=on,wait=off")
    else
        qemu+=(-chardev "socket,id=c0,path=$ctl_sock,server=off")
    fi
    qemu+=(-device virtio-serial-pci -device "virtserialport,chardev=c0,name=ctl")
fi

console=$work/console.log
set +e
if [ "$quiet" = 1 ]; then
    nice -n "$nice_n" timeout -k 5 "$timeout_s" "${qemu[@]}" </dev/null >"$console" 2>&1
    qrc=$?
else
    nice -n "$nice_n" timeout -k 5 "$timeout_s" "${qemu[@]}" </dev/null 2>&1 | tee "$console"
    qrc=${PIPESTATUS[0]}
fi
set -e
[ -z "$log" ] || cp "$console" "$log"

line=$(grep -a -o 'PEER-RESULT rc=[0-9]*' "$console" | tail -1 || true)
if [ -n "$line" ]; then
    exit "${line#PEER-RESULT rc=}"
elif [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
    echo "run-guest: host timeout (${timeout_s}s) hit before the guest reported a result" >&2
    exit 124
else
    echo "run-guest: no PEER-RESULT line on the console (QEMU exit $qrc)" >&2
    exit 125
fi
