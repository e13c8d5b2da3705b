//! `RxL3`: second stage of the RX front end. From the frame record of [`super::ingest::RxIngest`]
//! (Ethernet fields and the L3 window) it
//!
//! * fills the Ethernet, 802.1Q, IPv4/IPv6/GRH and UDP fields of the [`RoceHeader`] descriptor
//!   (fields of the L3 kind not in use are 0);
//! * classifies the EtherType and evaluates everything that only needs L2/L3: truncation of the
//!   L2/L3 headers, "is this RoCE at all", destination MAC, PFC opcode and MAC, the length fields
//!   (IPv4 TotalLength vs UDP.Length, IPv6 PayLen vs UDP.Length, UDP.Length >= 8) and L_ib;
//! * cuts the transport window: the 40 bytes from the BTH (BTH + the largest extension header
//!   set), at L3 offset 28 (IPv4+UDP), 48 (IPv6+UDP) or 40 (GRH): a three-way mux on fixed
//!   offsets, registered so that opcode decode and the header-length arithmetic of the next
//!   stage start from flops.
//!
//! All results are registered (one pipeline stage, valid/ready, one frame per cycle).
//! L3-window offsets are literals: byte `r` of an `n`-byte field sits at bit `704 - 8 * (r + n)`;
//! transport-window byte `r` at bit `320 - 8 * (r + n)`.
use super::ingest::L3W_BITS;
use crate::header::RoceHeader;
use rust_hdl::prelude::*;

/// Bytes of the transport window (BTH + 28 bytes of extension headers).
pub const TW_BYTES: usize = 40;
/// Bits of the transport window.
pub const TW_BITS: usize = 8 * TW_BYTES;

/// `o_class`: EtherType not handled.
pub const CLASS_OTHER: u64 = 0;
/// `o_class`: IPv4 (0x0800).
pub const CLASS_V4: u64 = 1;
/// `o_class`: IPv6 (0x86DD).
pub const CLASS_V6: u64 = 2;
/// `o_class`: RoCEv1 (0x8915).
pub const CLASS_V1: u64 = 3;
/// `o_class`: MAC control (0x8808).
pub const CLASS_MACCTL: u64 = 4;

#[derive(LogicBlock)]
pub struct RxL3 {
    pub clock: Signal<In, Clock>,
    pub cfg_mac: Signal<In, Bits<48>>,
    pub cfg_promisc: Signal<In, Bit>,
    // input record (from RxIngest)
    pub i_valid: Signal<In, Bit>,
    pub i_ready: Signal<Out, Bit>,
    pub i_eth_dst: Signal<In, Bits<48>>,
    pub i_eth_src: Signal<In, Bits<48>>,
    pub i_vlan: Signal<In, Bit>,
    pub i_tci: Signal<In, Bits<16>>,
    pub i_et: Signal<In, Bits<16>>,
    pub i_l3w: Signal<In, Bits<L3W_BITS>>,
    pub i_flen: Signal<In, Bits<16>>,
    pub i_start: Signal<In, Bits<16>>,
    pub i_wend: Signal<In, Bits<16>>,
    pub i_crc_ok: Signal<In, Bit>,
    pub i_oversize: Signal<In, Bit>,
    // output record (registered)
    pub o_valid: Signal<Out, Bit>,
    pub o_ready: Signal<In, Bit>,
    pub o_hdr: Signal<Out, RoceHeader>,
    pub o_tw: Signal<Out, Bits<TW_BITS>>,
    /// BTH opcode (also in `o_tw`; registered separately so the next stage decodes it from a
    /// narrow flop).
    pub o_opcode: Signal<Out, Bits<8>>,
    /// BTH PadCnt (likewise).
    pub o_pad: Signal<Out, Bits<2>>,
    pub o_class: Signal<Out, Bits<3>>,
    pub o_l2_short: Signal<Out, Bit>,
    pub o_l3_short: Signal<Out, Bit>,
    pub o_not_roce: Signal<Out, Bit>,
    pub o_mac_ok: Signal<Out, Bit>,
    pub o_macctl_short: Signal<Out, Bit>,
    pub o_pfc_op: Signal<Out, Bit>,
    pub o_pfc_mac_ok: Signal<Out, Bit>,
    pub o_pfc_short: Signal<Out, Bit>,
    pub o_pfc_enable: Signal<Out, Bits<8>>,
    pub o_pfc_times: Signal<Out, Bits<128>>,
    pub o_consistent: Signal<Out, Bit>,
    pub o_lib: Signal<Out, Bits<17>>,
    pub o_bth_off: Signal<Out, Bits<17>>,
    pub o_flen: Signal<Out, Bits<16>>,
    pub o_start: Signal<Out, Bits<16>>,
    pub o_wend: Signal<Out, Bits<16>>,
    pub o_crc_ok: Signal<Out, Bit>,
    pub o_oversize: Signal<Out, Bit>,

