//! The driver's generic VFIO layer on a real Linux kernel: `scripts/vfio/guest-test.sh` boots
//! the QEMU guest of `scripts/peer` on a q35 machine with a virtual Intel VT-d IOMMU and QEMU's
//! `edu` PCI device, binds edu to vfio-pci and runs `ferroce-vfio-edu` in it. That program opens
//! the device through [`ferroce_driver::backend::vfio::VfioDevice`], maps BAR0, has edu's DMA
//! engine move seeded data through IOMMU-mapped buffers (compared byte for byte), and requires
//! DMA at unmapped IOVAs, and at the IOVA of a dropped buffer, to come back as
//! `VfioError::DmaFault` with the right direction and page.
//!
//! Needs root, QEMU, debootstrap, cpio and kmod (`scripts/peer/install-host-deps.sh`) and
//! Debian's package mirror to build the guest once (`scripts/peer/build-guest.sh`, cached in
//! `target/peer/guest`). Without them, or without root, the test fails naming what to do
//! (docs/TESTING.md).
use ferroce_testkit::{require_tool, workspace_root as repo};
use std::process::Command;

#[test]
fn vfio_layer_drives_edu_dma_behind_a_virtual_iommu() {
    for tool in ["qemu-system-x86_64", "debootstrap", "cpio", "depmod"] {
        if !require_tool(tool) {
            return;
        }
    }
    let Some(guest) = ferroce_testkit::live_guest("VFIO guest test") else {
        return;
    };
    let repo = repo();

    let out = Command::new("bash")
        .arg(repo.join("scripts/vfio/guest-test.sh"))
        .arg("--bin")
        .arg(env!("CARGO_BIN_EXE_ferroce-vfio-edu"))
        .arg("--guest")
        .arg(&guest)
        .args(["--timeout", "90"])
        .output()
        .expect("running guest-test.sh");
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    eprintln!("{}", String::from_utf8_lossy(&out.stderr));
    let has = |s: &str| {
        stdout
            .lines()
            .any(|l| l.starts_with("vfio-edu:") && l.contains(s))
    };
    assert!(
        stdout.contains("bound to vfio-pci, IOMMU group"),
        "edu was not bound to vfio-pci behind the IOMMU"
    );
    assert!(has("identical byte for byte"), "no verified DMA round trip");
    for (what, fault) in [
        (
            "read at unmapped IOVA 0x8000000",
            "DMA read at IOVA page 0x8000000",
        ),
        (
            "write at unmapped IOVA 0x9003040",
            "DMA write at IOVA page 0x9003000",
        ),
        ("of a dropped buffer", "DMA write at IOVA page"),
    ] {
        assert!(
            stdout
                .lines()
                .any(|l| l.contains(what) && l.contains("IOMMU fault") && l.contains(fault)),
            "{what}: not reported as an IOMMU fault ({fault})"
        );
    }
    assert!(has("still moves data correctly"));
    assert!(has("PASS"), "the program did not pass");
    assert!(out.status.success(), "guest-test.sh exited {}", out.status);
}
