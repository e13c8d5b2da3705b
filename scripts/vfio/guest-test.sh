#!/usr/bin/env bash
# The driver's generic VFIO layer on a real kernel: boots the QEMU guest of scripts/peer (built
# by scripts/peer/build-guest.sh) on a q35 machine with a virtual Intel VT-d IOMMU
# (intel_iommu=on) and QEMU's `edu` PCI device, binds edu to vfio-pci and runs
# `ferroce-vfio-edu` in the guest: VFIO open, BAR0 mmap, DMA through IOMMU mappings checked
# byte for byte, and DMA at unmapped IOVAs reported as typed IOMMU faults.
#
#   scripts/vfio/guest-test.sh [--bin ferroce-vfio-edu] [--guest DIR] [--log FILE] [--timeout S]
#
# --bin defaults to <repo>/target/release/ferroce-vfio-edu (cargo build --release -p ferroce-driver).
# The program is a glibc binary of the host; the guest is Debian of the host's release.
# Exit status: the program's (0: every check held), 124/125 for a guest that hung or crashed,
# 2 for usage errors.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
die() { echo "vfio-guest-test: error: $*" >&2; exit 2; }

bin=$repo/target/release/ferroce-vfio-edu
guest=$repo/target/peer/guest
log=""
timeout_s=90
while [ $# -gt 0 ]; do
    case $1 in
        --bin) bin=$2; shift 2 ;;
        --guest) guest=$2; shift 2 ;;
        --log) log=$2; shift 2 ;;
        --timeout) timeout_s=$2; shift 2 ;;
        -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
        *) die "unknown option $1" ;;
    esac
done
[ -x "$bin" ] || die "no program at $bin (cargo build --release -p ferroce-driver)"
[ -f "$guest/initramfs.cpio" ] || die "no guest in $guest (scripts/peer/build-guest.sh)"

work=$(mktemp -d "${TMPDIR:-/tmp}/vfio-guest.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp "$bin" "$work/ferroce-vfio-edu"

# In the guest: load VFIO, find edu (vendor 1234, device 11e8), hand it to vfio-pci, run.
cat >"$work/cmd" <<'CMD'
modprobe -a vfio vfio_iommu_type1 vfio_pci || exit 90
dev=""
for d in /sys/bus/pci/devices/*; do
    [ "$(cat "$d/vendor") $(cat "$d/device")" = "0x1234 0x11e8" ] && dev=${d##*/}
done
[ -n "$dev" ] || { echo "vfio-guest: no edu device"; exit 91; }
[ -e "/sys/bus/pci/devices/$dev/iommu_group" ] || { echo "vfio-guest: $dev has no IOMMU group"; exit 92; }
echo vfio-pci >"/sys/bus/pci/devices/$dev/driver_override"
echo "$dev" >/sys/bus/pci/drivers_probe
echo "vfio-guest: $dev bound to $(basename "$(readlink "/sys/bus/pci/devices/$dev/driver")"), IOMMU group $(basename "$(readlink "/sys/bus/pci/devices/$dev/iommu_group")")"
/peer/ferroce-vfio-edu --pci "$dev"
CMD

# The guest's /init wants a network device: an unconnected stream socket serves. Interrupt
# remapping stays on (vfio_iommu_type1 refuses a container without it); run-guest.sh's
# no_timer_check keeps Linux from panicking in its boot-time timer check through the remapped
# IO-APIC when a loaded host makes TCG miss it.
set +e
"$repo/scripts/peer/run-guest.sh" --guest "$guest" --ip 192.0.2.1/24 --net-sock "$work/link.sock" \
    --net-mode server --no-ipv6 --append "intel_iommu=on peer_nordma=1" \
    --qemu-arg -machine --qemu-arg q35 --qemu-arg -device --qemu-arg intel-iommu \
    --qemu-arg -device --qemu-arg edu \
    --file "$work/ferroce-vfio-edu" --script "$work/cmd" --timeout "$timeout_s" \
    --log "$work/console.log" --quiet
rc=$?
set -e
[ -z "$log" ] || cp "$work/console.log" "$log"
grep -a -E '^(vfio-guest|vfio-edu|PEER-RESULT)|DMAR' "$work/console.log" || true
exit $rc
