//! Area measurement aid: writes the Verilog of each CSR sub-block (default build) to the
//! directory named by `CSR_AREA_DIR`, for a stand-alone Yosys `synth_ecp5` run per block.
//! Ignored by default: `CSR_AREA_DIR=<dir> cargo test --release -p ferroce-hdl csr::area -- --ignored`.
use super::ctx::CtxWindows;
use super::doorbell::CsrDoorbells;
use super::global::CsrGlobal;
use super::mr_window::MrWindow;
use super::CsrParams;
use rust_hdl::prelude::*;

fn dump<B: Block>(uut: &mut B, name: &str) {
    let Ok(dir) = std::env::var("CSR_AREA_DIR") else {
        eprintln!("CSR_AREA_DIR not set: nothing written");
        return;
    };
    let v = crate::verilog::block_verilog(uut, "top");
    let path = std::path::Path::new(&dir).join(format!("{name}.v"));
    std::fs::write(&path, v).expect("write Verilog");
}

#[test]
#[ignore]
fn area_dump_glob() {
    dump(&mut CsrGlobal::new(&CsrParams::default(), 8, 8, 10), "glob");
}

#[test]
#[ignore]
fn area_dump_db() {
    dump(&mut CsrDoorbells::<8, 8>::default(), "db");
}

#[test]
#[ignore]
fn area_dump_ctx() {
    dump(&mut CtxWindows::<8, 8>::new(&CsrParams::default()), "ctx");
}

#[test]
#[ignore]
fn area_dump_mrw() {
    dump(&mut MrWindow::<10>::default(), "mrw");
}
