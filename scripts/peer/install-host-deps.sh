#!/usr/bin/env bash
# Installs the host packages the Soft-RoCE peer harness needs (Debian). Safe to re-run.
#   qemu-system-x86 - runs the Linux guests (TCG; no KVM needed)
#   debootstrap     - builds the guest userland
#   cpio, kmod, xz-utils - initramfs assembly, module dependency resolution
#   socat           - optional host-side helper (the harness's own relay is Python)
# Note: installing Debian 12's qemu-system-x86 (7.2) may replace a newer qemu-utils.
set -euo pipefail
need=()
command -v qemu-system-x86_64 >/dev/null || need+=(qemu-system-x86)
command -v debootstrap >/dev/null || need+=(debootstrap)
command -v cpio >/dev/null || need+=(cpio)
command -v depmod >/dev/null || need+=(kmod)
command -v xz >/dev/null || need+=(xz-utils)
command -v socat >/dev/null || need+=(socat)
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  echo "install-host-deps: installing ${need[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
else
  echo "install-host-deps: all present"
fi
