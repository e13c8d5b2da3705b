//! [`UartAxil`]: a UART to AXI4-Lite bridge, so that a PC on the board's USB UART can read and
//! write the NIC's registers (BAR0). The command protocol (docs/INTEGRATION.md, "UART register
//! protocol"), all multi-byte values big-endian (most significant byte first):
//!
//! | PC sends | bytes | the bridge does | it answers |
//! |---|---|---|---|
//! | `'W'` (0x57), address (4), data (4) | 9 | one AXI4-Lite write, `wstrb` = 0xF | `'K'` (0x4B) if `bresp` = OKAY, else `'E'` (0x45) |
//! | `'R'` (0x52), address (4) | 5 | one AXI4-Lite read | `'K'` or `'E'` (from `rresp`), then the 4 data bytes |
//! | any other byte (between commands) | 1 | nothing | `'?'` (0x3F) |
//!
//! Commands run one at a time: bytes that arrive while the bridge is still on the bus or
//! answering are lost (a PC waits for the answer before sending the next command). A command
//! whose bytes stop arriving for `timeout` cycles ([`UartAxil::new`]) is abandoned without an
//! answer, so a PC that lost count resynchronises by waiting that long. A character with a
//! framing error is ignored (`ev_frame_err` pulses).
//!
//! # Ports
//! * `rxd` / `txd`: the UART (8N1, `clocks_per_bit` cycles per bit, see [`super::UartRx`]).
//! * `m_axil_*`: the AXI4-Lite master (AMBA AXI4-Lite: the write address and data are offered
//!   together and may be taken in either order; `bready` and `rready` are high while waiting).
//!   Addresses are 32 bits; a top level connects as many low bits as its slave decodes.
//! * `ev_cmd`: one-cycle pulse per command executed on the bus; `ev_frame_err`: per character
//!   dropped for a framing error.
use super::{UartRx, UartTx};
use rust_hdl::prelude::*;

/// Command byte: write a 32-bit register.
pub const CMD_WRITE: u8 = b'W';
/// Command byte: read a 32-bit register.
pub const CMD_READ: u8 = b'R';
/// Answer: the bus said OKAY.
pub const ANS_OK: u8 = b'K';
/// Answer: the bus said SLVERR or DECERR.
pub const ANS_ERR: u8 = b'E';
/// Answer to a byte that is not a command.
pub const ANS_UNKNOWN: u8 = b'?';
// the kernel compares and sends these as literals
const _: () = assert!(CMD_WRITE == 0x57 && CMD_READ == 0x52);
const _: () = assert!(ANS_OK == 0x4B && ANS_ERR == 0x45 && ANS_UNKNOWN == 0x3F);

#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum UaState {
    /// Wait for a command byte.
    Idle,
    /// Collect the address (and, for a write, the data) bytes; abandon on a timeout.
    Collect,
    /// Offer the write address and data; wait for both handshakes and the response.
    Write,
    /// Offer the read address; wait for its handshake and the read data.
    Read,
    /// Send the answer bytes (the status, then for a read the data, MSB first).
    Answer,
}

