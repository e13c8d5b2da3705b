#!/usr/bin/env bash
# Builds the Linux Soft-RoCE (rdma_rxe) peer guest: an uncompressed kernel (vmlinux) and an
# uncompressed cpio initramfs holding rdma-core, perftest, rdmacm-utils, iproute2, socat and the
# modules rxe needs, with /init from scripts/peer/guest/init.
#
#   scripts/peer/build-guest.sh [OUTDIR]      (default OUTDIR: <repo>/target/peer/guest)
#
# Idempotent: the debootstrap tree and the kernel package are cached in OUTDIR and reused; the
# initramfs is rebuilt when its inputs (this script, guest/init, guest/peer-bridge, the userland,
# the kernel package) changed, and reused otherwise. Delete OUTDIR/rootfs to refresh the
# userland, OUTDIR/kernel to refresh the kernel. Runs of the script on the same OUTDIR take turns
# (flock on OUTDIR/.build-lock), so a test that calls it while an earlier run (CI starts one in
# the background) is still building waits for that run and then finds the guest up to date.
# Environment: PEER_MIRROR (Debian mirror; default: the one the host's apt uses),
#              PEER_SUITE (default: the host's codename).
# Needs root (debootstrap, chroot, mknod) and: debootstrap cpio kmod python3 apt-get dpkg-deb.
# Outputs in OUTDIR: vmlinux (or vmlinuz if the payload cannot be extracted), initramfs.cpio,
# VERSIONS (kernel, rdma-core, perftest, socat versions).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=${1:-$repo/target/peer/guest}
mkdir -p "$out"
out=$(cd "$out" && pwd)

die() { echo "build-guest: error: $*" >&2; exit 1; }
say() { echo "build-guest: $*"; }
t0=$(date +%s.%N)
elapsed() { python3 -c "import sys; print(f'{float(sys.argv[2])-float(sys.argv[1]):.1f}s')" "$t0" "$(date +%s.%N)"; }
command -v flock >/dev/null || die "missing host tool 'flock' (util-linux)"
exec 9>"$out/.build-lock"
flock 9

[ "$(id -u)" -eq 0 ] || die "must run as root (debootstrap, chroot and mknod need it)"
for t in debootstrap cpio depmod modprobe python3 apt-get apt-cache dpkg-deb chroot ldconfig; do
    command -v "$t" >/dev/null || die "missing host tool '$t' (scripts/peer/install-host-deps.sh installs them)"
done

# --- mirror and suite -------------------------------------------------------------------------
suite=${PEER_SUITE:-$(. /etc/os-release && echo "${VERSION_CODENAME:-}")}
[ -n "$suite" ] || die "cannot tell the Debian codename; set PEER_SUITE"
find_mirror() {
    # First apt source (one-line or deb822 format) that serves "$suite" itself with component main.
    python3 - "$suite" <<'EOF'
import glob, re, sys
suite = sys.argv[1]
files = ["/etc/apt/sources.list"] + sorted(glob.glob("/etc/apt/sources.list.d/*.list")) \
        + sorted(glob.glob("/etc/apt/sources.list.d/*.sources"))
for f in files:
    try:
        text = open(f).read()
    except OSError:
        continue
    if f.endswith(".sources"):
        for block in re.split(r"\n\s*\n", text):
            fields = {}
            for line in block.splitlines():
                if line.startswith("#") or ":" not in line:
                    continue
                k, v = line.split(":", 1)
                fields[k.strip().lower()] = v.split()
            if "deb" in fields.get("types", []) and suite in fields.get("suites", []) \
                    and "main" in fields.get("components", []) and fields.get("uris"):
                print(fields["uris"][0]); sys.exit(0)
    else:
        for line in text.splitlines():
            w = re.sub(r"\[[^]]*\]", "", line.split("#", 1)[0]).split()
            if len(w) >= 4 and w[0] == "deb" and w[2] == suite and "main" in w[3:]:
                print(w[1]); sys.exit(0)
sys.exit(1)
EOF
}
mirror=${PEER_MIRROR:-$(find_mirror || true)}
[ -n "$mirror" ] || die "no apt source for suite '$suite' with component main found; set PEER_MIRROR"

