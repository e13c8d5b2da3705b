//! `RxTransport`: third and last parse stage of the RX front end. From [`super::l3::RxL3`]'s
//! record (descriptor so far, transport window, L2/L3 flags) it
//!
//! * decodes the opcode ([`ExtDecode`]: extension headers and their length; [`OpClass`]: known
//!   opcode and payload rule) and fills the BTH and extension-header fields of the descriptor
//!   from fixed transport-window offsets (ImmDt sits at 12, 20 after a DETH or 28 after a RETH);
//! * does the length arithmetic: header end `H` (frame offset of the first payload byte),
//!   span end (BTH + L_ib), payload length = L_ib - 12 - ext - PadCnt - 4;
//! * decides the frame's kind and its single verdict in the priority order of
//!   [`super::model`] (the executable specification), and the ICRC flag;
//! * computes where the payload sits in the frame buffer: word `start + H / K`, lane `H % K`.
//!
//! All results are registered (valid/ready, one frame per cycle). The registers between this
//! stage and the previous one cut the opcode -> header length -> barrel shift path that
//! docs/HDL-RULES.md gives 50-70 MHz in one cycle; the barrel shift itself happens in
//! [`super::readout::RxReadout`], from registers.
use super::drop_reason::{DropReason, RxKind};
use super::l3::TW_BITS;
use super::opclass::OpClass;
use crate::header::{ExtDecode, RoceHeader};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct RxTransport<const K: usize> {
    pub clock: Signal<In, Clock>,
    // input record (from RxL3)
    pub i_valid: Signal<In, Bit>,
    pub i_ready: Signal<Out, Bit>,
    pub i_hdr: Signal<In, RoceHeader>,
    pub i_tw: Signal<In, Bits<TW_BITS>>,
    pub i_opcode: Signal<In, Bits<8>>,
    pub i_pad: Signal<In, Bits<2>>,
    pub i_class: Signal<In, Bits<3>>,
    pub i_l2_short: Signal<In, Bit>,
    pub i_l3_short: Signal<In, Bit>,
    pub i_not_roce: Signal<In, Bit>,
    pub i_mac_ok: Signal<In, Bit>,
    pub i_macctl_short: Signal<In, Bit>,
    pub i_pfc_op: Signal<In, Bit>,
    pub i_pfc_mac_ok: Signal<In, Bit>,
    pub i_pfc_short: Signal<In, Bit>,
    pub i_pfc_enable: Signal<In, Bits<8>>,
    pub i_pfc_times: Signal<In, Bits<128>>,
    pub i_consistent: Signal<In, Bit>,
    pub i_lib: Signal<In, Bits<17>>,
    pub i_bth_off: Signal<In, Bits<17>>,
    pub i_flen: Signal<In, Bits<16>>,
    pub i_start: Signal<In, Bits<16>>,
    pub i_wend: Signal<In, Bits<16>>,
    pub i_crc_ok: Signal<In, Bit>,
    pub i_oversize: Signal<In, Bit>,
    // output: the frame's verdict, descriptor and buffer bookkeeping (registered)
    pub o_valid: Signal<Out, Bit>,
    pub o_ready: Signal<In, Bit>,
    pub o_hdr: Signal<Out, RoceHeader>,
    pub o_kind: Signal<Out, RxKind>,
    pub o_reason: Signal<Out, DropReason>,
    pub o_icrc_ok: Signal<Out, Bit>,
    pub o_flen: Signal<Out, Bits<16>>,
    /// Accepted RoCE frame: the descriptor goes to the descriptor queue.
    pub o_has_desc: Signal<Out, Bit>,
    /// Accepted PFC frame.
    pub o_is_pfc: Signal<Out, Bit>,
    pub o_pfc_enable: Signal<Out, Bits<8>>,
    pub o_pfc_times: Signal<Out, Bits<128>>,
    pub o_pay_word: Signal<Out, Bits<16>>,
    pub o_pay_lane: Signal<Out, Bits<8>>,
    pub o_pay_len: Signal<Out, Bits<16>>,
    pub o_wend: Signal<Out, Bits<16>>,

    ext: ExtDecode,
    opc: OpClass,

    r_valid: DFF<Bit>,
    r_hdr: DFF<RoceHeader>,
    r_kind: DFF<RxKind>,
    r_reason: DFF<DropReason>,
    r_icrc_ok: DFF<Bit>,
    r_flen: DFF<Bits<16>>,
    r_has_desc: DFF<Bit>,
    r_is_pfc: DFF<Bit>,
    r_pfc_enable: DFF<Bits<8>>,
    r_pfc_times: DFF<Bits<128>>,
    r_pay_word: DFF<Bits<16>>,
    r_pay_lane: DFF<Bits<8>>,
    r_pay_len: DFF<Bits<16>>,
    r_wend: DFF<Bits<16>>,

    c_logk: Constant<Bits<8>>,
    c_kmask: Constant<Bits<17>>,

    take: Signal<Local, Bit>,
    opcode: Signal<Local, Bits<8>>,
    pad: Signal<Local, Bits<17>>,
    ext_len: Signal<Local, Bits<17>>,
    hlen: Signal<Local, Bits<17>>,
    need: Signal<Local, Bits<17>>,
    span_end: Signal<Local, Bits<17>>,
    flen: Signal<Local, Bits<17>>,
    payload: Signal<Local, Bits<17>>,
    pay_bad: Signal<Local, Bit>,
    kind: Signal<Local, RxKind>,
    reason: Signal<Local, DropReason>,
    roce: Signal<Local, Bit>,
}

