//! `AckFormatter`: turns the responder's ACK/NAK requests into complete [`RoceHeader`]
//! descriptors for the TX header builder (RC ACKNOWLEDGE, opcode 0x11, BTH + AETH, no payload).
//!
//! Why here and not in the responder: the responder decides *what* to answer (PSN, syndrome,
//! MSN); *how* the answer is addressed is the QP's address vector, the same for every packet the
//! QP sends (ACKs now, READ responses and requests later), so it is read from the QP context
//! table like any sender would, not copied from the request (a request's source address is not
//! authenticated and need not be where the QP's answers go).
//!
//! Addressing (docs/HOST-INTERFACE.md 5): destination MAC `QP_AV_DMAC`, destination IP from
//! `QP_AV_DGID` (IPv4-mapped for IPv4), source MAC `CFG_MAC`, source IP and framing (IPv4 or
//! IPv6) from GID table entry `QP_AV_PATH.SGID_INDEX`; DSCP from the QP's traffic class or
//! `CFG_TRAFFIC`'s default, ECN from `CFG_TRAFFIC.DATA_ECN`; hop limit and flow label from the
//! AV; UDP source port `QP_AV_SPORT`, or `CFG_UDP_SPORT`'s base when it is 0 (the hashed
//! policy belongs to the requester's sender and arrives with it); IPv4 DF set, ID 0 (as rxe).
//!
//! Flow: `ack_*` is taken (`ack_ready` high in `Idle`) into registers, the QP's context is read
//! through `qpc_rd_*` (granted by `qpc_rd_ready`; data on `qpc_valid`, which the NIC's
//! [`super::QpcReadMux`] raises only for this requester's reads), the header is computed into a
//! register and offered on `hdr_*`. One ACK every ~5 cycles: far above the one-per-packet
//! worst case of minimum-size requests (8 cycles each at 64 bits).
use crate::csr::qp_config::{FLOW_W, SGID_W, SPORT_W};
use crate::header::{RoceHeader, L3_IPV4, L3_IPV6};
use ferroce_proto::host::config::GidType;
use ferroce_proto::host::regs::{cfg_traffic, cfg_udp_sport};
use ferroce_proto::wire::bth::DEFAULT_PKEY;
use ferroce_proto::wire::udp::ROCE_V2_PORT;
use ferroce_proto::wire::Opcode;
use rust_hdl::prelude::*;

// The kernel below uses these field positions as literals (rust-hdl emits a named constant as
// an undeclared Verilog identifier); these assertions tie the literals to the register map.
const _: () = assert!(cfg_traffic::DEFAULT_DSCP.lsb == 0 && cfg_traffic::DEFAULT_DSCP.width == 6);
const _: () = assert!(cfg_traffic::DATA_ECN.lsb == 6 && cfg_traffic::DATA_ECN.width == 2);
const _: () = assert!(cfg_udp_sport::BASE.lsb == 0 && cfg_udp_sport::BASE.width == 16);

/// RC ACKNOWLEDGE (`ferroce_proto::wire::Opcode::RC_ACKNOWLEDGE`).
pub const OPCODE_RC_ACK: u64 = Opcode::RC_ACKNOWLEDGE.0 as u64;

#[derive(Copy, Clone, PartialEq, Eq, Debug, LogicState)]
pub enum AckFmtState {
    Idle,
    Read,
    Wait,
    Offer,
}