#[derive(LogicBlock)]
pub struct UartAxil {
    pub clock: Signal<In, Clock>,
    pub rxd: Signal<In, Bit>,
    pub txd: Signal<Out, Bit>,
    // ---- AXI4-Lite master
    pub m_axil_awaddr: Signal<Out, Bits<32>>,
    pub m_axil_awvalid: Signal<Out, Bit>,
    pub m_axil_awready: Signal<In, Bit>,
    pub m_axil_wdata: Signal<Out, Bits<32>>,
    pub m_axil_wstrb: Signal<Out, Bits<4>>,
    pub m_axil_wvalid: Signal<Out, Bit>,
    pub m_axil_wready: Signal<In, Bit>,
    pub m_axil_bresp: Signal<In, Bits<2>>,
    pub m_axil_bvalid: Signal<In, Bit>,
    pub m_axil_bready: Signal<Out, Bit>,
    pub m_axil_araddr: Signal<Out, Bits<32>>,
    pub m_axil_arvalid: Signal<Out, Bit>,
    pub m_axil_arready: Signal<In, Bit>,
    pub m_axil_rdata: Signal<In, Bits<32>>,
    pub m_axil_rresp: Signal<In, Bits<2>>,
    pub m_axil_rvalid: Signal<In, Bit>,
    pub m_axil_rready: Signal<Out, Bit>,
    // ---- events
    pub ev_cmd: Signal<Out, Bit>,
    pub ev_frame_err: Signal<Out, Bit>,
    // ---- blocks
    urx: UartRx,
    utx: UartTx,
    // ---- state
    state: DFF<UaState>,
    is_write: DFF<Bit>,
    /// command bytes still to collect / answer bytes still to send
    left: DFF<Bits<4>>,
    addr: DFF<Bits<32>>,
    /// the write data, or the read data being answered (shifted left per byte sent)
    data: DFF<Bits<32>>,
    status: DFF<Bits<8>>,
    /// the status byte has been sent
    sent_status: DFF<Bit>,
    aw_done: DFF<Bit>,
    w_done: DFF<Bit>,
    ar_done: DFF<Bit>,
    idle_cnt: DFF<Bits<32>>,
    c_timeout: Constant<Bits<32>>,
}

impl UartAxil {
    /// A bridge with a UART bit period of `clocks_per_bit` cycles and a command timeout of
    /// `timeout` cycles between two bytes of a command (at least a character time,
    /// 10 x `clocks_per_bit`).
    pub fn new(clocks_per_bit: u16, timeout: u32) -> Self {
        assert!(
            timeout as u64 > 10 * clocks_per_bit as u64,
            "UartAxil: the timeout must exceed a character time"
        );
        UartAxil {
            clock: Default::default(),
            rxd: Default::default(),
            txd: Default::default(),
            m_axil_awaddr: Default::default(),
            m_axil_awvalid: Default::default(),
            m_axil_awready: Default::default(),
            m_axil_wdata: Default::default(),
            m_axil_wstrb: Default::default(),
            m_axil_wvalid: Default::default(),
            m_axil_wready: Default::default(),
            m_axil_bresp: Default::default(),
            m_axil_bvalid: Default::default(),
            m_axil_bready: Default::default(),
            m_axil_araddr: Default::default(),
            m_axil_arvalid: Default::default(),
            m_axil_arready: Default::default(),
            m_axil_rdata: Default::default(),
            m_axil_rresp: Default::default(),
            m_axil_rvalid: Default::default(),
            m_axil_rready: Default::default(),
            ev_cmd: Default::default(),
            ev_frame_err: Default::default(),
            urx: UartRx::new(clocks_per_bit),
            utx: UartTx::new(clocks_per_bit),
            state: Default::default(),
            is_write: Default::default(),
            left: Default::default(),
            addr: Default::default(),
            data: Default::default(),
            status: Default::default(),
            sent_status: Default::default(),
            aw_done: Default::default(),
            w_done: Default::default(),
            ar_done: Default::default(),
            idle_cnt: Default::default(),
            c_timeout: Constant::new((timeout as u64).into()),
        }
    }
}