impl<const K: usize> Default for RxTransport<K> {
    fn default() -> Self {
        assert!(K.is_power_of_two() && (8..=64).contains(&K));
        Self {
            clock: Default::default(),
            i_valid: Default::default(),
            i_ready: Default::default(),
            i_hdr: Default::default(),
            i_tw: Default::default(),
            i_opcode: Default::default(),
            i_pad: Default::default(),
            i_class: Default::default(),
            i_l2_short: Default::default(),
            i_l3_short: Default::default(),
            i_not_roce: Default::default(),
            i_mac_ok: Default::default(),
            i_macctl_short: Default::default(),
            i_pfc_op: Default::default(),
            i_pfc_mac_ok: Default::default(),
            i_pfc_short: Default::default(),
            i_pfc_enable: Default::default(),
            i_pfc_times: Default::default(),
            i_consistent: Default::default(),
            i_lib: Default::default(),
            i_bth_off: Default::default(),
            i_flen: Default::default(),
            i_start: Default::default(),
            i_wend: Default::default(),
            i_crc_ok: Default::default(),
            i_oversize: Default::default(),
            o_valid: Default::default(),
            o_ready: Default::default(),
            o_hdr: Default::default(),
            o_kind: Default::default(),
            o_reason: Default::default(),
            o_icrc_ok: Default::default(),
            o_flen: Default::default(),
            o_has_desc: Default::default(),
            o_is_pfc: Default::default(),
            o_pfc_enable: Default::default(),
            o_pfc_times: Default::default(),
            o_pay_word: Default::default(),
            o_pay_lane: Default::default(),
            o_pay_len: Default::default(),
            o_wend: Default::default(),
            ext: Default::default(),
            opc: Default::default(),
            r_valid: Default::default(),
            r_hdr: Default::default(),
            r_kind: Default::default(),
            r_reason: Default::default(),
            r_icrc_ok: Default::default(),
            r_flen: Default::default(),
            r_has_desc: Default::default(),
            r_is_pfc: Default::default(),
            r_pfc_enable: Default::default(),
            r_pfc_times: Default::default(),
            r_pay_word: Default::default(),
            r_pay_lane: Default::default(),
            r_pay_len: Default::default(),
            r_wend: Default::default(),
            c_logk: Constant::new((K.trailing_zeros() as u64).into()),
            c_kmask: Constant::new(((K - 1) as u64).into()),
            take: Default::default(),
            opcode: Default::default(),
            pad: Default::default(),
            ext_len: Default::default(),
            hlen: Default::default(),
            need: Default::default(),
            span_end: Default::default(),
            flen: Default::default(),
            payload: Default::default(),
            pay_bad: Default::default(),
            kind: Default::default(),
            reason: Default::default(),
            roce: Default::default(),
        }
    }
}