#[derive(LogicBlock)]
pub struct AckFormatter<const QA: usize> {
    pub clock: Signal<In, Clock>,
    // ---- from the responder
    pub ack_valid: Signal<In, Bit>,
    pub ack_ready: Signal<Out, Bit>,
    pub ack_qpn: Signal<In, Bits<QA>>,
    pub ack_dest_qpn: Signal<In, Bits<24>>,
    pub ack_psn: Signal<In, Bits<24>>,
    pub ack_syndrome: Signal<In, Bits<8>>,
    pub ack_msn: Signal<In, Bits<24>>,
    // ---- QP context read (through the NIC's QpcReadMux)
    pub qpc_rd_valid: Signal<Out, Bit>,
    pub qpc_rd_ready: Signal<In, Bit>,
    pub qpc_rd_qpn: Signal<Out, Bits<QA>>,
    pub qpc_valid: Signal<In, Bit>,
    pub qpc_dmac: Signal<In, Bits<48>>,
    pub qpc_dgid: Signal<In, Bits<128>>,
    pub qpc_sgid_index: Signal<In, Bits<SGID_W>>,
    pub qpc_traffic_class: Signal<In, Bits<8>>,
    pub qpc_hop_limit: Signal<In, Bits<8>>,
    pub qpc_default_dscp: Signal<In, Bit>,
    pub qpc_flow_label: Signal<In, Bits<FLOW_W>>,
    pub qpc_udp_sport: Signal<In, Bits<SPORT_W>>,
    // ---- device configuration (CSR block)
    pub cfg_mac: Signal<In, Bits<48>>,
    pub cfg_traffic: Signal<In, Bits<32>>,
    pub cfg_udp_sport: Signal<In, Bits<32>>,
    pub gid0: Signal<In, Bits<128>>,
    pub gid1: Signal<In, Bits<128>>,
    pub gid2: Signal<In, Bits<128>>,
    pub gid3: Signal<In, Bits<128>>,
    pub gid4: Signal<In, Bits<128>>,
    pub gid5: Signal<In, Bits<128>>,
    pub gid6: Signal<In, Bits<128>>,
    pub gid7: Signal<In, Bits<128>>,
    pub gid8: Signal<In, Bits<128>>,
    pub gid9: Signal<In, Bits<128>>,
    pub gid10: Signal<In, Bits<128>>,
    pub gid11: Signal<In, Bits<128>>,
    pub gid12: Signal<In, Bits<128>>,
    pub gid13: Signal<In, Bits<128>>,
    pub gid14: Signal<In, Bits<128>>,
    pub gid15: Signal<In, Bits<128>>,
    pub gid_type: Signal<In, Bits<32>>,
    // ---- to the TX header builder
    pub hdr_valid: Signal<Out, Bit>,
    pub hdr_ready: Signal<In, Bit>,
    pub hdr: Signal<Out, RoceHeader>,
    // ---- state
    state: DFF<AckFmtState>,
    a_qpn: DFF<Bits<QA>>,
    a_dest_qpn: DFF<Bits<24>>,
    a_psn: DFF<Bits<24>>,
    a_syndrome: DFF<Bits<8>>,
    a_msn: DFF<Bits<24>>,
    h: DFF<RoceHeader>,
    // ---- locals
    sel_gid: Signal<Local, Bits<128>>,
    sel_type: Signal<Local, Bits<2>>,
    type_word: Signal<Local, Bits<32>>,
    c_idx: [Constant<Bits<SGID_W>>; 16],
    c_type_sh: [Constant<Bits<5>>; 16],
    dscp: Signal<Local, Bits<6>>,
    c_ipv6: Constant<Bits<2>>,
    c_l3_v4: Constant<Bits<2>>,
    c_l3_v6: Constant<Bits<2>>,
    c_opcode: Constant<Bits<8>>,
    c_dport: Constant<Bits<16>>,
    c_pkey: Constant<Bits<16>>,
    c_df: Constant<Bits<16>>,
}