    r_valid: DFF<Bit>,
    r_hdr: DFF<RoceHeader>,
    r_tw: DFF<Bits<TW_BITS>>,
    r_opcode: DFF<Bits<8>>,
    r_pad: DFF<Bits<2>>,
    r_class: DFF<Bits<3>>,
    r_l2_short: DFF<Bit>,
    r_l3_short: DFF<Bit>,
    r_not_roce: DFF<Bit>,
    r_mac_ok: DFF<Bit>,
    r_macctl_short: DFF<Bit>,
    r_pfc_op: DFF<Bit>,
    r_pfc_mac_ok: DFF<Bit>,
    r_pfc_short: DFF<Bit>,
    r_pfc_enable: DFF<Bits<8>>,
    r_pfc_times: DFF<Bits<128>>,
    r_consistent: DFF<Bit>,
    r_lib: DFF<Bits<17>>,
    r_bth_off: DFF<Bits<17>>,
    r_flen: DFF<Bits<16>>,
    r_start: DFF<Bits<16>>,
    r_wend: DFF<Bits<16>>,
    r_crc_ok: DFF<Bit>,
    r_oversize: DFF<Bit>,

    c_zero_hdr: Constant<RoceHeader>,
    c_pfc_da: Constant<Bits<48>>,

    take: Signal<Local, Bit>,
    cls: Signal<Local, Bits<3>>,
    l2len: Signal<Local, Bits<17>>,
    l3len: Signal<Local, Bits<17>>,
    flen: Signal<Local, Bits<17>>,
    ulen4: Signal<Local, Bits<17>>,
    ulen6: Signal<Local, Bits<17>>,
    plen6: Signal<Local, Bits<17>>,
    tot4: Signal<Local, Bits<17>>,
}

impl Default for RxL3 {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            cfg_mac: Default::default(),
            cfg_promisc: Default::default(),
            i_valid: Default::default(),
            i_ready: Default::default(),
            i_eth_dst: Default::default(),
            i_eth_src: Default::default(),
            i_vlan: Default::default(),
            i_tci: Default::default(),
            i_et: Default::default(),
            i_l3w: Default::default(),
            i_flen: Default::default(),
            i_start: Default::default(),
            i_wend: Default::default(),
            i_crc_ok: Default::default(),
            i_oversize: Default::default(),
            o_valid: Default::default(),
            o_ready: Default::default(),
            o_hdr: Default::default(),
            o_tw: Default::default(),
            o_opcode: Default::default(),
            o_pad: Default::default(),
            o_class: Default::default(),
            o_l2_short: Default::default(),
            o_l3_short: Default::default(),
            o_not_roce: Default::default(),
            o_mac_ok: Default::default(),
            o_macctl_short: Default::default(),
            o_pfc_op: Default::default(),
            o_pfc_mac_ok: Default::default(),
            o_pfc_short: Default::default(),
            o_pfc_enable: Default::default(),
            o_pfc_times: Default::default(),
            o_consistent: Default::default(),
            o_lib: Default::default(),
            o_bth_off: Default::default(),
            o_flen: Default::default(),
            o_start: Default::default(),
            o_wend: Default::default(),
            o_crc_ok: Default::default(),
            o_oversize: Default::default(),
            r_valid: Default::default(),
            r_hdr: Default::default(),
            r_tw: Default::default(),
            r_opcode: Default::default(),
            r_pad: Default::default(),
            r_class: Default::default(),
            r_l2_short: Default::default(),
            r_l3_short: Default::default(),
            r_not_roce: Default::default(),
            r_mac_ok: Default::default(),
            r_macctl_short: Default::default(),
            r_pfc_op: Default::default(),
            r_pfc_mac_ok: Default::default(),
            r_pfc_short: Default::default(),
            r_pfc_enable: Default::default(),
            r_pfc_times: Default::default(),
            r_consistent: Default::default(),
            r_lib: Default::default(),
            r_bth_off: Default::default(),
            r_flen: Default::default(),
            r_start: Default::default(),
            r_wend: Default::default(),
            r_crc_ok: Default::default(),
            r_oversize: Default::default(),
            c_zero_hdr: Constant::new(RoceHeader::default()),
            c_pfc_da: Constant::new(super::model::PFC_DA.into()),
            take: Default::default(),
            cls: Default::default(),
            l2len: Default::default(),
            l3len: Default::default(),
            flen: Default::default(),
            ulen4: Default::default(),
            ulen6: Default::default(),
            plen6: Default::default(),
            tot4: Default::default(),
        }
    }
}

