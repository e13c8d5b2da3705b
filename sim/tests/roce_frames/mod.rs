//! Hand-built RC request frames from the peer (10.0.0.1, 02:..:01) to the NIC under test
//! (10.0.0.2, 02:..:02), shared by the whole-NIC tests.
#![allow(dead_code)]
use ferroce_proto::wire::{
    AtomicEthRepr, BthRepr, EthernetRepr, ExtHeaders, FrameRepr, ImmDtRepr, Opcode, RethRepr,
    RoceNet,
};

pub const LOCAL_MAC: [u8; 6] = [0x02, 0, 0, 0, 0, 0x02];
pub const REMOTE_MAC: [u8; 6] = [0x02, 0, 0, 0, 0, 0x01];
pub const LOCAL_IP: [u8; 4] = [10, 0, 0, 2];
pub const REMOTE_IP: [u8; 4] = [10, 0, 0, 1];

/// An RC request to QP `qpn`: AckReq on ONLY/LAST, RETH `(va, rkey, dma_len)` when given.
pub fn request(
    qpn: u32,
    opcode: Opcode,
    psn: u32,
    reth: Option<(u64, u32, u32)>,
    payload: Vec<u8>,
) -> Vec<u8> {
    request_to(LOCAL_IP, qpn, opcode, psn, reth, payload)
}

/// The same to destination IP `dst` (still to the NIC's MAC).
pub fn request_to(
    dst: [u8; 4],
    qpn: u32,
    opcode: Opcode,
    psn: u32,
    reth: Option<(u64, u32, u32)>,
    payload: Vec<u8>,
) -> Vec<u8> {
    let mut bth = BthRepr::new(opcode, qpn, psn);
    bth.ack_req = matches!(
        opcode,
        Opcode::RC_RDMA_WRITE_ONLY | Opcode::RC_RDMA_WRITE_LAST
    );
    let ext = ExtHeaders {
        reth: reth.map(|(va, rkey, dma_len)| RethRepr { va, rkey, dma_len }),
        ..ExtHeaders::default()
    };
    let net = RoceNet::ipv4(REMOTE_IP, dst, 0xC123);
    let eth = EthernetRepr {
        dst: LOCAL_MAC,
        src: REMOTE_MAC,
        vlan: None,
        ethertype: net.ethertype(),
    };
    FrameRepr::new_roce(eth, net, bth, ext, payload).emit()
}

/// An RC SEND (any of the six opcodes) to QP `qpn`, AckReq on ONLY/LAST, with immediate data
/// when the opcode carries it.
pub fn send(qpn: u32, opcode: Opcode, psn: u32, imm: u32, payload: Vec<u8>) -> Vec<u8> {
    let mut bth = BthRepr::new(opcode, qpn, psn);
    bth.ack_req = !matches!(opcode, Opcode::RC_SEND_FIRST | Opcode::RC_SEND_MIDDLE);
    let with_imm = matches!(
        opcode,
        Opcode::RC_SEND_LAST_WITH_IMMEDIATE | Opcode::RC_SEND_ONLY_WITH_IMMEDIATE
    );
    let ext = ExtHeaders {
        imm_dt: with_imm.then_some(ImmDtRepr { imm }),
        ..ExtHeaders::default()
    };
    let net = RoceNet::ipv4(REMOTE_IP, LOCAL_IP, 0xC123);
    let eth = EthernetRepr {
        dst: LOCAL_MAC,
        src: REMOTE_MAC,
        vlan: None,
        ethertype: net.ethertype(),
    };
    FrameRepr::new_roce(eth, net, bth, ext, payload).emit()
}

/// An RC atomic (COMPARE_SWAP or FETCH_ADD) to QP `qpn`: AtomicETH `(va, rkey, swap_add,
/// compare)`, AckReq set, no payload.
pub fn atomic(
    qpn: u32,
    opcode: Opcode,
    psn: u32,
    va: u64,
    rkey: u32,
    swap_add: u64,
    compare: u64,
) -> Vec<u8> {
    let mut bth = BthRepr::new(opcode, qpn, psn);
    bth.ack_req = true;
    let ext = ExtHeaders {
        atomic_eth: Some(AtomicEthRepr {
            va,
            rkey,
            swap_add,
            compare,
        }),
        ..ExtHeaders::default()
    };
    let net = RoceNet::ipv4(REMOTE_IP, LOCAL_IP, 0xC123);
    let eth = EthernetRepr {
        dst: LOCAL_MAC,
        src: REMOTE_MAC,
        vlan: None,
        ethertype: net.ethertype(),
    };
    FrameRepr::new_roce(eth, net, bth, ext, vec![]).emit()
}
