//! `PacketFormatter`: turns a packet request (the responder's ACK/NAK, or one packet of the
//! requester's messages) into a complete [`RoceHeader`] descriptor for the TX header builder.
//!
//! Why here and not in the engines: the engines decide *what* to send (opcode, PSN, AETH
//! syndrome and MSN, RETH, immediate, payload length); *how* it is addressed is the QP's address
//! vector, the same for every packet the QP sends, so it is read from the QP context table once
//! per packet, not copied from a request (a request's source address is not authenticated and
//! need not be where the QP's answers go).
//!
//! A request names the opcode, destination QP, PSN, AckReq and SE bits, AETH syndrome and MSN
//! (ACKNOWLEDGE), RETH virtual address, rkey and DMA length (WRITE FIRST/ONLY), the immediate
//! (…WITH_IMMEDIATE) and the payload length; fields an opcode does not carry are ignored by the
//! TX builder, which derives the extension headers from the opcode.
//!
//! Addressing (docs/HOST-INTERFACE.md 5): destination MAC `QP_AV_DMAC`, destination IP from
//! `QP_AV_DGID` (IPv4-mapped for IPv4), source MAC `CFG_MAC`, source IP and framing (RoCEv2
//! over IPv4 or IPv6, or RoCEv1: GRH, EtherType 0x8915) from GID table entry `QP_AV_PATH.SGID_INDEX`; DSCP from the QP's traffic class or
//! `CFG_TRAFFIC`'s default; ECN by packet kind: `CFG_TRAFFIC.ACK_ECN` for ACKNOWLEDGE and
//! ATOMIC ACKNOWLEDGE, `CNP_ECN` for CNPs, `DATA_ECN` for every other packet (requests and READ
//! responses); hop limit and flow label from the AV; UDP source port `QP_AV_SPORT`, or
//! `CFG_UDP_SPORT`'s base when it is 0 (the hashed policy belongs to the requester's sender and
//! arrives with it); IPv4 DF set, ID 0 (as rxe). With `CFG_TRAFFIC.VLAN_TAG` an IEEE 802.1Q tag:
//! VID `CFG_TRAFFIC.VLAN_VID` (one for the port, as a RoCE device on a VLAN interface), DEI 0,
//! PCP `CFG_PFC.DATA_PRIO`, or `CFG_PFC.CNP_PRIO` for a CNP (mlx5's `cnp_802p_prio`).
//!
//! CNPs (opcode 0x81, IBTA Vol 1 Annex A17.9.2; requested by the notification point with only
//! the QPN): DestQP is the QP's `dest_qpn` from its context, BECN set, PSN 0, DSCP
//! `CFG_TRAFFIC.CNP_DSCP` whatever the AV says, UDP source port 0 (what a ConnectX-4 Lx sends),
//! no payload (the TX builder adds the 16 reserved bytes). A CNP for a QP that is not in a
//! receiving state (RTR, RTS, SQD, SQE) when its context is read is not sent: `cnp_drop`
//! pulses instead of `hdr_valid`.
//!
//! Flow: `pk_*` is taken (`pk_ready` high in `Idle`) into registers, the QP's context is read
//! through the `qpc` port (a [`QpcReadMaster`]: `qpc.rd_valid`/`qpc.rd_qpn`, granted by
//! `qpc.rd_ready`; data on `qpc.valid`, which the NIC's [`super::QpcReadMux`] raises only for
//! this formatter's reads), the header is computed into a
//! register and offered on `hdr_*`. One packet every ~5 cycles: far above the one-per-packet
//! worst case of minimum-size packets (8 cycles each at 64 bits).
use crate::csr::qp_config::{SGID_W, ST_W};
use crate::csr::qpc_port::QpcReadMaster;
use crate::header::{RoceHeader, L3_IPV4, L3_IPV6, L3_ROCEV1, OPCODE_CNP};
use crate::widget::MuxTree;
use ferroce_proto::host::config::GidType;
use ferroce_proto::host::qp::QpState;
use ferroce_proto::host::regs::{cfg_pfc, cfg_traffic, cfg_udp_sport};
use ferroce_proto::wire::bth::DEFAULT_PKEY;
use ferroce_proto::wire::udp::ROCE_V2_PORT;
use ferroce_proto::wire::Opcode;
use rust_hdl::prelude::*;