impl Logic for RxL3 {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            r_valid,
            r_hdr,
            r_tw,
            r_opcode,
            r_pad,
            r_class,
            r_l2_short,
            r_l3_short,
            r_not_roce,
            r_mac_ok,
            r_macctl_short,
            r_pfc_op,
            r_pfc_mac_ok,
            r_pfc_short,
            r_pfc_enable,
            r_pfc_times,
            r_consistent,
            r_lib,
            r_bth_off,
            r_flen,
            r_start,
            r_wend,
            r_crc_ok,
            r_oversize
        );
        // ---- handshake -------------------------------------------------------------------
        self.i_ready.next = !self.r_valid.q.val() | self.o_ready.val();
        self.take.next = self.i_valid.val() & self.i_ready.val();
        if self.o_ready.val() {
            self.r_valid.d.next = false;
        }
        // ---- outputs -----------------------------------------------------------------------
        self.o_valid.next = self.r_valid.q.val();
        self.o_hdr.next = self.r_hdr.q.val();
        self.o_tw.next = self.r_tw.q.val();
        self.o_opcode.next = self.r_opcode.q.val();
        self.o_pad.next = self.r_pad.q.val();
        self.o_class.next = self.r_class.q.val();
        self.o_l2_short.next = self.r_l2_short.q.val();
        self.o_l3_short.next = self.r_l3_short.q.val();
        self.o_not_roce.next = self.r_not_roce.q.val();
        self.o_mac_ok.next = self.r_mac_ok.q.val();
        self.o_macctl_short.next = self.r_macctl_short.q.val();
        self.o_pfc_op.next = self.r_pfc_op.q.val();
        self.o_pfc_mac_ok.next = self.r_pfc_mac_ok.q.val();
        self.o_pfc_short.next = self.r_pfc_short.q.val();
        self.o_pfc_enable.next = self.r_pfc_enable.q.val();
        self.o_pfc_times.next = self.r_pfc_times.q.val();
        self.o_consistent.next = self.r_consistent.q.val();
        self.o_lib.next = self.r_lib.q.val();
        self.o_bth_off.next = self.r_bth_off.q.val();
        self.o_flen.next = self.r_flen.q.val();
        self.o_start.next = self.r_start.q.val();
        self.o_wend.next = self.r_wend.q.val();
        self.o_crc_ok.next = self.r_crc_ok.q.val();
        self.o_oversize.next = self.r_oversize.q.val();
        // ---- combinational defaults --------------------------------------------------------
        self.cls.next = 0.into();
        self.l2len.next = 14.into();
        self.l3len.next = 0.into();
        self.flen.next = bit_cast::<17, 16>(self.i_flen.val());
        self.ulen4.next = 0.into();
        self.tot4.next = 0.into();
        self.ulen6.next = 0.into();
        self.plen6.next = 0.into();
        // ---- take a record (wide extractions only here: they cost simulation time) ---------
        if self.take.val() {
            self.ulen4.next = bit_cast::<17, 16>(self.i_l3w.val().get_bits::<16>(496));
            self.tot4.next = bit_cast::<17, 16>(self.i_l3w.val().get_bits::<16>(672));
            self.ulen6.next = bit_cast::<17, 16>(self.i_l3w.val().get_bits::<16>(336));
            self.plen6.next = bit_cast::<17, 16>(self.i_l3w.val().get_bits::<16>(656));
            if self.i_vlan.val() {
                self.l2len.next = 18.into();
            }
            if self.i_et.val() == 0x0800 {
                self.cls.next = 1.into();
                self.l3len.next = 28.into();
            } else if self.i_et.val() == 0x86DD {
                self.cls.next = 2.into();
                self.l3len.next = 48.into();
            } else if self.i_et.val() == 0x8915 {
                self.cls.next = 3.into();
                self.l3len.next = 40.into();
            } else if self.i_et.val() == 0x8808 {
                self.cls.next = 4.into();
            }
            self.r_valid.d.next = true;
            self.r_class.d.next = self.cls.val();
            self.r_flen.d.next = self.i_flen.val();
            self.r_start.d.next = self.i_start.val();
            self.r_wend.d.next = self.i_wend.val();
            self.r_crc_ok.d.next = self.i_crc_ok.val();
            self.r_oversize.d.next = self.i_oversize.val();
            self.r_l2_short.d.next = self.flen.val() < self.l2len.val();
            self.r_bth_off.d.next = self.l2len.val() + self.l3len.val();
            self.r_l3_short.d.next = self.flen.val() < (self.l2len.val() + self.l3len.val());
            self.r_mac_ok.d.next =
                self.cfg_promisc.val() | (self.i_eth_dst.val() == self.cfg_mac.val());
            // PFC (MAC control opcode 0x0101)
            self.r_macctl_short.d.next = self.flen.val() < (self.l2len.val() + 2);
            self.r_pfc_op.d.next = self.i_l3w.val().get_bits::<16>(688) == 0x0101;
            self.r_pfc_mac_ok.d.next = self.cfg_promisc.val()
                | (self.i_eth_dst.val() == self.cfg_mac.val())
                | (self.i_eth_dst.val() == self.c_pfc_da.val());
            self.r_pfc_short.d.next = self.flen.val() < (self.l2len.val() + 20);
            self.r_pfc_enable.d.next = self.i_l3w.val().get_bits::<8>(672);
            self.r_pfc_times.d.next = self.i_l3w.val().get_bits::<128>(544);
            // descriptor: Ethernet fields
            self.r_hdr.d.next = self.c_zero_hdr.val();
            self.r_hdr.d.next.eth_dst = self.i_eth_dst.val();
            self.r_hdr.d.next.eth_src = self.i_eth_src.val();
            if self.i_vlan.val() {
                self.r_hdr.d.next.vlan = true;
                self.r_hdr.d.next.vlan_pcp = self.i_tci.val().get_bits::<3>(13);
                self.r_hdr.d.next.vlan_dei = self.i_tci.val().get_bit(12);
                self.r_hdr.d.next.vlan_vid = self.i_tci.val().get_bits::<12>(0);
            }
            // defaults for the classes below
            self.r_not_roce.d.next = true;
            self.r_consistent.d.next = true;
            self.r_lib.d.next = bit_cast::<17, 16>(self.i_l3w.val().get_bits::<16>(656));
            self.r_tw.d.next = self.i_l3w.val().get_bits::<TW_BITS>(64);
            self.r_opcode.d.next = self.i_l3w.val().get_bits::<8>(376);
            self.r_pad.d.next = self.i_l3w.val().get_bits::<2>(372);
            if self.cls.val() == 1 {
                // IPv4 + UDP, BTH at L3 + 28
                self.r_not_roce.d.next = (self.i_l3w.val().get_bits::<8>(696) != 0x45)
                    | ((self.i_l3w.val().get_bits::<16>(640) & 0x3FFF) != 0)
                    | (self.i_l3w.val().get_bits::<8>(624) != 17)
                    | (self.i_l3w.val().get_bits::<16>(512) != 4791);
                self.r_consistent.d.next =
                    (self.tot4.val() == (self.ulen4.val() + 20)) & (self.ulen4.val() >= 8);
                self.r_lib.d.next = self.ulen4.val() - 8;
                self.r_tw.d.next = self.i_l3w.val().get_bits::<TW_BITS>(160);
                self.r_opcode.d.next = self.i_l3w.val().get_bits::<8>(472);
                self.r_pad.d.next = self.i_l3w.val().get_bits::<2>(468);
                self.r_hdr.d.next.l3 = 0.into();
                self.r_hdr.d.next.tclass = self.i_l3w.val().get_bits::<8>(688);
                self.r_hdr.d.next.ip_id = self.i_l3w.val().get_bits::<16>(656);
                self.r_hdr.d.next.ip_frag = self.i_l3w.val().get_bits::<16>(640);
                self.r_hdr.d.next.hop_limit = self.i_l3w.val().get_bits::<8>(632);
                self.r_hdr.d.next.ip4_src = self.i_l3w.val().get_bits::<32>(576);
                self.r_hdr.d.next.ip4_dst = self.i_l3w.val().get_bits::<32>(544);
                self.r_hdr.d.next.udp_sport = self.i_l3w.val().get_bits::<16>(528);
                self.r_hdr.d.next.udp_dport = self.i_l3w.val().get_bits::<16>(512);
                self.r_hdr.d.next.udp_csum = self.i_l3w.val().get_bits::<16>(480);
            }
            if (self.cls.val() == 2) | (self.cls.val() == 3) {
                // IPv6 / GRH common part
                self.r_hdr.d.next.tclass = self.i_l3w.val().get_bits::<8>(692);
                self.r_hdr.d.next.flow_label = self.i_l3w.val().get_bits::<20>(672);
                self.r_hdr.d.next.hop_limit = self.i_l3w.val().get_bits::<8>(640);
                self.r_hdr.d.next.ip6_src = self.i_l3w.val().get_bits::<128>(512);
                self.r_hdr.d.next.ip6_dst = self.i_l3w.val().get_bits::<128>(384);
            }
            if self.cls.val() == 2 {
                // IPv6 + UDP, BTH at L3 + 48
                self.r_not_roce.d.next = (self.i_l3w.val().get_bits::<4>(700) != 6)
                    | (self.i_l3w.val().get_bits::<8>(648) != 17)
                    | (self.i_l3w.val().get_bits::<16>(352) != 4791);
                self.r_consistent.d.next =
                    (self.plen6.val() == self.ulen6.val()) & (self.ulen6.val() >= 8);
                self.r_lib.d.next = self.ulen6.val() - 8;
                self.r_tw.d.next = self.i_l3w.val().get_bits::<TW_BITS>(0);
                self.r_opcode.d.next = self.i_l3w.val().get_bits::<8>(312);
                self.r_pad.d.next = self.i_l3w.val().get_bits::<2>(308);
                self.r_hdr.d.next.l3 = 1.into();
                self.r_hdr.d.next.udp_sport = self.i_l3w.val().get_bits::<16>(368);
                self.r_hdr.d.next.udp_dport = self.i_l3w.val().get_bits::<16>(352);
                self.r_hdr.d.next.udp_csum = self.i_l3w.val().get_bits::<16>(320);
            }
            if self.cls.val() == 3 {
                // RoCEv1 GRH, BTH at L3 + 40, L_ib = PayLen
                self.r_not_roce.d.next = (self.i_l3w.val().get_bits::<4>(700) != 6)
                    | (self.i_l3w.val().get_bits::<8>(648) != 0x1B);
                self.r_hdr.d.next.l3 = 2.into();
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
    fn rx_l3_synthesises() {
        let mut uut = RxL3::default();
        uut.connect_all();
        ferroce_testkit::yosys_check("rx_l3", &generate_verilog(&uut));
    }
}
