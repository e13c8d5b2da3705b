//! [`PfcRxTap`]: decodes IEEE 802.1Qbb PFC frames from a copy of the MAC's receive beats, in
//! front of the admission FIFO, so a pause (or an XON) takes effect at wire time instead of
//! after the data queued ahead of it in the FIFO has drained to the host.
//!
//! The frames still go through [`super::RxAdmission`] and [`super::RxParser`] (which consume
//! and count them); the tap only listens.
//!
//! # Acceptance
//! Exactly the `pfc` rule of the parser's reference model ([`super::model`], rule 4): EtherType
//! MAC Control (0x8808) after an optional 802.1Q tag, opcode PFC (0x0101), destination
//! [`super::model::PFC_DA`] or `cfg_mac` or `cfg_promisc`, and the frame at least L2 header +
//! [`pfc::PFC_LEN`] bytes long (the class-enable vector and all eight times present). Frames of
//! any greater length are judged by their header. Not judged here: the parser's `oversize`
//! limit (a PFC frame longer than `max_frame` still pulses; the parser drops it), and the
//! admission FIFO's whole-frame drop for lack of room (a PFC frame the FIFO drops still
//! pulses: the pause is wanted most when the buffer is full).
//!
//! # Beat layout (64-bit profile, wire byte offsets of each beat)
//! ```text
//! beat 0   0..8   DA(6) SA[0..2]                     -> destination check
//! beat 1   8..16  SA[2..6] TYPE/TPID(12) OPC/TCI(14) -> tag; untagged: EtherType and opcode
//! beat 2  16..24  untagged: CEV(16) T0 T1 T2         tagged: EtherType(16) OPC(18) CEV(20) T0
//! beat 3  24..32  untagged: T3..T6                   tagged: T1..T4
//! beat 4  32..40  untagged: T7 (ends at 34)          tagged: T5 T6 T7 (ends at 38)
//! ```
//! Only beats 0..4 are looked at; later beats only say the frame is long enough.
//!
//! # Ports
//! * `mon_valid`, `mon_data`, `mon_keep`, `mon_last`: the MAC beats (every valid beat counts;
//!   first wire byte in bits 63..56, keep MSB-first as in [`crate::stream`]).
//! * `cfg_mac` (first wire byte in bits 47..40), `cfg_promisc`: sampled on a frame's first beat.
//! * `pfc_valid`: one-cycle pulse, registered: high in the cycle after the cycle that presents
//!   the frame's last beat. `pfc_enable` (low byte of the class-enable vector) and `pfc_times`
//!   (time\[n\] in bits 127-16n..112-16n) change only with the pulse and hold until the next.
//!
//! 64-bit only: the beat layout above is written for 8-byte beats.
use ferroce_proto::wire::ethernet::{self, ethertype};
use ferroce_proto::wire::pfc;
use rust_hdl::prelude::*;

use super::model::PFC_DA;

// The layout above, from proto's offsets: the TPID/EtherType and the untagged opcode sit in
// beat 1 at bytes 4 and 6; the tagged EtherType opens beat 2; a body ends in beat 4.
// (the EtherType / TPID is the header's last two bytes, the opcode the body's first two)
const _: () = assert!(ethernet::HEADER_LEN == 8 + 6);
const _: () = assert!(ethernet::VLAN_HEADER_LEN == 16 + 2);
// untagged body ends after byte 1 of beat 4, tagged after byte 5 (the keep bits tested)
const _: () = assert!(ethernet::HEADER_LEN + pfc::PFC_LEN == 32 + 2);
const _: () = assert!(ethernet::VLAN_HEADER_LEN + pfc::PFC_LEN == 32 + 6);

#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum TapState {
    /// Between frames: the next valid beat is beat 0 (destination MAC).
    Dest,
    /// Beat 1: TPID or EtherType, untagged opcode.
    Type,
    /// Beat 2: tagged EtherType and opcode; class-enable vector; first times.
    Body2,
    /// Beat 3: middle times.
    Body3,
    /// Beat 4: last times; the body is complete if the frame reaches its end here.
    Body4,
    /// Past beat 4 of a PFC frame: long enough; pulse on its last beat.
    Tail,
    /// Not a PFC frame: wait for its last beat.
    Skip,
}