// The kernel below uses these field positions as literals (rust-hdl emits a named constant as
// an undeclared Verilog identifier); these assertions tie the literals to the register map.
const _: () = assert!(cfg_traffic::DEFAULT_DSCP.lsb == 0 && cfg_traffic::DEFAULT_DSCP.width == 6);
const _: () = assert!(cfg_traffic::DATA_ECN.lsb == 6 && cfg_traffic::DATA_ECN.width == 2);
const _: () = assert!(cfg_traffic::CNP_DSCP.lsb == 8 && cfg_traffic::CNP_DSCP.width == 6);
const _: () = assert!(cfg_traffic::ACK_ECN.lsb == 14 && cfg_traffic::ACK_ECN.width == 2);
const _: () = assert!(cfg_traffic::CNP_ECN.lsb == 16 && cfg_traffic::CNP_ECN.width == 2);
const _: () = assert!(cfg_traffic::VLAN_TAG.lsb == 18 && cfg_traffic::VLAN_TAG.width == 1);
const _: () = assert!(cfg_traffic::VLAN_VID.lsb == 20 && cfg_traffic::VLAN_VID.width == 12);
const _: () = assert!(cfg_pfc::DATA_PRIO.lsb == 0 && cfg_pfc::DATA_PRIO.width == 3);
const _: () = assert!(cfg_pfc::CNP_PRIO.lsb == 4 && cfg_pfc::CNP_PRIO.width == 3);
const _: () = assert!(cfg_udp_sport::BASE.lsb == 0 && cfg_udp_sport::BASE.width == 16);
const _: () = assert!(SGID_W == 8);

/// RC ACKNOWLEDGE (`ferroce_proto::wire::Opcode::RC_ACKNOWLEDGE`).
pub const OPCODE_RC_ACK: u64 = Opcode::RC_ACKNOWLEDGE.0 as u64;
/// RC ATOMIC ACKNOWLEDGE (`Opcode::RC_ATOMIC_ACKNOWLEDGE`).
pub const OPCODE_RC_ATOMIC_ACK: u64 = Opcode::RC_ATOMIC_ACKNOWLEDGE.0 as u64;
/// CNP (`crate::header::OPCODE_CNP`).
pub const OPCODE_RC_CNP: u64 = OPCODE_CNP as u64;

#[derive(Copy, Clone, PartialEq, Eq, Debug, LogicState)]
pub enum PktFmtState {
    /// Ready: take a packet request into the `a_*` registers.
    Idle,
    /// Ask for the QP's context (waits for the read mux's grant).
    Read,
    /// The context arrives: compute the header (or discard a CNP of a non-receiving QP).
    Wait,
    /// Offer the header to the TX builder until it takes it.
    Offer,
}