impl<const QA: usize> Default for AckFormatter<QA> {
    fn default() -> Self {
        AckFormatter {
            clock: Default::default(),
            ack_valid: Default::default(),
            ack_ready: Default::default(),
            ack_qpn: Default::default(),
            ack_dest_qpn: Default::default(),
            ack_psn: Default::default(),
            ack_syndrome: Default::default(),
            ack_msn: Default::default(),
            qpc_rd_valid: Default::default(),
            qpc_rd_ready: Default::default(),
            qpc_rd_qpn: Default::default(),
            qpc_valid: Default::default(),
            qpc_dmac: Default::default(),
            qpc_dgid: Default::default(),
            qpc_sgid_index: Default::default(),
            qpc_traffic_class: Default::default(),
            qpc_hop_limit: Default::default(),
            qpc_default_dscp: Default::default(),
            qpc_flow_label: Default::default(),
            qpc_udp_sport: Default::default(),
            cfg_mac: Default::default(),
            cfg_traffic: Default::default(),
            cfg_udp_sport: Default::default(),
            gid0: Default::default(),
            gid1: Default::default(),
            gid2: Default::default(),
            gid3: Default::default(),
            gid4: Default::default(),
            gid5: Default::default(),
            gid6: Default::default(),
            gid7: Default::default(),
            gid8: Default::default(),
            gid9: Default::default(),
            gid10: Default::default(),
            gid11: Default::default(),
            gid12: Default::default(),
            gid13: Default::default(),
            gid14: Default::default(),
            gid15: Default::default(),
            gid_type: Default::default(),
            hdr_valid: Default::default(),
            hdr_ready: Default::default(),
            hdr: Default::default(),
            state: Default::default(),
            a_qpn: Default::default(),
            a_dest_qpn: Default::default(),
            a_psn: Default::default(),
            a_syndrome: Default::default(),
            a_msn: Default::default(),
            h: Default::default(),
            sel_gid: Default::default(),
            sel_type: Default::default(),
            type_word: Default::default(),
            c_idx: core::array::from_fn(|n| Constant::new((n as u64).into())),
            c_type_sh: core::array::from_fn(|n| Constant::new((2 * n as u64).into())),
            dscp: Default::default(),
            c_ipv6: Constant::new((GidType::RoceV2Ipv6 as u64).into()),
            c_l3_v4: Constant::new(L3_IPV4.into()),
            c_l3_v6: Constant::new(L3_IPV6.into()),
            c_opcode: Constant::new(OPCODE_RC_ACK.into()),
            c_dport: Constant::new((ROCE_V2_PORT as u64).into()),
            c_pkey: Constant::new((DEFAULT_PKEY as u64).into()),
            c_df: Constant::new(0x4000u64.into()),
        }
    }
}