#[derive(LogicBlock)]
pub struct PfcRxTap {
    pub clock: Signal<In, Clock>,
    // ---- the MAC beats (a copy; never stalled)
    pub mon_valid: Signal<In, Bit>,
    pub mon_data: Signal<In, Bits<64>>,
    pub mon_keep: Signal<In, Bits<8>>,
    pub mon_last: Signal<In, Bit>,
    // ---- configuration
    pub cfg_mac: Signal<In, Bits<48>>,
    pub cfg_promisc: Signal<In, Bit>,
    // ---- the decoded PFC frame
    pub pfc_valid: Signal<Out, Bit>,
    pub pfc_enable: Signal<Out, Bits<8>>,
    pub pfc_times: Signal<Out, Bits<128>>,
    // ---- state
    state: DFF<TapState>,
    /// the frame carries an 802.1Q tag (known after beat 1)
    vlan: DFF<Bit>,
    /// the frame's class-enable low byte and times so far (beats 2..4)
    cap_enable: DFF<Bits<8>>,
    cap_times: DFF<Bits<128>>,
    /// the outputs: written only by an accepted frame
    r_valid: DFF<Bit>,
    r_enable: DFF<Bits<8>>,
    r_times: DFF<Bits<128>>,
    // ---- constants from proto
    c_pfc_da: Constant<Bits<48>>,
    c_vlan: Constant<Bits<16>>,
    c_mac_ctl: Constant<Bits<16>>,
    c_op_pfc: Constant<Bits<16>>,
    // ---- combinational helpers
    /// the beat's four 16-bit words, wire order (hw0 = bytes 0-1)
    hw0: Signal<Local, Bits<16>>,
    hw1: Signal<Local, Bits<16>>,
    hw2: Signal<Local, Bits<16>>,
    hw3: Signal<Local, Bits<16>>,
    da: Signal<Local, Bits<48>>,
    /// the times with this beat's part merged in
    times_next: Signal<Local, Bits<128>>,
    /// this beat ends a PFC frame
    accept: Signal<Local, Bit>,
}

impl Default for PfcRxTap {
    fn default() -> Self {
        PfcRxTap {
            clock: Default::default(),
            mon_valid: Default::default(),
            mon_data: Default::default(),
            mon_keep: Default::default(),
            mon_last: Default::default(),
            cfg_mac: Default::default(),
            cfg_promisc: Default::default(),
            pfc_valid: Default::default(),
            pfc_enable: Default::default(),
            pfc_times: Default::default(),
            state: Default::default(),
            vlan: Default::default(),
            cap_enable: Default::default(),
            cap_times: Default::default(),
            r_valid: Default::default(),
            r_enable: Default::default(),
            r_times: Default::default(),
            c_pfc_da: Constant::new(bits::<48>(PFC_DA)),
            c_vlan: Constant::new(bits::<16>(ethertype::VLAN as u64)),
            c_mac_ctl: Constant::new(bits::<16>(ethertype::MAC_CONTROL as u64)),
            c_op_pfc: Constant::new(bits::<16>(pfc::OPCODE_PFC as u64)),
            hw0: Default::default(),
            hw1: Default::default(),
            hw2: Default::default(),
            hw3: Default::default(),
            da: Default::default(),
            times_next: Default::default(),
            accept: Default::default(),
        }
    }
}

