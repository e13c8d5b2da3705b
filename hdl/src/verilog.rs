//! Verilog emission of the top-level blocks, and helpers shared by the tool tests.
//!
//! [`emit_verilog`] writes one file per top-level block (`<module>.v`, module named
//! `<module>`; sub-modules are `<module>$<child>` as rust-hdl names them), so several blocks can
//! be read into one synthesis project without module-name clashes (rust-hdl's own
//! `generate_verilog` always names the top module `top`).
use rust_hdl::prelude::*;
use std::path::{Path, PathBuf};

/// Verilog of one block with its top module named `module` (runs rust-hdl's `check_all` first,
/// panicking with its error on a badly connected design). The block must have been
/// `connect_all()`ed (this function does it on a clone-free basis: pass a fresh block).
pub fn block_verilog<B: Block>(uut: &mut B, module: &str) -> String {
    uut.connect_all();
    if let Err(e) = check_all(uut) {
        panic!("rust-hdl check_all failed for {module}: {e:?}");
    }
    let mut defines = ModuleDefines::default();
    uut.accept(module, &mut defines);
    let v = defines.defines();
    let bad = keyword_declarations(&v);
    assert!(
        bad.is_empty(),
        "{module}: signals named after Verilog keywords (rename the fields): {bad:?}"
    );
    v
}

/// (System)Verilog keywords that rust-hdl would happily emit as signal names (it only rejects
/// `config wire reg module edge disable`).
pub const VERILOG_KEYWORDS: &[&str] = &[
    "always",
    "and",
    "assign",
    "automatic",
    "begin",
    "bit",
    "buf",
    "byte",
    "case",
    "casex",
    "casez",
    "cell",
    "class",
    "const",
    "default",
    "design",
    "do",
    "else",
    "end",
    "endcase",
    "endfunction",
    "endgenerate",
    "endmodule",
    "endtask",
    "enum",
    "event",
    "final",
    "for",
    "force",
    "forever",
    "fork",
    "function",
    "generate",
    "genvar",
    "if",
    "import",
    "initial",
    "inout",
    "input",
    "int",
    "integer",
    "interface",
    "join",
    "large",
    "library",
    "localparam",
    "logic",
    "longint",
    "macromodule",
    "medium",
    "nand",
    "negedge",
    "nor",
    "not",
    "or",
    "output",
    "package",
    "parameter",
    "posedge",
    "primitive",
    "priority",
    "program",
    "property",
    "pulldown",
    "pullup",
    "real",
    "realtime",
    "release",
    "repeat",
    "return",
    "scalared",
    "shortint",
    "signed",
    "small",
    "specify",
    "static",
    "string",
    "struct",
    "supply0",
    "supply1",
    "table",
    "task",
    "time",
    "tri",
    "type",
    "typedef",
    "union",
    "unique",
    "unsigned",
    "use",
    "var",
    "vectored",
    "void",
    "wait",
    "wand",
    "while",
    "wor",
    "xnor",
    "xor",
    "config",
    "wire",
    "reg",
    "module",
    "edge",
    "disable",
];

/// Names declared in `v` (ports, regs, wires, localparams) that are Verilog keywords.
pub fn keyword_declarations(v: &str) -> Vec<String> {
    let mut bad = vec![];
    for line in v.lines() {
        let t = line.trim();
        let decl = [
            "input ",
            "output ",
            "inout ",
            "reg ",
            "wire ",
            "localparam ",
        ]
        .iter()
        .any(|p| t.starts_with(p));
        if !decl || !t.ends_with(';') {
            continue;
        }
        let body = t.trim_end_matches(';');
        let body = body.split('=').next().unwrap_or("");
        if let Some(name) = body.split_whitespace().last() {
            if VERILOG_KEYWORDS.contains(&name) {
                bad.push(name.to_string());
            }
        }
    }
    bad
}

/// One emitted top-level block: module name and Verilog text.
pub struct Emitted {
    pub module: String,
    pub verilog: String,
}

/// The Verilog of every top-level block of the design (64-bit profile).
///
/// Blocks with a flat descriptor port (`*Flat`) are emitted rather than their struct-port twins:
/// vendor flows and the co-simulation harness see plain bit vectors.
pub fn all_blocks() -> Vec<Emitted> {
    let mut v = vec![];
    let mut push = |module: &str, verilog: String| {
        v.push(Emitted {
            module: module.to_string(),
            verilog,
        })
    };
    push(
        "ferroce_stream_skid_64",
        block_verilog(
            &mut crate::widget::StreamSkid::<64, 8>::default(),
            "ferroce_stream_skid_64",
        ),
    );
    push(
        "ferroce_icrc_checker_64",
        block_verilog(
            &mut crate::icrc::IcrcChecker64::default(),
            "ferroce_icrc_checker_64",
        ),
    );
    push(
        "ferroce_icrc_generator_64",
        block_verilog(
            &mut crate::icrc::IcrcGenerator64::default(),
            "ferroce_icrc_generator_64",
        ),
    );
    push(
        "ferroce_tx_header_builder_64",
        block_verilog(
            &mut crate::tx::TxHeaderBuilderFlat::default(),
            "ferroce_tx_header_builder_64",
        ),
    );
    push(
        "ferroce_rx_parser_64",
        block_verilog(
            &mut crate::rx::RxParserFlat64::default(),
            "ferroce_rx_parser_64",
        ),
    );
    push(
        "ferroce_mr_table_1k",
        block_verilog(&mut crate::mr::MrTable1k::default(), "ferroce_mr_table_1k"),
    );
    push(
        "ferroce_rc_write_responder_64",
        block_verilog(
            &mut crate::resp::RcWriteResponderFlat64::default(),
            "ferroce_rc_write_responder_64",
        ),
    );
    push(
        "ferroce_nic_64",
        block_verilog(&mut crate::nic::NicTop::default(), "ferroce_nic_64"),
    );
    push(
        "ferroce_dma_axi4_64",
        block_verilog(
            &mut crate::board::DmaAxi4Bridge::default(),
            "ferroce_dma_axi4_64",
        ),
    );
    push(
        "ferroce_csr",
        block_verilog(&mut crate::csr::CsrBlockDefault::default(), "ferroce_csr"),
    );
    v
}

/// Module name of the ECPIX-5 85F board top level ([`crate::board::Ecpix5Top`]).
pub const ECPIX5_TOP: &str = "ferroce_ecpix5_top";

/// The board top levels: whole designs with vendor primitives (PLL, DDR I/O), for synthesis
/// and place and route only. Kept out of [`all_blocks`], whose blocks are linted and simulated
/// with Verilator and Icarus, which have no models of the vendor's cells.
pub fn board_tops() -> Vec<Emitted> {
    vec![Emitted {
        module: ECPIX5_TOP.to_string(),
        verilog: block_verilog(&mut crate::board::Ecpix5Top::default(), ECPIX5_TOP),
    }]
}

/// Write `<module>.v` for every top-level block and board top level into `out_dir` (created if
/// needed); returns the written paths. Used by the CLI `ferroce verilog --out DIR`.
pub fn emit_verilog(out_dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(out_dir)?;
    let mut paths = vec![];
    for e in all_blocks().into_iter().chain(board_tops()) {
        let p = out_dir.join(format!("{}.v", e.module));
        std::fs::write(&p, &e.verilog)?;
        paths.push(p);
    }
    Ok(paths)
}
