//! Reading the VCD files the simulator writes (`--vcd`), for the tests that check them: a small
//! reader of our own ([`read_vcd`], independent of the writers), and GTKWave's own reader
//! ([`read_vcd_with_gtkwave`]: `vcd2fst`, then `fst2vcd` back), an outside program.
use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

/// A VCD file: every variable's hierarchical names (scopes joined by `.`) by identifier code,
/// each timestamp, and each value change with its time.
#[derive(Clone, Debug, Default)]
pub struct Vcd {
    pub names: HashMap<String, Vec<String>>,
    pub times: Vec<u64>,
    /// (time, identifier code, value without its type letter).
    pub changes: Vec<(u64, String, String)>,
}

impl Vcd {
    /// The identifier codes of the variables whose hierarchical name ends with `suffix`.
    pub fn ids_ending(&self, suffix: &str) -> Vec<&String> {
        self.names
            .iter()
            .filter(|(_, n)| n.iter().any(|n| n.ends_with(suffix)))
            .map(|(id, _)| id)
            .collect()
    }

    /// Asserts that the file covers exactly the clock cycles `from..from + cycles` of a clock of
    /// period `period_ps` (the file's unit being 1 ps): the first timestamp at cycle `from`'s
    /// rising edge and `dumps` timestamps a cycle (1: after each rising edge; 2: after each
    /// edge, the second half a period later). `what` names the file in the messages.
    pub fn assert_window(&self, what: &str, from: u64, cycles: u64, period_ps: u64, dumps: u64) {
        assert!(dumps == 1 || dumps == 2, "one or two dumps a cycle");
        let last = (from + cycles - 1) * period_ps + (dumps - 1) * period_ps / 2;
        assert_eq!(
            self.times.first(),
            Some(&(from * period_ps)),
            "{what}: first timestamp"
        );
        assert_eq!(self.times.last(), Some(&last), "{what}: last timestamp");
        assert_eq!(
            self.times.len() as u64,
            dumps * cycles,
            "{what}: {dumps} dumps a cycle"
        );
    }

    /// How many times a variable whose name ends with `suffix` changes after the first
    /// timestamp (the first dump sets every value). Panics if no variable has such a name.
    pub fn changes_of(&self, suffix: &str) -> usize {
        let ids = self.ids_ending(suffix);
        assert!(!ids.is_empty(), "no signal named *{suffix}");
        let first = self.times.first().copied().unwrap_or(0);
        self.changes
            .iter()
            .filter(|(t, id, _)| *t > first && ids.contains(&id))
            .count()
    }
}

/// The command-line options that ask for the window `from..from + cycles` in `path`:
/// `--vcd PATH --vcd-from FROM --vcd-cycles CYCLES`.
pub fn vcd_options(path: &Path, from: u64, cycles: u64) -> Vec<String> {
    [
        "--vcd".to_string(),
        path.to_string_lossy().into_owned(),
        "--vcd-from".to_string(),
        from.to_string(),
        "--vcd-cycles".to_string(),
        cycles.to_string(),
    ]
    .to_vec()
}

/// Parse the VCD text at `path`. Panics on anything malformed: unbalanced scopes, a header that
/// does not end, time going backwards, a change before a timestamp or of an undeclared
/// variable, a scalar value that is not 0, 1, x or z.
pub fn read_vcd(path: &Path) -> Vcd {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    parse_vcd(&text)
}

/// [`read_vcd`] of VCD text.
pub fn parse_vcd(text: &str) -> Vcd {
    let mut tokens = text.split_whitespace().peekable();
    let (mut scope, mut names) = (Vec::<String>::new(), HashMap::new());
    let (mut times, mut changes) = (vec![], vec![]);
    let mut in_defs = true;
    let mut now = None;
    while let Some(t) = tokens.next() {
        if in_defs {
            match t {
                "$scope" => {
                    tokens.next();
                    scope.push(tokens.next().expect("a scope's name").to_string());
                }
                "$upscope" => {
                    scope.pop().expect("balanced scopes");
                }
                "$var" => {
                    let (_kind, _width) = (tokens.next(), tokens.next());
                    let id = tokens.next().expect("a variable's code").to_string();
                    let name = tokens.next().expect("a variable's name");
                    let full = format!("{}.{name}", scope.join("."));
                    names.entry(id).or_insert_with(Vec::new).push(full);
                }
                "$enddefinitions" => in_defs = false,
                _ => {}
            }
            continue;
        }
        if let Some(ts) = t.strip_prefix('#') {
            let ts: u64 = ts.parse().expect("timestamp");
            assert!(times.last().is_none_or(|&l| ts > l), "time goes forward");
            times.push(ts);
            now = Some(ts);
        } else if t.starts_with('$') {
            // $dumpvars, $end, ...
        } else if let Some(rest) = t.strip_prefix(['b', 'B', 'r', 'R', 's', 'S']) {
            let id = tokens.next().expect("vector change names its variable");
            changes.push((
                now.expect("a change after a timestamp"),
                id.to_string(),
                rest.to_string(),
            ));
        } else {
            let (v, id) = t.split_at(1);
            assert!("01xzXZ".contains(v), "bad scalar change {t}");
            changes.push((
                now.expect("a change after a timestamp"),
                id.to_string(),
                v.to_string(),
            ));
        }
    }
    assert!(scope.is_empty() && !in_defs, "incomplete VCD header");
    for (_, id, _) in &changes {
        assert!(names.contains_key(id), "change of undeclared variable {id}");
    }
    Vcd {
        names,
        times,
        changes,
    }
}

/// The VCD at `path` as GTKWave reads it: converted to GTKWave's FST format by `vcd2fst` and
/// written back as VCD by `fst2vcd` (both from Debian's `gtkwave` package), then parsed by
/// [`parse_vcd`]. Only what GTKWave understood of the file survives the round trip (its
/// hierarchy, its signals, their changes). Needs the tools ([`crate::require_tool`]): `None`
/// only under the explicit opt-out.
pub fn read_vcd_with_gtkwave(path: &Path) -> Option<Vcd> {
    if !crate::require_tool("vcd2fst") || !crate::require_tool("fst2vcd") {
        return None;
    }
    let fst = path.with_extension("fst");
    let _ = std::fs::remove_file(&fst);
    let out = Command::new("vcd2fst")
        .arg(path)
        .arg(&fst)
        .output()
        .expect("running vcd2fst");
    assert!(
        out.status.success() && fst.is_file(),
        "vcd2fst {}: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let back = Command::new("fst2vcd")
        .arg(&fst)
        .output()
        .expect("running fst2vcd");
    assert!(
        back.status.success(),
        "fst2vcd {}: {}",
        fst.display(),
        String::from_utf8_lossy(&back.stderr)
    );
    Some(parse_vcd(&String::from_utf8_lossy(&back.stdout)))
}
