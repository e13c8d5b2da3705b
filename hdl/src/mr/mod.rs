//! Memory protection in hardware: the MR key table ([`MrTable`]), which checks every local and
//! remote memory access of the NIC and translates its address (IBTA Vol 1, 10.6; docs/PROTOCOL.md
//! §10, docs/HOST-INTERFACE.md section 6.2, `ferroce_proto::host::mr`).
//!
//! # The rule (identical to `ferroce_proto::host::mr::MrEntry::check`)
//!
//! A request `{key, pd, need, va, len, remote}` is answered, in this order:
//!
//! 1. `len == 0`: **ok, nothing checked**, `resp_zero = 1`, `resp_addr = 0` ("no
//!    translation"). This applies whatever the key, PD, rights, VA or `remote`: rxe never looks
//!    an MR up for a zero-length RDMA READ/WRITE (RETH length 0, IBA C9-88) nor for a zero-length
//!    SGE (`copy_data`), so there is no entry to check against. A consumer that must refuse
//!    something about a zero-length request (QP access flags, opcode rules) does so itself.
//! 2. `key >> 8 >= 2^A` (index out of the table), or the entry is not valid, or a CLEAR is
//!    running: `CODE_INVALID`.
//! 3. the full 32-bit key differs (`key8 != entry.key8`; the index matched by construction):
//!    `CODE_KEY`. Re-registering a slot with a new key8 makes old keys fail here.
//! 4. `pd != entry.pd` (24 bits): `CODE_PD`.
//! 5. `(need & entry.access) != need`, i.e. the entry lacks a right the access needs
//!    (`need` is a mask; one-hot in practice; 0 for a local gather, which needs no right), or
//!    `remote` and `need` names no REMOTE_* right (a remote access always needs one; this only
//!    refuses a malformed request): `CODE_ACCESS`.
//! 6. not (`va >= base && len <= length && va - base <= length - len`), computed on 64 bits
//!    with no overflow anywhere (docs/PROTOCOL.md §10, rxe's `mr_check_range`): `CODE_RANGE`.
//! 7. otherwise ok, `resp_addr = va - base + dma` (mod 2^64; the driver guarantees
//!    `dma + length` does not overflow, `MrEntry::validate`).
//!
//! The hardware stores 4 access bits (LOCAL_WRITE 1, REMOTE_WRITE 2, REMOTE_READ 4,
//! REMOTE_ATOMIC 8) and does not enforce the verbs rule "REMOTE_WRITE/ATOMIC needs LOCAL_WRITE"
//! nor `va + length` overflow on WRITE: that is the CSR block's BadValue check
//! (`MrEntry::validate`).
//!
//! # Ports and timing ([`MrTable`])
//!
//! * Lookup request: `req_valid`/`req_ready` plus `req_key`, `req_pd`, `req_need`, `req_va`,
//!   `req_len`, `req_remote`, `req_tag`. A request is accepted at a rising edge where
//!   `req_valid & req_ready`. `req_ready` is a register output (it never depends on any input)
//!   and is low only in the one cycle after a WRITE, INVALIDATE or QUERY strobe, when the
//!   command uses the RAMs; lookups are otherwise sustained at one per cycle.
//! * Response: fixed latency [`LATENCY`] = 5 cycles, no back-pressure. A request presented in
//!   cycle `c` and accepted at the edge ending `c` has its response on `resp_*` during cycle
//!   `c + 5`, with `resp_valid = 1` for exactly that cycle; `resp_tag` and `resp_remote` echo
//!   the request. When `resp_valid = 0` every `resp_*` output is 0. All outputs are registers.
//! * Programming (the CSR block's MR command window): one-cycle strobes `cmd_write`,
//!   `cmd_invalidate`, `cmd_query`, `cmd_clear` with `cmd_index` (and `wr_*` for WRITE),
//!   taken when `cmd_busy = 0` and ignored otherwise (if several are raised together,
//!   CLEAR > WRITE > INVALIDATE > QUERY). **`cmd_index` and `wr_*` must stay unchanged from
//!   the strobe until `cmd_done`** (the command window's staging registers do: the window
//!   ignores writes while BUSY); the block does not copy them. `cmd_busy` rises in the cycle
//!   after the strobe; `cmd_done` is a one-cycle strobe in the first cycle with `cmd_busy = 0`
//!   again, so a new command may be issued in the `cmd_done` cycle.
//!   * WRITE / INVALIDATE strobed in cycle `c`: written at the edge ending `c + 1`
//!     (`req_ready = 0` in `c + 1`); `cmd_done` in cycle `c + 5`. INVALIDATE clears only the
//!     valid bit (QUERY still shows the fields).
//!   * QUERY in cycle `c`: the RAMs are read at the edge ending `c + 1` (`req_ready = 0` in
//!     `c + 1`); `q_*` show the entry and its valid bit from cycle `c + 4`, the `cmd_done`
//!     cycle, until the next QUERY completes.
//!   * CLEAR in cycle `c`: valid bits cleared one per cycle at the edges ending
//!     `c + 1 .. c + 2^A`; `cmd_done` in cycle `c + 2^A + 1`. Lookups keep flowing and those
//!     accepted while CLEAR runs (cycles `c + 1 .. c + 2^A`) are answered `CODE_INVALID`.
//!   At power-up every RAM row is 0 (all entries invalid) without a CLEAR.
//!
//! # Write-versus-lookup ordering
//!
//! For a WRITE or INVALIDATE strobed in cycle `c`: lookups accepted in cycles `<= c` see the
//! old entry, no lookup is accepted in cycle `c + 1`, lookups accepted in cycles `>= c + 2`
//! see the new one. `cmd_done` comes in cycle `c + 5`, the cycle in which the last lookup that
//! saw the old entry (the one of cycle `c`) delivers its response. So when an INVALIDATE
//! reports done, every lookup that passed with the old entry has already been answered; the
//! consumer must still drain its own in-flight DMA before the CSR block reports the command
//! done to the host (HOST-INTERFACE 6.2).
//!
//! # Storage
//!
//! Eight zero-initialised simple dual-port RAMs of `2^A` rows ([`crate::widget::NoRwRam`], marked
//! `no_rw_check`: the table never uses a row read at an edge where that RAM is written, so no
//! collision logic is needed).
//!
//! Measured for `MrTable1k` (Yosys 0.23, `hdl/tests/mr_tools.rs`): ECP5 15 DP16KD, 382 LUT4,
//! 213 CCU2C, 1281 FF; Xilinx 7-series 7 RAMB36E1 + 1 RAMB18E1, 465 LUT, 89 CARRY4, 1281 FF.
//! nextpnr-ecp5 out of context on an LFE5U-85F: 120-129 MHz (3 seeds), the limit being the
//! DP16KD clock-to-out (5.8 ns, no output register) plus routing to the first fabric register.
pub mod drive;
pub mod table;