#[derive(LogicBlock)]
pub struct PacketFormatter<const QA: usize> {
    pub clock: Signal<In, Clock>,
    // ---- packet requests (responder ACKs, requester packets)
    pub pk_valid: Signal<In, Bit>,
    pub pk_ready: Signal<Out, Bit>,
    pub pk_qpn: Signal<In, Bits<QA>>,
    pub pk_opcode: Signal<In, Bits<8>>,
    pub pk_dest_qpn: Signal<In, Bits<24>>,
    pub pk_psn: Signal<In, Bits<24>>,
    pub pk_ackreq: Signal<In, Bit>,
    pub pk_se: Signal<In, Bit>,
    pub pk_syndrome: Signal<In, Bits<8>>,
    pub pk_msn: Signal<In, Bits<24>>,
    pub pk_va: Signal<In, Bits<64>>,
    pub pk_rkey: Signal<In, Bits<32>>,
    pub pk_dlen: Signal<In, Bits<32>>,
    pub pk_imm: Signal<In, Bits<32>>,
    /// AtomicETH swap (or add) and compare data (COMPARE_SWAP / FETCH_ADD)
    pub pk_swap: Signal<In, Bits<64>>,
    pub pk_compare: Signal<In, Bits<64>>,
    /// AtomicAckETH original value (ATOMIC ACKNOWLEDGE)
    pub pk_orig: Signal<In, Bits<64>>,
    pub pk_plen: Signal<In, Bits<13>>,
    // ---- QP context read (through the NIC's QpcReadMux): the address vector, and the QP's
    // peer (a CNP's DestQP) and state (a CNP is sent only in a receiving state)
    pub qpc: QpcReadMaster<QA>,
    /// a CNP request was discarded: its QP is not in a receiving state
    pub cnp_drop: Signal<Out, Bit>,
    // ---- device configuration (CSR block)
    pub cfg_mac: Signal<In, Bits<48>>,
    pub cfg_traffic: Signal<In, Bits<32>>,
    pub cfg_udp_sport: Signal<In, Bits<32>>,
    /// `CFG_PFC`: the priorities (802.1p PCP of tagged frames) of RoCE data and ACKs, and of CNPs
    pub cfg_pfc: Signal<In, Bits<32>>,
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
    state: DFF<PktFmtState>,
    a_qpn: DFF<Bits<QA>>,
    a_opcode: DFF<Bits<8>>,
    a_dest_qpn: DFF<Bits<24>>,
    a_psn: DFF<Bits<24>>,
    a_ackreq: DFF<Bit>,
    a_se: DFF<Bit>,
    a_syndrome: DFF<Bits<8>>,
    a_msn: DFF<Bits<24>>,
    a_va: DFF<Bits<64>>,
    a_rkey: DFF<Bits<32>>,
    a_dlen: DFF<Bits<32>>,
    a_imm: DFF<Bits<32>>,
    a_swap: DFF<Bits<64>>,
    a_cmp: DFF<Bits<64>>,
    a_orig: DFF<Bits<64>>,
    a_plen: DFF<Bits<13>>,
    h: DFF<RoceHeader>,
    // ---- locals
    sel_gid: Signal<Local, Bits<128>>,
    sgi: Signal<Local, Bits<4>>,
    /// the GID table entry of the source GID index (a 16:1 tree on its 4 bits)
    gtree: MuxTree<128, 16, 4>,
    sel_type: Signal<Local, Bits<2>>,
    type_word: Signal<Local, Bits<32>>,
    c_idx: [Constant<Bits<SGID_W>>; 16],
    c_type_sh: [Constant<Bits<5>>; 16],
    dscp: Signal<Local, Bits<6>>,
    ecn: Signal<Local, Bits<2>>,
    is_cnp: Signal<Local, Bit>,
    /// the 802.1Q PCP of the packet (`CFG_PFC`: CNP_PRIO for a CNP, else DATA_PRIO)
    pcp: Signal<Local, Bits<3>>,
    rx_state_ok: Signal<Local, Bit>,
    c_ack: Constant<Bits<8>>,
    c_atack: Constant<Bits<8>>,
    c_cnp: Constant<Bits<8>>,
    c_rtr: Constant<Bits<ST_W>>,
    c_sqe: Constant<Bits<ST_W>>,
    c_ipv6: Constant<Bits<2>>,
    c_rocev1: Constant<Bits<2>>,
    c_l3_v4: Constant<Bits<2>>,
    c_l3_v6: Constant<Bits<2>>,
    c_l3_v1: Constant<Bits<2>>,
    c_dport: Constant<Bits<16>>,
    c_pkey: Constant<Bits<16>>,
    c_df: Constant<Bits<16>>,
}

