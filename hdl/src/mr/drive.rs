//! Plain-Rust driving of an [`MrTable`] through a [`Stepper`] (the rust-hdl [`crate::testbench::Bench`]
//! or the co-simulation harness), one cycle at a time: the inputs of a cycle, and what the
//! block showed in that cycle. Not synthesised.
use super::MrTable;
use crate::testbench::Stepper;

/// One lookup request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Lookup {
    pub key: u32,
    pub pd: u32,
    /// Mask of `ACCESS_*` bits (4 bits).
    pub need: u8,
    pub va: u64,
    pub len: u64,
    pub remote: bool,
    pub tag: u8,
}

/// One lookup response (`resp_*` while `resp_valid`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Response {
    pub ok: bool,
    /// `CODE_*`.
    pub code: u64,
    pub zero: bool,
    pub addr: u64,
    pub remote: bool,
    pub tag: u8,
}

/// The fields of one table entry as the programming port carries them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct EntryFields {
    pub key8: u8,
    pub pd: u32,
    pub access: u8,
    pub va: u64,
    pub len: u64,
    pub dma: u64,
}

/// A programming command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmd {
    Write { index: u32, entry: EntryFields },
    Invalidate { index: u32 },
    Query { index: u32 },
    Clear,
}

/// The `q_*` outputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct QueryOut {
    pub valid: bool,
    pub entry: EntryFields,
}

/// The inputs of one cycle.
#[derive(Clone, Copy, Debug, Default)]
pub struct CycleIn {
    pub lookup: Option<Lookup>,
    pub cmd: Option<Cmd>,
}

/// What the block showed during one cycle (sampled after settling, before the edge).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CycleOut {
    /// `req_ready` (a presented lookup was accepted at the end of this cycle if true).
    pub ready: bool,
    pub resp: Option<Response>,
    pub busy: bool,
    pub done: bool,
    pub query: QueryOut,
}

/// Drive the inputs of one cycle. The lookup inputs and the command strobes are written every
/// cycle (absent = 0); `cmd_index` and `wr_*` only when a command carries them, so they stay
/// as the last command left them. A caller that raises a strobe while `cmd_busy` (ignored by
/// the block) must repeat the running command's index and fields.
pub fn drive<const A: usize>(u: &mut MrTable<A>, inp: &CycleIn) {
    let l = inp.lookup.unwrap_or_default();
    u.req_valid.next = inp.lookup.is_some();
    u.req_key.next = (l.key as u64).into();
    u.req_pd.next = ((l.pd & 0xFF_FFFF) as u64).into();
    u.req_need.next = ((l.need & 0xF) as u64).into();
    u.req_va.next = l.va.into();
    u.req_len.next = l.len.into();
    u.req_remote.next = l.remote;
    u.req_tag.next = (l.tag as u64).into();
    // strobes; cmd_index and wr_* are written only with a command and otherwise keep their
    // value (the block requires them held until cmd_done, like the CSR staging registers)
    u.cmd_write.next = matches!(inp.cmd, Some(Cmd::Write { .. }));
    u.cmd_invalidate.next = matches!(inp.cmd, Some(Cmd::Invalidate { .. }));
    u.cmd_query.next = matches!(inp.cmd, Some(Cmd::Query { .. }));
    u.cmd_clear.next = matches!(inp.cmd, Some(Cmd::Clear));
    let index = match inp.cmd {
        Some(Cmd::Write { index, .. } | Cmd::Invalidate { index } | Cmd::Query { index }) => {
            Some(index)
        }
        _ => None,
    };
    if let Some(index) = index {
        assert!(
            (index as u64) < (1u64 << A),
            "cmd index {index} out of the table"
        );
        u.cmd_index.next = (index as u64).into();
    }
    if let Some(Cmd::Write { entry: e, .. }) = inp.cmd {
        u.wr_key8.next = (e.key8 as u64).into();
        u.wr_pd.next = ((e.pd & 0xFF_FFFF) as u64).into();
        u.wr_access.next = ((e.access & 0xF) as u64).into();
        u.wr_va.next = e.va.into();
        u.wr_len.next = e.len.into();
        u.wr_dma.next = e.dma.into();
    }
}

/// Read the outputs (after a settle).
pub fn sample<const A: usize>(u: &MrTable<A>) -> CycleOut {
    let resp = u.resp_valid.val().then(|| Response {
        ok: u.resp_ok.val(),
        code: u.resp_code.val().to_u64(),
        zero: u.resp_zero.val(),
        addr: u.resp_addr.val().to_u64(),
        remote: u.resp_remote.val(),
        tag: u.resp_tag.val().to_u64() as u8,
    });
    CycleOut {
        ready: u.req_ready.val(),
        resp,
        busy: u.cmd_busy.val(),
        done: u.cmd_done.val(),
        query: QueryOut {
            valid: u.q_valid.val(),
            entry: EntryFields {
                key8: u.q_key8.val().to_u64() as u8,
                pd: u.q_pd.val().to_u64() as u32,
                access: u.q_access.val().to_u64() as u8,
                va: u.q_va.val().to_u64(),
                len: u.q_len.val().to_u64(),
                dma: u.q_dma.val().to_u64(),
            },
        },
    }
}

/// One whole cycle: drive, settle, sample, rising edge.
pub fn step<const A: usize, S: Stepper<MrTable<A>>>(s: &mut S, inp: &CycleIn) -> CycleOut {
    drive(s.uut(), inp);
    s.settle();
    let out = sample(s.uut());
    s.tick();
    out
}