pub use table::MrTable;

/// The default build: 1024 entries (key index 0..1023).
pub type MrTable1k = MrTable<10>;

/// Fixed lookup latency in cycles (request cycle to response cycle).
pub const LATENCY: u64 = 5;
/// Cycles a WRITE/INVALIDATE keeps `cmd_busy` high (the lookup pipeline drain).
pub const DRAIN_CYCLES: u64 = LATENCY - 1;
/// Largest supported `A` (2^16 entries; the simulation model keeps every row in memory).
pub const MAX_ADDR_BITS: usize = 16;

/// `resp_code` values.
pub const CODE_NONE: u64 = 0;
pub const CODE_INVALID: u64 = 1;
pub const CODE_KEY: u64 = 2;
pub const CODE_PD: u64 = 3;
pub const CODE_ACCESS: u64 = 4;
pub const CODE_RANGE: u64 = 5;

/// Access right bits (`ibv_access_flags`), as stored and as used in `req_need`.
pub const ACCESS_LOCAL_WRITE: u64 = 1;
pub const ACCESS_REMOTE_WRITE: u64 = 2;
pub const ACCESS_REMOTE_READ: u64 = 4;
pub const ACCESS_REMOTE_ATOMIC: u64 = 8;
pub const REMOTE_ANY: u64 = ACCESS_REMOTE_WRITE | ACCESS_REMOTE_READ | ACCESS_REMOTE_ATOMIC;

/// Name of a `resp_code` value.
pub fn code_name(code: u64) -> &'static str {
    match code {
        CODE_NONE => "none",
        CODE_INVALID => "invalid",
        CODE_KEY => "key mismatch",
        CODE_PD => "PD mismatch",
        CODE_ACCESS => "access",
        CODE_RANGE => "range",
        _ => "?",
    }
}

#[cfg(test)]
mod tests;
