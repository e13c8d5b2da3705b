//! [`InflightTable`]: the requester's send window, one row per WQE sent and not retired yet,
//! `2^WIN_LOG2` rows per QP (decisions in the [module documentation](super)).
//!
//! The table is one block RAM addressed by `{qpn, wqe index mod 2^WIN_LOG2}`: the row of the
//! QP's consumer index is its oldest outstanding WQE, the rows after it up to the window's
//! high index the later ones, in posting order. A row holds what retirement and Go-Back-N need
//! without reading the WQE again: its last PSN (its first is the previous row's last PSN + 1,
//! or the QP's window start for the oldest), its wr_id, its completion opcode (which also says
//! its kind: SEND / WRITE retire on a plain ACK, READ only by its last response, an atomic only
//! by its ATOMIC ACKNOWLEDGE) and whether it was signaled.
//!
//! # Ports
//!
//! * `rd_addr` / `rd_data`: read port, the row one cycle after its address (block RAM).
//! * `wr_en`, `wr_addr`, `wr_data`: write port.
use rust_hdl::prelude::*;

/// log2 of the send window: WQEs in flight per QP.
pub const WIN_LOG2: usize = 4;
/// WQEs in flight per QP (rows of the in-flight table per QP).
pub const WINDOW: usize = 1 << WIN_LOG2;

/// One WQE in flight (a row of the in-flight table).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, LogicStruct)]
pub struct InflightSlot {
    /// The WQE's last PSN (a READ: the PSN of its last response).
    pub last_psn: Bits<24>,
    /// The work request id for its completion.
    pub wr_id: Bits<64>,
    /// Its completion opcode (`CqeOpcode`: 0 SEND, 1 RDMA WRITE, 2 RDMA READ, 3 compare-swap,
    /// 4 fetch-add), which is also its kind.
    pub opcode: Bits<3>,
    /// A CQE is written when it retires.
    pub signaled: Bit,
}

/// Bits of one row.
pub const SLOT_BITS: usize = <InflightSlot as Synth>::BITS;

#[derive(LogicBlock)]
pub struct InflightTable<const A: usize> {
    pub clock: Signal<In, Clock>,
    pub rd_addr: Signal<In, Bits<A>>,
    pub rd_data: Signal<Out, InflightSlot>,
    pub wr_en: Signal<In, Bit>,
    pub wr_addr: Signal<In, Bits<A>>,
    pub wr_data: Signal<In, InflightSlot>,
    ram: RAM<InflightSlot, A>,
}

impl<const A: usize> Default for InflightTable<A> {
    fn default() -> Self {
        InflightTable {
            clock: Default::default(),
            rd_addr: Default::default(),
            rd_data: Default::default(),
            wr_en: Default::default(),
            wr_addr: Default::default(),
            wr_data: Default::default(),
            ram: RAM::from((0..(1usize << A)).map(|_| InflightSlot::default())),
        }
    }
}

impl<const A: usize> Logic for InflightTable<A> {
    #[hdl_gen]
    fn update(&mut self) {
        self.ram.read_clock.next = self.clock.val();
        self.ram.write_clock.next = self.clock.val();
        self.ram.read_address.next = self.rd_addr.val();
        self.rd_data.next = self.ram.read_data.val();
        self.ram.write_address.next = self.wr_addr.val();
        self.ram.write_data.next = self.wr_data.val();
        self.ram.write_enable.next = self.wr_en.val();
    }
}

/// Reference model of cumulative retirement (plain Rust): the rows of one QP from its oldest,
/// as `(last PSN, kind)`, the window's first PSN and an ACK (or NAK) PSN; returns how many rows
/// retire. An ACK retires every SEND / WRITE row whose last PSN is at or before its PSN, a NAK
/// those before it (it acknowledges the PSNs before its own, IBTA Vol 1, 9.7.5.2.2); a READ or
/// an atomic stops the walk (only its response retires it). PSNs are 24-bit modular, relative
/// to the window's first PSN; a PSN outside the window (`first .. last row's PSN`) retires
/// nothing.
pub fn retire_model(rows: &[(u32, u8)], first: u32, psn: u32, ack: bool) -> usize {
    let m = 0xFF_FFFF;
    let Some(&(end, _)) = rows.last() else {
        return 0;
    };
    let span = end.wrapping_sub(first) & m;
    let mut start = first;
    let mut n = 0;
    for &(last, kind) in rows {
        let a_off = psn.wrapping_sub(start) & m;
        let l_off = last.wrapping_sub(start) & m;
        let in_window =
            psn.wrapping_sub(first) & m <= span && a_off <= (end.wrapping_sub(start) & m);
        if kind > 1 || !in_window || !(l_off < a_off || (ack && l_off == a_off)) {
            break;
        }
        n += 1;
        start = (last + 1) & m;
    }
    n
}