impl<const K: usize> Logic for RxTransport<K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            r_valid,
            r_hdr,
            r_kind,
            r_reason,
            r_icrc_ok,
            r_flen,
            r_has_desc,
            r_is_pfc,
            r_pfc_enable,
            r_pfc_times,
            r_pay_word,
            r_pay_lane,
            r_pay_len,
            r_wend
        );
        // ---- handshake and outputs --------------------------------------------------------
        self.i_ready.next = !self.r_valid.q.val() | self.o_ready.val();
        self.take.next = self.i_valid.val() & self.i_ready.val();
        if self.o_ready.val() {
            self.r_valid.d.next = false;
        }
        self.o_valid.next = self.r_valid.q.val();
        self.o_hdr.next = self.r_hdr.q.val();
        self.o_kind.next = self.r_kind.q.val();
        self.o_reason.next = self.r_reason.q.val();
        self.o_icrc_ok.next = self.r_icrc_ok.q.val();
        self.o_flen.next = self.r_flen.q.val();
        self.o_has_desc.next = self.r_has_desc.q.val();
        self.o_is_pfc.next = self.r_is_pfc.q.val();
        self.o_pfc_enable.next = self.r_pfc_enable.q.val();
        self.o_pfc_times.next = self.r_pfc_times.q.val();
        self.o_pay_word.next = self.r_pay_word.q.val();
        self.o_pay_lane.next = self.r_pay_lane.q.val();
        self.o_pay_len.next = self.r_pay_len.q.val();
        self.o_wend.next = self.r_wend.q.val();
        // ---- opcode decode (combinational children) ---------------------------------------
        self.opcode.next = self.i_opcode.val();
        self.ext.opcode.next = self.opcode.val();
        self.opc.opcode.next = self.opcode.val();
        // ---- defaults ----------------------------------------------------------------------
        self.pad.next = bit_cast::<17, 2>(self.i_pad.val());
        self.ext_len.next = bit_cast::<17, 3>(self.ext.ext_words.val()) << 2;
        self.flen.next = bit_cast::<17, 16>(self.i_flen.val());
        self.hlen.next = (self.i_bth_off.val() + 12) + self.ext_len.val();
        self.need.next = self.ext_len.val() + 16;
        self.span_end.next = self.i_bth_off.val() + self.i_lib.val();
        self.payload.next = ((self.i_lib.val() - self.need.val()) - self.pad.val()) & 0x1FFFF;
        self.pay_bad.next = false;
        self.kind.next = RxKind::Other;
        self.reason.next = DropReason::Accepted;
        self.roce.next = false;
        if self.take.val() {
            // ---- payload rule of the opcode ---------------------------------------------
            if ((self.payload.val() + self.pad.val()) & 3) != 0 {
                self.pay_bad.next = true;
            }
            if self.payload.val() > 4096 {
                self.pay_bad.next = true;
            }
            if self.opc.pclass.val() == 0 {
                if self.payload.val() != 0 {
                    self.pay_bad.next = true;
                }
            }
            if self.opc.pclass.val() == 1 {
                if (self.payload.val() == 0) | ((self.payload.val() & 255) != 0) {
                    self.pay_bad.next = true;
                }
            }
            if self.opc.pclass.val() == 2 {
                if self.payload.val() == 0 {
                    self.pay_bad.next = true;
                }
            }
            // ---- kind ---------------------------------------------------------------------
            if !self.i_l2_short.val() {
                if (self.i_class.val() == 4) & self.i_pfc_op.val() & !self.i_macctl_short.val() {
                    self.kind.next = RxKind::Pfc;
                }
                if (self.i_class.val() == 1) | (self.i_class.val() == 2) | (self.i_class.val() == 3)
                {
                    if !self.i_l3_short.val() & !self.i_not_roce.val() {
                        self.roce.next = true;
                        if self.opcode.val() == 0x81 {
                            self.kind.next = RxKind::Cnp;
                        } else if self.i_class.val() == 1 {
                            self.kind.next = RxKind::RoceV2Ipv4;
                        } else if self.i_class.val() == 2 {
                            self.kind.next = RxKind::RoceV2Ipv6;
                        } else {
                            self.kind.next = RxKind::RoceV1;
                        }
                    }
                }
            }
            // ---- verdict, in the model's priority order ------------------------------------
            if self.i_oversize.val() {
                self.reason.next = DropReason::Oversize;
            } else if self.i_l2_short.val() {
                self.reason.next = DropReason::Truncated;
            } else if self.i_class.val() == 0 {
                self.reason.next = DropReason::Unsupported;
            } else if self.i_class.val() == 4 {
                if self.i_macctl_short.val() {
                    self.reason.next = DropReason::Truncated;
                } else if !self.i_pfc_op.val() {
                    self.reason.next = DropReason::Unsupported;
                } else if !self.i_pfc_mac_ok.val() {
                    self.reason.next = DropReason::MacMismatch;
                } else if self.i_pfc_short.val() {
                    self.reason.next = DropReason::Truncated;
                }
            } else if self.i_l3_short.val() {
                self.reason.next = DropReason::Truncated;
            } else if self.i_not_roce.val() {
                self.reason.next = DropReason::Unsupported;
            } else if !self.i_mac_ok.val() {
                self.reason.next = DropReason::MacMismatch;
            } else if self.flen.val() < (self.i_bth_off.val() + 12) {
                self.reason.next = DropReason::Truncated;
            } else if !self.opc.known.val() {
                self.reason.next = DropReason::BadOpcode;
            } else if self.flen.val() < self.hlen.val() {
                self.reason.next = DropReason::Truncated;
            } else if !self.i_consistent.val() {
                self.reason.next = DropReason::Length;
            } else if self.i_lib.val() < self.need.val() {
                self.reason.next = DropReason::Length;
            } else if self.flen.val() < self.span_end.val() {
                self.reason.next = DropReason::Truncated;
            } else if (self.flen.val() > self.span_end.val()) & (self.flen.val() > 64) {
                self.reason.next = DropReason::Length;
            } else if self.i_lib.val() < (self.need.val() + self.pad.val()) {
                self.reason.next = DropReason::Length;
            } else if self.pay_bad.val() {
                self.reason.next = DropReason::Length;
            } else if !self.i_crc_ok.val() {
                self.reason.next = DropReason::BadIcrc;
            }
            // ---- register -----------------------------------------------------------------
            self.r_valid.d.next = true;
            self.r_kind.d.next = self.kind.val();
            self.r_reason.d.next = self.reason.val();
            self.r_icrc_ok.d.next = self.i_crc_ok.val() & self.roce.val();
            self.r_flen.d.next = self.i_flen.val();
            self.r_has_desc.d.next = self.roce.val() & (self.reason.val() == DropReason::Accepted);
            self.r_is_pfc.d.next =
                (self.kind.val() == RxKind::Pfc) & (self.reason.val() == DropReason::Accepted);
            self.r_pfc_enable.d.next = self.i_pfc_enable.val();
            self.r_pfc_times.d.next = self.i_pfc_times.val();
            self.r_pay_word.d.next =
                self.i_start.val() + bit_cast::<16, 17>(self.hlen.val() >> self.c_logk.val());
            self.r_pay_lane.d.next = bit_cast::<8, 17>(self.hlen.val() & self.c_kmask.val());
            self.r_pay_len.d.next = bit_cast::<16, 17>(self.payload.val());
            self.r_wend.d.next = self.i_wend.val();
            // ---- descriptor: BTH and extension headers -------------------------------------
            self.r_hdr.d.next = self.i_hdr.val();
            self.r_hdr.d.next.opcode = self.i_opcode.val();
            self.r_hdr.d.next.se = self.i_tw.val().get_bit(311);
            self.r_hdr.d.next.mig_req = self.i_tw.val().get_bit(310);
            self.r_hdr.d.next.pad_cnt = self.i_pad.val();
            self.r_hdr.d.next.tver = self.i_tw.val().get_bits::<4>(304);
            self.r_hdr.d.next.pkey = self.i_tw.val().get_bits::<16>(288);
            self.r_hdr.d.next.fecn = self.i_tw.val().get_bit(287);
            self.r_hdr.d.next.becn = self.i_tw.val().get_bit(286);
            self.r_hdr.d.next.resv6 = self.i_tw.val().get_bits::<6>(280);
            self.r_hdr.d.next.dest_qp = self.i_tw.val().get_bits::<24>(256);
            self.r_hdr.d.next.ack_req = self.i_tw.val().get_bit(255);
            self.r_hdr.d.next.resv7 = self.i_tw.val().get_bits::<7>(248);
            self.r_hdr.d.next.psn = self.i_tw.val().get_bits::<24>(224);
            self.r_hdr.d.next.payload_len = bit_cast::<13, 17>(self.payload.val());
            if self.ext.deth.val() {
                self.r_hdr.d.next.deth_qkey = self.i_tw.val().get_bits::<32>(192);
                self.r_hdr.d.next.deth_src_qp = self.i_tw.val().get_bits::<24>(160);
            }
            if self.ext.reth.val() | self.ext.atomic_eth.val() {
                self.r_hdr.d.next.va = self.i_tw.val().get_bits::<64>(160);
                self.r_hdr.d.next.rkey = self.i_tw.val().get_bits::<32>(128);
            }
            if self.ext.reth.val() {
                self.r_hdr.d.next.dma_len = self.i_tw.val().get_bits::<32>(96);
            }
            if self.ext.atomic_eth.val() {
                self.r_hdr.d.next.swap_add = self.i_tw.val().get_bits::<64>(64);
                self.r_hdr.d.next.compare = self.i_tw.val().get_bits::<64>(0);
            }
            if self.ext.aeth.val() {
                self.r_hdr.d.next.aeth_syndrome = self.i_tw.val().get_bits::<8>(216);
                self.r_hdr.d.next.aeth_msn = self.i_tw.val().get_bits::<24>(192);
            }
            if self.ext.atomic_ack.val() {
                self.r_hdr.d.next.atomic_orig = self.i_tw.val().get_bits::<64>(128);
            }
            if self.ext.imm.val() {
                if self.ext.reth.val() {
                    self.r_hdr.d.next.imm = self.i_tw.val().get_bits::<32>(64);
                } else if self.ext.deth.val() {
                    self.r_hdr.d.next.imm = self.i_tw.val().get_bits::<32>(128);
                } else {
                    self.r_hdr.d.next.imm = self.i_tw.val().get_bits::<32>(192);
                }
            }
            if self.ext.ieth.val() {
                self.r_hdr.d.next.ieth_rkey = self.i_tw.val().get_bits::<32>(192);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Synthesis check: the emitted Verilog passes Yosys `read; hierarchy -check; proc`
    /// (latches, undriven wires, implicit declarations); skipped quietly without yosys.
    #[test]
    fn rx_transport_synthesises() {
        let mut uut = RxTransport::<8>::default();
        uut.connect_all();
        ferroce_testkit::yosys_check("rx_transport", &generate_verilog(&uut));
    }
}
