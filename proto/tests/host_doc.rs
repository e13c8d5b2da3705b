//! docs/HOST-INTERFACE.md and `host::regs::REGISTERS` must describe the same register map.
//! The document's register table (header `| Name | Offset | Access | Description |`) is parsed
//! and compared with the code in both directions: name, offset, access and array-ness.

use ferroce_proto::host::regs::{Access, REGISTERS};
use std::collections::BTreeMap;

const DOC: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../docs/HOST-INTERFACE.md"
));

#[derive(Debug, PartialEq, Eq)]
struct Row {
    offset: u32,
    access: Access,
    array: bool,
}

fn cells(line: &str) -> Vec<String> {
    let t = line.trim();
    let t = t.strip_prefix('|').unwrap_or(t);
    let t = t.strip_suffix('|').unwrap_or(t);
    t.split('|').map(|c| c.trim().to_string()).collect()
}

fn parse_offset(s: &str) -> u32 {
    let s = s.trim_matches('`').replace('_', "");
    let hex = s
        .strip_prefix("0x")
        .unwrap_or_else(|| panic!("offset {s:?} is not 0x-hex"));
    u32::from_str_radix(hex, 16).unwrap_or_else(|e| panic!("offset {s:?}: {e}"))
}

/// Rows of the register table, keyed by name (without `[n]`).
fn doc_registers() -> BTreeMap<String, Row> {
    let mut lines = DOC
        .lines()
        .skip_while(|l| cells(l) != ["Name", "Offset", "Access", "Description"]);
    assert!(
        lines.next().is_some(),
        "register table header not found in HOST-INTERFACE.md"
    );
    let sep = lines.next().expect("table separator");
    assert!(
        sep.trim_start().starts_with("|-") || sep.trim_start().starts_with("| -"),
        "bad separator {sep:?}"
    );
    let mut out = BTreeMap::new();
    for line in lines.take_while(|l| l.trim_start().starts_with('|')) {
        let c = cells(line);
        assert_eq!(c.len(), 4, "register table row needs 4 cells: {line:?}");
        let raw = c[0].trim_matches('`');
        let (name, array) = match raw.strip_suffix("[n]") {
            Some(n) => (n.to_string(), true),
            None => (raw.to_string(), false),
        };
        let access =
            Access::parse(&c[2]).unwrap_or_else(|| panic!("bad access {:?} in {line:?}", c[2]));
        let row = Row {
            offset: parse_offset(&c[1]),
            access,
            array,
        };
        assert!(
            out.insert(name.clone(), row).is_none(),
            "{name} listed twice in the document"
        );
    }
    out
}

#[test]
fn doc_table_matches_code_both_ways() {
    let doc = doc_registers();
    let code: BTreeMap<String, Row> = REGISTERS
        .iter()
        .map(|r| {
            (
                r.name.to_string(),
                Row {
                    offset: r.offset,
                    access: r.access,
                    array: r.count > 1,
                },
            )
        })
        .collect();
    let mut problems = Vec::new();
    for (name, row) in &code {
        match doc.get(name) {
            None => problems.push(format!(
                "{name} ({:#x}) is in the code but not in the document",
                row.offset
            )),
            Some(d) if d != row => problems.push(format!(
                "{name}: document {:#x} {:?} array={}, code {:#x} {:?} array={}",
                d.offset, d.access, d.array, row.offset, row.access, row.array
            )),
            _ => {}
        }
    }
    for name in doc.keys().filter(|n| !code.contains_key(*n)) {
        problems.push(format!("{name} is in the document but not in the code"));
    }
    assert!(
        problems.is_empty(),
        "HOST-INTERFACE.md and regs::REGISTERS disagree:\n{}",
        problems.join("\n")
    );
}

#[test]
fn doc_states_the_code_version() {
    let v = ferroce_proto::host::HOST_INTERFACE_VERSION;
    let needle = format!("Host interface version {}.{}", v.major, v.minor);
    assert!(
        DOC.contains(&needle),
        "HOST-INTERFACE.md must say {needle:?}"
    );
}

/// Descriptions go into a markdown table: they must not break it.
#[test]
fn descriptions_are_table_safe() {
    for r in REGISTERS {
        assert!(
            !r.description.contains('|') && !r.description.contains('\n'),
            "{}",
            r.name
        );
        assert!(!r.description.is_empty(), "{}", r.name);
    }
}

/// `cargo test -p ferroce-proto --test host_doc -- --ignored --nocapture` prints the table in
/// the document's format, to paste after changing the register map.
#[test]
#[ignore]
fn print_register_table() {
    println!("| Name | Offset | Access | Description |");
    println!("|---|---|---|---|");
    for r in REGISTERS {
        let off = if r.offset > 0xFFFF {
            format!("0x{:02X}_{:04X}", r.offset >> 16, r.offset & 0xFFFF)
        } else {
            format!("0x{:04X}", r.offset)
        };
        let desc = if r.count > 1 {
            format!(
                "{} (n < {}, stride {:#x})",
                r.description, r.count, r.stride
            )
        } else {
            r.description.to_string()
        };
        println!(
            "| `{}` | {} | {} | {} |",
            r.doc_name(),
            off,
            r.access.as_str(),
            desc
        );
    }
}