impl<const QA: usize> Logic for AckFormatter<QA> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, a_qpn, a_dest_qpn, a_psn, a_syndrome, a_msn, h);
        // defaults
        self.ack_ready.next = false;
        self.qpc_rd_valid.next = false;
        self.qpc_rd_qpn.next = self.a_qpn.q.val();
        self.hdr_valid.next = false;
        self.hdr.next = self.h.q.val();
        // GID entry and type of the QP's source GID index (the CSR block rejects indices >= 16)
        self.sel_gid.next = self.gid0.val();
        if self.qpc_sgid_index.val() == self.c_idx[1].val() {
            self.sel_gid.next = self.gid1.val();
        }
        if self.qpc_sgid_index.val() == self.c_idx[2].val() {
            self.sel_gid.next = self.gid2.val();
        }
        if self.qpc_sgid_index.val() == self.c_idx[3].val() {
            self.sel_gid.next = self.gid3.val();
        }
        if self.qpc_sgid_index.val() == self.c_idx[4].val() {
            self.sel_gid.next = self.gid4.val();
        }
        if self.qpc_sgid_index.val() == self.c_idx[5].val() {
            self.sel_gid.next = self.gid5.val();
        }
        if self.qpc_sgid_index.val() == self.c_idx[6].val() {
            self.sel_gid.next = self.gid6.val();
        }
        if self.qpc_sgid_index.val() == self.c_idx[7].val() {
            self.sel_gid.next = self.gid7.val();
        }
        if self.qpc_sgid_index.val() == self.c_idx[8].val() {
            self.sel_gid.next = self.gid8.val();
        }
        if self.qpc_sgid_index.val() == self.c_idx[9].val() {
            self.sel_gid.next = self.gid9.val();
        }
        if self.qpc_sgid_index.val() == self.c_idx[10].val() {
            self.sel_gid.next = self.gid10.val();
        }
        if self.qpc_sgid_index.val() == self.c_idx[11].val() {
            self.sel_gid.next = self.gid11.val();
        }
        if self.qpc_sgid_index.val() == self.c_idx[12].val() {
            self.sel_gid.next = self.gid12.val();
        }
        if self.qpc_sgid_index.val() == self.c_idx[13].val() {
            self.sel_gid.next = self.gid13.val();
        }
        if self.qpc_sgid_index.val() == self.c_idx[14].val() {
            self.sel_gid.next = self.gid14.val();
        }
        if self.qpc_sgid_index.val() == self.c_idx[15].val() {
            self.sel_gid.next = self.gid15.val();
        }
        self.type_word.next = self.gid_type.val();
        for n in 0..16 {
            if self.qpc_sgid_index.val() == self.c_idx[n].val() {
                self.type_word.next = self.gid_type.val() >> self.c_type_sh[n].val();
            }
        }
        self.sel_type.next = self.type_word.val().get_bits::<2>(0);
        self.dscp.next = self.qpc_traffic_class.val().get_bits::<6>(2);
        if self.qpc_default_dscp.val() {
            self.dscp.next = self.cfg_traffic.val().get_bits::<6>(0);
        }

        match self.state.q.val() {
            AckFmtState::Idle => {
                self.ack_ready.next = true;
                if self.ack_valid.val() {
                    self.a_qpn.d.next = self.ack_qpn.val();
                    self.a_dest_qpn.d.next = self.ack_dest_qpn.val();
                    self.a_psn.d.next = self.ack_psn.val();
                    self.a_syndrome.d.next = self.ack_syndrome.val();
                    self.a_msn.d.next = self.ack_msn.val();
                    self.state.d.next = AckFmtState::Read;
                }
            }
            AckFmtState::Read => {
                self.qpc_rd_valid.next = true;
                if self.qpc_rd_ready.val() {
                    self.state.d.next = AckFmtState::Wait;
                }
            }
            AckFmtState::Wait => {
                if self.qpc_valid.val() {
                    // the fields not written here (VLAN, IP ID, DETH, RETH, ...) are never
                    // written at all and stay 0
                    self.h.d.next.eth_dst = self.qpc_dmac.val();
                    self.h.d.next.eth_src = self.cfg_mac.val();
                    self.h.d.next.l3 = self.c_l3_v4.val();
                    if self.sel_type.val() == self.c_ipv6.val() {
                        self.h.d.next.l3 = self.c_l3_v6.val();
                    }
                    self.h.d.next.tclass = (bit_cast::<8, 6>(self.dscp.val()) << 2)
                        | bit_cast::<8, 2>(self.cfg_traffic.val().get_bits::<2>(6));
                    self.h.d.next.hop_limit = self.qpc_hop_limit.val();
                    self.h.d.next.ip_frag = self.c_df.val();
                    self.h.d.next.ip4_src = self.sel_gid.val().get_bits::<32>(0);
                    self.h.d.next.ip4_dst = self.qpc_dgid.val().get_bits::<32>(0);
                    self.h.d.next.flow_label = self.qpc_flow_label.val();
                    self.h.d.next.ip6_src = self.sel_gid.val();
                    self.h.d.next.ip6_dst = self.qpc_dgid.val();
                    self.h.d.next.udp_sport = self.qpc_udp_sport.val();
                    if !self.qpc_udp_sport.val().any() {
                        self.h.d.next.udp_sport = self.cfg_udp_sport.val().get_bits::<16>(0);
                    }
                    self.h.d.next.udp_dport = self.c_dport.val();
                    self.h.d.next.opcode = self.c_opcode.val();
                    self.h.d.next.pkey = self.c_pkey.val();
                    self.h.d.next.dest_qp = self.a_dest_qpn.q.val();
                    self.h.d.next.psn = self.a_psn.q.val();
                    self.h.d.next.aeth_syndrome = self.a_syndrome.q.val();
                    self.h.d.next.aeth_msn = self.a_msn.q.val();
                    self.state.d.next = AckFmtState::Offer;
                }
            }
            AckFmtState::Offer => {
                self.hdr_valid.next = true;
                if self.hdr_ready.val() {
                    self.state.d.next = AckFmtState::Idle;
                }
            }
            _ => {
                self.state.d.next = AckFmtState::Idle;
            }
        }
    }
}