impl<const QA: usize> Default for PacketFormatter<QA> {
    fn default() -> Self {
        PacketFormatter {
            clock: Default::default(),
            pk_valid: Default::default(),
            pk_ready: Default::default(),
            pk_qpn: Default::default(),
            pk_opcode: Default::default(),
            pk_dest_qpn: Default::default(),
            pk_psn: Default::default(),
            pk_ackreq: Default::default(),
            pk_se: Default::default(),
            pk_syndrome: Default::default(),
            pk_msn: Default::default(),
            pk_va: Default::default(),
            pk_rkey: Default::default(),
            pk_dlen: Default::default(),
            pk_imm: Default::default(),
            pk_swap: Default::default(),
            pk_compare: Default::default(),
            pk_orig: Default::default(),
            pk_plen: Default::default(),
            qpc: Default::default(),
            cnp_drop: Default::default(),
            cfg_mac: Default::default(),
            cfg_traffic: Default::default(),
            cfg_udp_sport: Default::default(),
            cfg_pfc: Default::default(),
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
            a_opcode: Default::default(),
            a_dest_qpn: Default::default(),
            a_psn: Default::default(),
            a_ackreq: Default::default(),
            a_se: Default::default(),
            a_syndrome: Default::default(),
            a_msn: Default::default(),
            a_va: Default::default(),
            a_rkey: Default::default(),
            a_dlen: Default::default(),
            a_imm: Default::default(),
            a_swap: Default::default(),
            a_cmp: Default::default(),
            a_orig: Default::default(),
            a_plen: Default::default(),
            h: Default::default(),
            sel_gid: Default::default(),
            sgi: Default::default(),
            gtree: Default::default(),
            sel_type: Default::default(),
            type_word: Default::default(),
            c_idx: core::array::from_fn(|n| Constant::new((n as u64).into())),
            c_type_sh: core::array::from_fn(|n| Constant::new((2 * n as u64).into())),
            dscp: Default::default(),
            ecn: Default::default(),
            is_cnp: Default::default(),
            pcp: Default::default(),
            rx_state_ok: Default::default(),
            c_ack: Constant::new(OPCODE_RC_ACK.into()),
            c_atack: Constant::new(OPCODE_RC_ATOMIC_ACK.into()),
            c_cnp: Constant::new(OPCODE_RC_CNP.into()),
            c_rtr: Constant::new((QpState::Rtr as u64).into()),
            c_sqe: Constant::new((QpState::Sqe as u64).into()),
            c_ipv6: Constant::new((GidType::RoceV2Ipv6 as u64).into()),
            c_rocev1: Constant::new((GidType::RoceV1 as u64).into()),
            c_l3_v4: Constant::new(L3_IPV4.into()),
            c_l3_v6: Constant::new(L3_IPV6.into()),
            c_l3_v1: Constant::new(L3_ROCEV1.into()),
            c_dport: Constant::new((ROCE_V2_PORT as u64).into()),
            c_pkey: Constant::new((DEFAULT_PKEY as u64).into()),
            c_df: Constant::new(0x4000u64.into()),
        }
    }
}