impl Logic for PfcRxTap {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, vlan, cap_enable, cap_times, r_valid, r_enable, r_times);
        self.pfc_valid.next = self.r_valid.q.val();
        self.pfc_enable.next = self.r_enable.q.val();
        self.pfc_times.next = self.r_times.q.val();
        self.r_valid.d.next = false;
        self.hw0.next = self.mon_data.val().get_bits::<16>(48);
        self.hw1.next = self.mon_data.val().get_bits::<16>(32);
        self.hw2.next = self.mon_data.val().get_bits::<16>(16);
        self.hw3.next = self.mon_data.val().get_bits::<16>(0);
        self.da.next = self.mon_data.val().get_bits::<48>(16);
        self.times_next.next = self.cap_times.q.val();
        self.accept.next = false;
        // Times: beat 2 starts the vector afresh (time[0] at the top), beats 3 and 4 fill in
        // below it; bytes past keep in beat 4 lie after the body of a long-enough frame.
        match self.state.q.val() {
            TapState::Body2 => {
                if self.vlan.q.val() {
                    // bytes 22-23: T0
                    self.times_next.next = bit_cast::<128, 16>(self.hw3.val()) << 112;
                } else {
                    // bytes 18-23: T0 T1 T2
                    self.times_next.next =
                        bit_cast::<128, 48>(self.mon_data.val().get_bits::<48>(0)) << 80;
                }
            }
            TapState::Body3 => {
                if self.vlan.q.val() {
                    // T1..T4
                    self.times_next.next =
                        self.cap_times.q.val() | (bit_cast::<128, 64>(self.mon_data.val()) << 48);
                } else {
                    // T3..T6
                    self.times_next.next =
                        self.cap_times.q.val() | (bit_cast::<128, 64>(self.mon_data.val()) << 16);
                }
            }
            TapState::Body4 => {
                if self.vlan.q.val() {
                    // bytes 32-37: T5 T6 T7
                    self.times_next.next =
                        self.cap_times.q.val() | bit_cast::<128, 48>(self.da.val());
                } else {
                    // bytes 32-33: T7
                    self.times_next.next =
                        self.cap_times.q.val() | bit_cast::<128, 16>(self.hw0.val());
                }
            }
            _ => {}
        }
        if self.mon_valid.val() {
            self.cap_times.d.next = self.times_next.val();
            match self.state.q.val() {
                TapState::Dest => {
                    if self.mon_last.val() {
                        self.state.d.next = TapState::Dest;
                    } else if self.cfg_promisc.val()
                        | (self.da.val() == self.c_pfc_da.val())
                        | (self.da.val() == self.cfg_mac.val())
                    {
                        self.state.d.next = TapState::Type;
                    } else {
                        self.state.d.next = TapState::Skip;
                    }
                }
                TapState::Type => {
                    self.vlan.d.next = self.hw2.val() == self.c_vlan.val();
                    if self.mon_last.val() {
                        self.state.d.next = TapState::Dest;
                    } else if (self.hw2.val() == self.c_vlan.val())
                        | ((self.hw2.val() == self.c_mac_ctl.val())
                            & (self.hw3.val() == self.c_op_pfc.val()))
                    {
                        self.state.d.next = TapState::Body2;
                    } else {
                        self.state.d.next = TapState::Skip;
                    }
                }
                TapState::Body2 => {
                    if self.vlan.q.val() {
                        // byte 21: low byte of the class-enable vector
                        self.cap_enable.d.next = self.mon_data.val().get_bits::<8>(16);
                    } else {
                        // byte 17
                        self.cap_enable.d.next = self.mon_data.val().get_bits::<8>(48);
                    }
                    if self.mon_last.val() {
                        self.state.d.next = TapState::Dest;
                    } else if !self.vlan.q.val()
                        | ((self.hw0.val() == self.c_mac_ctl.val())
                            & (self.hw1.val() == self.c_op_pfc.val()))
                    {
                        self.state.d.next = TapState::Body3;
                    } else {
                        self.state.d.next = TapState::Skip;
                    }
                }
                TapState::Body3 => {
                    if self.mon_last.val() {
                        self.state.d.next = TapState::Dest;
                    } else {
                        self.state.d.next = TapState::Body4;
                    }
                }
                TapState::Body4 => {
                    if self.mon_last.val() {
                        // keep is contiguous from the top: the body's last byte (byte 5
                        // tagged, byte 1 untagged) is valid iff its keep bit is set
                        if self.vlan.q.val() {
                            self.accept.next = self.mon_keep.val().get_bit(2);
                        } else {
                            self.accept.next = self.mon_keep.val().get_bit(6);
                        }
                        self.state.d.next = TapState::Dest;
                    } else {
                        self.state.d.next = TapState::Tail;
                    }
                }
                TapState::Tail => {
                    if self.mon_last.val() {
                        self.accept.next = true;
                        self.state.d.next = TapState::Dest;
                    }
                }
                TapState::Skip => {
                    if self.mon_last.val() {
                        self.state.d.next = TapState::Dest;
                    }
                }
                _ => {
                    self.state.d.next = TapState::Dest;
                }
            }
        }
        if self.accept.val() {
            self.r_valid.d.next = true;
            self.r_enable.d.next = self.cap_enable.q.val();
            self.r_times.d.next = self.times_next.val();
        }
    }
}