# --- guest userland (debootstrap, cached) ----------------------------------------------------
pkgs=rdma-core,ibverbs-utils,ibverbs-providers,perftest,iproute2,kmod,rdmacm-utils,socat
rootfs=$out/rootfs
if [ -f "$rootfs/.peer-complete" ] && [ "$(cat "$rootfs/.peer-complete")" = "$suite $pkgs" ]; then
    say "userland: reusing $rootfs"
else
    say "userland: debootstrap --variant=minbase $suite from $mirror (packages cached in $out/debs)"
    rm -rf "$rootfs"
    mkdir -p "$out/debs"
    debootstrap --variant=minbase --include="$pkgs" --cache-dir="$out/debs" \
        "$suite" "$rootfs" "$mirror" >"$out/debootstrap.log" 2>&1 \
        || die "debootstrap failed, see $out/debootstrap.log"
    echo "$suite $pkgs" >"$rootfs/.peer-complete"
    say "userland: done ($(elapsed))"
fi

# --- kernel (package unpacked, never installed on the host) ----------------------------------
kpkg=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
[ -n "$kpkg" ] || die "cannot find the package linux-image-amd64 depends on (run apt-get update?)"
kdir=$out/kernel
if [ -f "$kdir/.peer-complete" ] && [ "$(cat "$kdir/.peer-complete")" = "$kpkg" ]; then
    say "kernel: reusing $kpkg in $kdir"
else
    mkdir -p "$out/kernel-deb"
    if ! ls "$out/kernel-deb/${kpkg}_"*.deb >/dev/null 2>&1; then
        say "kernel: apt-get download $kpkg"
        (cd "$out/kernel-deb" && apt-get -q -o APT::Sandbox::User=root download "$kpkg") >/dev/null \
            || die "apt-get download $kpkg failed"
    fi
    deb=$(ls "$out/kernel-deb/${kpkg}_"*.deb | head -1)
    say "kernel: unpacking $(basename "$deb")"
    rm -rf "$kdir"
    mkdir -p "$kdir"
    dpkg-deb -x "$deb" "$kdir"
    echo "$kpkg" >"$kdir/.peer-complete"