impl Logic for UartAxil {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            is_write,
            left,
            addr,
            data,
            status,
            sent_status,
            aw_done,
            w_done,
            ar_done,
            idle_cnt
        );
        clock!(self, clock, urx, utx);
        // defaults
        self.urx.rxd.next = self.rxd.val();
        self.txd.next = self.utx.txd.val();
        self.ev_frame_err.next = self.urx.frame_err.val();
        self.ev_cmd.next = false;
        self.utx.valid.next = false;
        self.utx.data.next = self.status.q.val();
        self.m_axil_awaddr.next = self.addr.q.val();
        self.m_axil_araddr.next = self.addr.q.val();
        self.m_axil_wdata.next = self.data.q.val();
        self.m_axil_wstrb.next = 0xF.into();
        self.m_axil_awvalid.next = false;
        self.m_axil_wvalid.next = false;
        self.m_axil_bready.next = false;
        self.m_axil_arvalid.next = false;
        self.m_axil_rready.next = false;
        self.idle_cnt.d.next = self.idle_cnt.q.val() + 1;

        match self.state.q.val() {
            UaState::Idle => {
                self.idle_cnt.d.next = 0.into();
                self.aw_done.d.next = false;
                self.w_done.d.next = false;
                self.ar_done.d.next = false;
                self.sent_status.d.next = false;
                if self.urx.valid.val() {
                    if self.urx.data.val() == 0x57 {
                        self.is_write.d.next = true;
                        self.left.d.next = 8.into();
                        self.state.d.next = UaState::Collect;
                    } else if self.urx.data.val() == 0x52 {
                        self.is_write.d.next = false;
                        self.left.d.next = 4.into();
                        self.state.d.next = UaState::Collect;
                    } else {
                        // not a command: answer '?' (the status byte alone)
                        self.status.d.next = 0x3F.into();
                        self.sent_status.d.next = false;
                        self.left.d.next = 1.into();
                        self.state.d.next = UaState::Answer;
                    }
                }
            }
            UaState::Collect => {
                if self.urx.valid.val() {
                    self.idle_cnt.d.next = 0.into();
                    // a write's first four bytes are the address, the last four the data
                    if self.is_write.q.val() & (self.left.q.val() <= 4) {
                        self.data.d.next =
                            (self.data.q.val() << 8) | bit_cast::<32, 8>(self.urx.data.val());
                    } else {
                        self.addr.d.next =
                            (self.addr.q.val() << 8) | bit_cast::<32, 8>(self.urx.data.val());
                    }
                    self.left.d.next = self.left.q.val() - 1;
                    if self.left.q.val() == 1 {
                        self.ev_cmd.next = true;
                        if self.is_write.q.val() {
                            self.state.d.next = UaState::Write;
                        } else {
                            self.state.d.next = UaState::Read;
                        }
                    }
                } else if self.idle_cnt.q.val() == self.c_timeout.val() {
                    self.state.d.next = UaState::Idle;
                }
            }
            UaState::Write => {
                self.m_axil_awvalid.next = !self.aw_done.q.val();
                self.m_axil_wvalid.next = !self.w_done.q.val();
                self.m_axil_bready.next = self.aw_done.q.val() & self.w_done.q.val();
                if self.m_axil_awready.val() {
                    self.aw_done.d.next = true;
                }
                if self.m_axil_wready.val() {
                    self.w_done.d.next = true;
                }
                if self.aw_done.q.val() & self.w_done.q.val() & self.m_axil_bvalid.val() {
                    if self.m_axil_bresp.val().any() {
                        self.status.d.next = 0x45.into();
                    } else {
                        self.status.d.next = 0x4B.into();
                    }
                    self.left.d.next = 1.into();
                    self.state.d.next = UaState::Answer;
                }
            }
            UaState::Read => {
                self.m_axil_arvalid.next = !self.ar_done.q.val();
                self.m_axil_rready.next = self.ar_done.q.val();
                if self.m_axil_arready.val() {
                    self.ar_done.d.next = true;
                }
                if self.ar_done.q.val() & self.m_axil_rvalid.val() {
                    if self.m_axil_rresp.val().any() {
                        self.status.d.next = 0x45.into();
                    } else {
                        self.status.d.next = 0x4B.into();
                    }
                    self.data.d.next = self.m_axil_rdata.val();
                    self.left.d.next = 5.into();
                    self.state.d.next = UaState::Answer;
                }
            }
            UaState::Answer => {
                self.utx.valid.next = true;
                if self.sent_status.q.val() {
                    self.utx.data.next = self.data.q.val().get_bits::<8>(24);
                }
                if self.utx.ready.val() {
                    if self.sent_status.q.val() {
                        self.data.d.next = self.data.q.val() << 8;
                    }
                    self.sent_status.d.next = true;
                    self.left.d.next = self.left.q.val() - 1;
                    if self.left.q.val() == 1 {
                        self.state.d.next = UaState::Idle;
                    }
                }
            }
            _ => {
                self.state.d.next = UaState::Idle;
            }
        }
    }
}