impl<const QA: usize> Logic for PacketFormatter<QA> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, state, a_qpn, a_opcode, a_dest_qpn, a_psn, a_ackreq, a_se, a_syndrome,
            a_msn, a_va, a_rkey, a_dlen, a_imm, a_plen, h, a_swap, a_cmp, a_orig
        );
        // defaults
        self.pk_ready.next = false;
        self.qpc.rd_valid.next = false;
        self.qpc.rd_qpn.next = self.a_qpn.q.val();
        self.hdr_valid.next = false;
        self.hdr.next = self.h.q.val();
        // GID entry of the QP's source GID index (the CSR block rejects indices >= 16): a tree
        // on the index bits (`MuxTree`), not a chain of 16 compares (one 16:1 multiplexer per
        // bit)
        self.sgi.next = self.qpc.sgid_index.val().get_bits::<4>(0);
        self.gtree.leaf[0].next = self.gid0.val();
        self.gtree.leaf[1].next = self.gid1.val();
        self.gtree.leaf[2].next = self.gid2.val();
        self.gtree.leaf[3].next = self.gid3.val();
        self.gtree.leaf[4].next = self.gid4.val();
        self.gtree.leaf[5].next = self.gid5.val();
        self.gtree.leaf[6].next = self.gid6.val();
        self.gtree.leaf[7].next = self.gid7.val();
        self.gtree.leaf[8].next = self.gid8.val();
        self.gtree.leaf[9].next = self.gid9.val();
        self.gtree.leaf[10].next = self.gid10.val();
        self.gtree.leaf[11].next = self.gid11.val();
        self.gtree.leaf[12].next = self.gid12.val();
        self.gtree.leaf[13].next = self.gid13.val();
        self.gtree.leaf[14].next = self.gid14.val();
        self.gtree.leaf[15].next = self.gid15.val();
        self.gtree.sel.next = self.sgi.val();
        self.sel_gid.next = self.gtree.out.val();
        // (an index above 15 never reaches here; it selected entry 0 when this was a chain)
        if self.qpc.sgid_index.val().get_bits::<4>(4).any() {
            self.sel_gid.next = self.gid0.val();
        }
        self.type_word.next = self.gid_type.val();
        for n in 0..16 {
            if self.qpc.sgid_index.val() == self.c_idx[n].val() {
                self.type_word.next = self.gid_type.val() >> self.c_type_sh[n].val();
            }
        }
        self.sel_type.next = self.type_word.val().get_bits::<2>(0);
        self.dscp.next = self.qpc.traffic_class.val().get_bits::<6>(2);
        if self.qpc.default_dscp.val() {
            self.dscp.next = self.cfg_traffic.val().get_bits::<6>(0);
        }
        self.is_cnp.next = self.a_opcode.q.val() == self.c_cnp.val();
        if self.is_cnp.val() {
            self.dscp.next = self.cfg_traffic.val().get_bits::<6>(8);
        }
        self.pcp.next = self.cfg_pfc.val().get_bits::<3>(0);
        if self.is_cnp.val() {
            self.pcp.next = self.cfg_pfc.val().get_bits::<3>(4);
        }
        self.ecn.next = self.cfg_traffic.val().get_bits::<2>(6);
        if (self.a_opcode.q.val() == self.c_ack.val())
            | (self.a_opcode.q.val() == self.c_atack.val())
        {
            self.ecn.next = self.cfg_traffic.val().get_bits::<2>(14);
        }
        if self.is_cnp.val() {
            self.ecn.next = self.cfg_traffic.val().get_bits::<2>(16);
        }
        self.rx_state_ok.next =
            (self.qpc.state.val() >= self.c_rtr.val()) & (self.qpc.state.val() <= self.c_sqe.val());
        self.cnp_drop.next = false;

        match self.state.q.val() {
            PktFmtState::Idle => {
                self.pk_ready.next = true;
                if self.pk_valid.val() {
                    self.a_qpn.d.next = self.pk_qpn.val();
                    self.a_opcode.d.next = self.pk_opcode.val();
                    self.a_dest_qpn.d.next = self.pk_dest_qpn.val();
                    self.a_psn.d.next = self.pk_psn.val();
                    self.a_ackreq.d.next = self.pk_ackreq.val();
                    self.a_se.d.next = self.pk_se.val();
                    self.a_syndrome.d.next = self.pk_syndrome.val();
                    self.a_msn.d.next = self.pk_msn.val();
                    self.a_va.d.next = self.pk_va.val();
                    self.a_rkey.d.next = self.pk_rkey.val();
                    self.a_dlen.d.next = self.pk_dlen.val();
                    self.a_imm.d.next = self.pk_imm.val();
                    self.a_swap.d.next = self.pk_swap.val();
                    self.a_cmp.d.next = self.pk_compare.val();
                    self.a_orig.d.next = self.pk_orig.val();
                    self.a_plen.d.next = self.pk_plen.val();
                    self.state.d.next = PktFmtState::Read;
                }
            }
            PktFmtState::Read => {
                self.qpc.rd_valid.next = true;
                if self.qpc.rd_ready.val() {
                    self.state.d.next = PktFmtState::Wait;
                }
            }
            PktFmtState::Wait => {
                if self.qpc.valid.val() {
                    // the fields not written here (DEI, IP ID, DETH, RETH, ...) are never
                    // written at all and stay 0
                    self.h.d.next.eth_dst = self.qpc.dmac.val();
                    self.h.d.next.eth_src = self.cfg_mac.val();
                    // IEEE 802.1Q tag when CFG_TRAFFIC.VLAN_TAG asks for it: one port-wide VID,
                    // the priority of the packet's kind as PCP
                    self.h.d.next.vlan = self.cfg_traffic.val().get_bit(18);
                    self.h.d.next.vlan_vid = self.cfg_traffic.val().get_bits::<12>(20);
                    self.h.d.next.vlan_pcp = self.pcp.val();
                    self.h.d.next.l3 = self.c_l3_v4.val();
                    if self.sel_type.val() == self.c_ipv6.val() {
                        self.h.d.next.l3 = self.c_l3_v6.val();
                    }
                    // a RoCEv1 source GID: GRH after Ethernet (EtherType 0x8915), no IP/UDP
                    if self.sel_type.val() == self.c_rocev1.val() {
                        self.h.d.next.l3 = self.c_l3_v1.val();
                    }
                    self.h.d.next.tclass =
                        (bit_cast::<8, 6>(self.dscp.val()) << 2) | bit_cast::<8, 2>(self.ecn.val());
                    self.h.d.next.hop_limit = self.qpc.hop_limit.val();
                    self.h.d.next.ip_frag = self.c_df.val();
                    self.h.d.next.ip4_src = self.sel_gid.val().get_bits::<32>(0);
                    self.h.d.next.ip4_dst = self.qpc.dgid.val().get_bits::<32>(0);
                    self.h.d.next.flow_label = self.qpc.flow_label.val();
                    self.h.d.next.ip6_src = self.sel_gid.val();
                    self.h.d.next.ip6_dst = self.qpc.dgid.val();
                    self.h.d.next.udp_sport = self.qpc.udp_sport.val();
                    if !self.qpc.udp_sport.val().any() {
                        self.h.d.next.udp_sport = self.cfg_udp_sport.val().get_bits::<16>(0);
                    }
                    self.h.d.next.udp_dport = self.c_dport.val();
                    self.h.d.next.opcode = self.a_opcode.q.val();
                    self.h.d.next.se = self.a_se.q.val();
                    self.h.d.next.pkey = self.c_pkey.val();
                    self.h.d.next.dest_qp = self.a_dest_qpn.q.val();
                    self.h.d.next.ack_req = self.a_ackreq.q.val();
                    self.h.d.next.psn = self.a_psn.q.val();
                    self.h.d.next.aeth_syndrome = self.a_syndrome.q.val();
                    self.h.d.next.aeth_msn = self.a_msn.q.val();
                    self.h.d.next.va = self.a_va.q.val();
                    self.h.d.next.rkey = self.a_rkey.q.val();
                    self.h.d.next.dma_len = self.a_dlen.q.val();
                    self.h.d.next.imm = self.a_imm.q.val();
                    self.h.d.next.swap_add = self.a_swap.q.val();
                    self.h.d.next.compare = self.a_cmp.q.val();
                    self.h.d.next.atomic_orig = self.a_orig.q.val();
                    self.h.d.next.payload_len = self.a_plen.q.val();
                    self.h.d.next.becn = false;
                    self.state.d.next = PktFmtState::Offer;
                    if self.is_cnp.val() {
                        self.h.d.next.dest_qp = self.qpc.dest_qpn.val();
                        self.h.d.next.becn = true;
                        self.h.d.next.udp_sport = 0.into();
                        self.h.d.next.psn = 0.into();
                        self.h.d.next.payload_len = 0.into();
                        if !self.rx_state_ok.val() {
                            self.cnp_drop.next = true;
                            self.state.d.next = PktFmtState::Idle;
                        }
                    }
                }
            }
            PktFmtState::Offer => {
                self.hdr_valid.next = true;
                if self.hdr_ready.val() {
                    self.state.d.next = PktFmtState::Idle;
                }
            }
            _ => {
                self.state.d.next = PktFmtState::Idle;
            }
        }
    }
}