fi
kver=${kpkg#linux-image-}
# Debian 12 ships modules under lib/modules, later releases under usr/lib/modules.
if [ -d "$kdir/lib/modules/$kver" ]; then kmodbase=$kdir; elif [ -d "$kdir/usr/lib/modules/$kver" ]; then
    kmodbase=$kdir/usr; else die "no modules for $kver in $kdir"; fi
[ -f "$kmodbase/lib/modules/$kver/modules.dep" ] || depmod -b "$kmodbase" "$kver"
vmlinuz=$kdir/boot/vmlinuz-$kver
[ -f "$vmlinuz" ] || die "no $vmlinuz"

# The uncompressed ELF kernel boots about 2 s faster under TCG (no decompression in the guest).
if [ ! -f "$out/vmlinux" ] || [ "$vmlinuz" -nt "$out/vmlinux" ]; then
    if python3 - "$vmlinuz" "$out/vmlinux.tmp" <<'EOF'
import lzma, sys
data = open(sys.argv[1], "rb").read()
off = data.find(b"\xfd7zXZ\x00")
if off < 0:
    sys.exit("no XZ payload in the bzImage")
out = lzma.LZMADecompressor(format=lzma.FORMAT_XZ).decompress(data[off:])
if out[:4] != b"\x7fELF":
    sys.exit("XZ payload is not an ELF image")
open(sys.argv[2], "wb").write(out)
EOF
    then
        mv "$out/vmlinux.tmp" "$out/vmlinux"
        say "kernel: extracted uncompressed vmlinux ($(du -m "$out/vmlinux" | cut -f1) MB)"
    else
        rm -f "$out/vmlinux.tmp"
        say "kernel: WARNING: could not extract vmlinux; run-guest.sh will boot vmlinuz"
    fi
fi
cp -f "$vmlinuz" "$out/vmlinuz"

# --- initramfs --------------------------------------------------------------------------------
inputs=$( { cat "$here/build-guest.sh" "$here/guest/init" "$here/guest/peer-bridge"
             cat "$rootfs/.peer-complete" "$kdir/.peer-complete"; } | sha256sum | cut -d' ' -f1)
if [ -f "$out/initramfs.cpio" ] && [ -f "$out/VERSIONS" ] && [ "$(cat "$out/.initramfs-inputs" 2>/dev/null)" = "$inputs" ]; then
    say "initramfs: up to date ($out/initramfs.cpio)"
    say "done in $(elapsed)"
    exit 0
fi
rm -f "$out/.initramfs-inputs"

stage=$out/initramfs-root
rm -rf "$stage"
mkdir -p "$stage"/{usr/bin,usr/sbin,usr/lib/x86_64-linux-gnu,usr/lib64,etc,proc,sys,dev,tmp,run,peer,root}
ln -s usr/bin "$stage/bin"; ln -s usr/sbin "$stage/sbin"; ln -s usr/lib "$stage/lib"; ln -s usr/lib64 "$stage/lib64"
mknod -m 600 "$stage/dev/console" c 5 1
mknod -m 666 "$stage/dev/null" c 1 3

# Copies a path from the rootfs into the stage, following symlinks (copying link and target).
copy_path() {
    local p=$1 guard=0
    while [ $guard -lt 20 ]; do
        guard=$((guard + 1))
        local src=$rootfs$p
        [ -e "$src" ] || [ -L "$src" ] || { echo "build-guest: warning: $p not in rootfs" >&2; return 0; }
        # Resolve the directory part inside the rootfs (bin -> usr/bin etc.).
        local dir; dir=$(cd "$rootfs" && chroot "$rootfs" readlink -f "$(dirname "$p")")
        local dst=$stage$dir/$(basename "$p")
        mkdir -p "$stage$dir"
        if [ -L "$src" ]; then
            [ -e "$dst" ] || [ -L "$dst" ] || cp -a "$src" "$dst"
            local t; t=$(readlink "$src")
            case "$t" in /*) p=$t ;; *) p=$dir/$t ;; esac
        else
            [ -e "$dst" ] || cp -a "$src" "$dst"
            return 0
        fi
    done
}
declare -A seen_elf=()
copy_elf() {
    # Copies a binary and the shared libraries the loader resolves for it (ldd run in the rootfs).
    local p=$1
    [ -z "${seen_elf[$p]:-}" ] || return 0
    seen_elf[$p]=1
    copy_path "$p"
    local lib
    while read -r lib; do
        [ -n "$lib" ] && copy_path "$lib"
    done < <(chroot "$rootfs" ldd "$p" 2>/dev/null | awk '/=> \// {print $3} /^[ \t]*\/[^ ]+ \(0x/ {print $1}')
}

# Tools: everything the rdma/perftest/socat/iproute2/kmod packages put in a bin directory, plus
# the basic commands /init and the command scripts use.
mapfile -t pkgbins < <(chroot "$rootfs" dpkg -L ibverbs-utils perftest rdmacm-utils rdma-core iproute2 kmod socat \
    | grep -E '^/(usr/)?s?bin/[^/]+$' | sort -u)
basics=(/bin/sh /bin/dash /bin/bash /bin/cat /bin/echo /bin/sleep /bin/mkdir /bin/mount /bin/umount /bin/ls
    /bin/ln /bin/rm /bin/cp /bin/mv /bin/chmod /bin/mknod /bin/date /bin/uname /bin/sync /bin/dd /bin/readlink
    /usr/bin/head /usr/bin/tail /usr/bin/tr /usr/bin/cut /usr/bin/wc /usr/bin/timeout /usr/bin/tee
    /usr/bin/seq /usr/bin/od /usr/bin/xxd /usr/bin/base64 /usr/bin/stat /usr/bin/env /usr/bin/printf /usr/bin/test
    /usr/bin/expr /usr/bin/sort /usr/bin/uniq /usr/bin/md5sum /usr/bin/sha256sum /usr/bin/nproc /usr/bin/touch
    /bin/grep /bin/sed /usr/bin/awk /usr/bin/mawk /bin/kill /bin/true /bin/false /usr/bin/id /usr/bin/basename
    /usr/bin/dirname /usr/bin/find /usr/bin/xargs /usr/bin/realpath /usr/bin/yes)
n=0
for b in "${pkgbins[@]}" "${basics[@]}"; do
    if [ -e "$rootfs$b" ]; then copy_elf "$b"; n=$((n + 1)); fi
done
# dlopen()ed at run time, so ldd does not see them: the rxe verbs provider, libgcc_s (glibc loads
# it at pthread_exit/cancel), the files NSS module.
copy_path /etc/libibverbs.d/rxe.driver
for lib in /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav*.so /lib/x86_64-linux-gnu/libgcc_s.so.1 \
           /lib/x86_64-linux-gnu/libnss_files.so.2; do
    for l in $rootfs$lib; do [ -e "$l" ] && copy_elf "${l#"$rootfs"}"; done
done
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$stage/etc/passwd"
printf 'root:x:0:\n' >"$stage/etc/group"
printf 'passwd: files\ngroup: files\nhosts: files\nservices: files\n' >"$stage/etc/nsswitch.conf"
printf '127.0.0.1\tlocalhost\n::1\tlocalhost\n' >"$stage/etc/hosts"
cp -a "$rootfs/etc/services" "$stage/etc/services" 2>/dev/null || true
ldconfig -r "$stage" 2>/dev/null || true

# Kernel modules with their dependencies.
# vfio, vfio_pci, vfio_iommu_type1: the VFIO test (scripts/vfio/guest-test.sh) binds a PCI device to vfio-pci;
# loaded by that test only, not by /init.
mods=(virtio_pci virtio_net virtio_console crc32_generic rdma_rxe ib_uverbs rdma_ucm vfio vfio_pci vfio_iommu_type1)
mkdir -p "$stage/lib/modules/$kver"
nmod=0
for m in "${mods[@]}"; do
    while read -r kind path _; do
        [ "$kind" = insmod ] || continue
        rel=${path#"$kmodbase"/lib/modules/"$kver"/}
        mkdir -p "$stage/lib/modules/$kver/$(dirname "$rel")"
        if [ ! -e "$stage/lib/modules/$kver/$rel" ]; then
            cp "$path" "$stage/lib/modules/$kver/$rel"; nmod=$((nmod + 1))
        fi
    done < <(modprobe -d "$kmodbase" -S "$kver" --show-depends "$m" || die "modprobe cannot resolve $m")
done
for f in modules.order modules.builtin modules.builtin.modinfo; do
    [ -f "$kmodbase/lib/modules/$kver/$f" ] && cp "$kmodbase/lib/modules/$kver/$f" "$stage/lib/modules/$kver/"
done
depmod -b "$stage" "$kver"

install -m 755 "$here/guest/init" "$stage/init"
install -m 755 "$here/guest/peer-bridge" "$stage/usr/bin/peer-bridge"

(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) >"$out/initramfs.cpio.tmp"
mv "$out/initramfs.cpio.tmp" "$out/initramfs.cpio"

# --- versions -----------------------------------------------------------------------------------
ver() { chroot "$rootfs" dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo "?"; }
{
    echo "kernel $kpkg $(dpkg-deb -f "$(ls "$out/kernel-deb/${kpkg}_"*.deb | head -1)" Version)"
    for p in rdma-core ibverbs-providers ibverbs-utils perftest rdmacm-utils iproute2 socat libc6; do
        echo "$p $(ver "$p")"
    done
    echo "suite $suite"
} >"$out/VERSIONS"

echo "$inputs" >"$out/.initramfs-inputs"
say "initramfs: $n programs, $nmod modules, $(du -m "$out/initramfs.cpio" | cut -f1) MB uncompressed cpio"
say "versions: $(tr '\n' ';' <"$out/VERSIONS")"
say "done in $(elapsed): $out/$( [ -f "$out/vmlinux" ] && echo vmlinux || echo vmlinuz ), $out/initramfs.cpio"
