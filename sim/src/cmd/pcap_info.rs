//! `ferroce pcap-info FILE`: one JSON object per frame, then a summary object.
//!
//! Pure software decoding with the proto crate (no hardware involved): this is the reference
//! view that `rx-replay` (the same frames through the HDL receive path) is compared against.

use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::process::ExitCode;

use ferroce_proto::pcap;
use ferroce_proto::wire::FrameRepr;
use serde_json::{json, Value};

use super::CliError;
use crate::report::{frame_fields, Tally};

pub fn run(file: &Path) -> Result<ExitCode, CliError> {
    let capture = pcap::read_file(file)
        .and_then(|c| c.ensure_ethernet())
        .map_err(|e| CliError(e.to_string()))?;
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut tally = Tally::default();
    for (index, record) in capture.records.iter().enumerate() {
        let mut fields = match FrameRepr::parse(&record.data) {
            Ok(frame) => frame_fields(&frame),
            Err(err) => {
                // Identified as RoCE/PFC but inconsistent, or shorter than an Ethernet header.
                let mut o = serde_json::Map::new();
                o.insert("kind".into(), json!("other"));
                o.insert("len".into(), json!(record.data.len()));
                o.insert("error".into(), json!(err.to_string()));
                o
            }
        };
        tally.add(&fields);
        let mut line = serde_json::Map::new();
        line.insert("frame".into(), json!(index + 1));
        line.append(&mut fields);
        writeln!(out, "{}", Value::Object(line))?;
    }
    writeln!(out, "{}", Value::Object(tally.to_json()))?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
