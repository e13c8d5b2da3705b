//! [`RcReadResponder`]: sends the response packets of one RDMA READ at a time (IBTA Vol 1, 9.7;
//! docs/PROTOCOL.md §7): READ_RESPONSE FIRST / MIDDLE / LAST (13, 14, 15) or ONLY (16) for a zero-
//! or one-packet read, one PSN each from the request's, PMTU payload except the last, AETH (ACK,
//! the message's MSN) on FIRST, LAST and ONLY. The payload is read from host memory by DMA, one
//! read per packet, at the address the responder's MR check translated.
//!
//! A job comes from the responder's ordered ACK queue when the READ request reaches its head,
//! so the responses of a QP go out in PSN order with its ACKs. `busy` stays high until the
//! last packet's header has been taken: the ACK queue holds everything after the READ until
//! then (the payload still in the FIFO follows its header through the TX path in order).
//!
//! A payload beat from a failed DMA read (`rsp_error`, docs/DMA.md 6) sets `pay_bad` for the
//! rest of its packet: the TX builder sends that response with its ICRC complemented, so the
//! requester drops it and asks again (its READ retry), and the bytes never reach its memory.
//!
//! The payload goes through a FIFO of 512 beats (one 4096-byte packet), and a packet's DMA read
//! is issued only when the FIFO has room for all of it: the DMA read channel is shared, in
//! order, with the requester and the responder's descriptor reads, so a response must never
//! wait there for the TX path (which may be sending a requester packet that waits for its own
//! reads behind it).
use crate::csr::qp_config::PMTU_W;
use crate::dma::DmaReadMaster;
use crate::stream::StreamSource;
use ferroce_proto::wire::Opcode;
use rust_hdl::prelude::*;

// READ_RESPONSE opcodes the kernel uses as literals.
const _: () = assert!(
    Opcode::RC_RDMA_READ_RESPONSE_FIRST.0 == 13
        && Opcode::RC_RDMA_READ_RESPONSE_MIDDLE.0 == 14
        && Opcode::RC_RDMA_READ_RESPONSE_LAST.0 == 15
        && Opcode::RC_RDMA_READ_RESPONSE_ONLY.0 == 16
);

#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum ReadRespState {
    Idle,
    Room,
    Hdr,
}

#[derive(LogicBlock)]
pub struct RcReadResponder<const QA: usize> {
    pub clock: Signal<In, Clock>,
    // ---- a READ to answer ----
    pub job_valid: Signal<In, Bit>,
    pub job_ready: Signal<Out, Bit>,
    pub job_qpn: Signal<In, Bits<QA>>,
    pub job_dest_qpn: Signal<In, Bits<24>>,
    pub job_psn: Signal<In, Bits<24>>,
    pub job_msn: Signal<In, Bits<24>>,
    pub job_syndrome: Signal<In, Bits<8>>,
    /// translated host address and length (the MR check covered the whole range)
    pub job_addr: Signal<In, Bits<64>>,
    pub job_len: Signal<In, Bits<32>>,
    pub job_pmtu: Signal<In, Bits<PMTU_W>>,
    /// a job is being sent (its last header not taken yet)
    pub busy: Signal<Out, Bit>,
    // ---- response packets (to the packet formatter) ----
    pub pk_valid: Signal<Out, Bit>,
    pub pk_ready: Signal<In, Bit>,
    pub pk_qpn: Signal<Out, Bits<QA>>,
    pub pk_dest_qpn: Signal<Out, Bits<24>>,
    pub pk_opcode: Signal<Out, Bits<8>>,
    pub pk_psn: Signal<Out, Bits<24>>,
    pub pk_syndrome: Signal<Out, Bits<8>>,
    pub pk_msn: Signal<Out, Bits<24>>,
    pub pk_plen: Signal<Out, Bits<13>>,
    pub pay: StreamSource<64, 8>,
    /// valid with `pay` beats: the packet's payload read failed so far (poison the frame)
    pub pay_bad: Signal<Out, Bit>,
    // ---- payload reads ----
    pub dma_rd: DmaReadMaster<64, 8>,

    pfifo: SynchronousFIFO<Bits<74>, 9, 10, 1>,
    /// a beat of the packet being sent came from a failed read
    bad: DFF<Bit>,
    /// beats reserved in the FIFO (issued reads not yet popped)
    resv: DFF<Bits<11>>,
    state: DFF<ReadRespState>,
    r_qpn: DFF<Bits<QA>>,
    r_dest: DFF<Bits<24>>,
    r_psn: DFF<Bits<24>>,
    r_msn: DFF<Bits<24>>,
    r_syn: DFF<Bits<8>>,
    r_addr: DFF<Bits<64>>,
    r_rem: DFF<Bits<32>>,
    r_pmtu: DFF<Bits<PMTU_W>>,
    r_first: DFF<Bit>,
    /// the packet's read was issued
    r_rdd: DFF<Bit>,
    c_128: Constant<Bits<13>>,
    pmtu: Signal<Local, Bits<13>>,
    plen: Signal<Local, Bits<13>>,
    is_last: Signal<Local, Bit>,
    beats: Signal<Local, Bits<11>>,
    p7: Signal<Local, Bits<13>>,
    lastb: Signal<Local, Bits<74>>,
    room: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    rd_fire: Signal<Local, Bit>,
    fout: Signal<Local, Bits<74>>,
    c_err_bit: Constant<Bits<74>>,
}

impl<const QA: usize> Default for RcReadResponder<QA> {
    fn default() -> Self {
        RcReadResponder {
            clock: Default::default(),
            job_valid: Default::default(),
            job_ready: Default::default(),
            job_qpn: Default::default(),
            job_dest_qpn: Default::default(),
            job_psn: Default::default(),
            job_msn: Default::default(),
            job_syndrome: Default::default(),
            job_addr: Default::default(),
            job_len: Default::default(),
            job_pmtu: Default::default(),
            busy: Default::default(),
            pk_valid: Default::default(),
            pk_ready: Default::default(),
            pk_qpn: Default::default(),
            pk_dest_qpn: Default::default(),
            pk_opcode: Default::default(),
            pk_psn: Default::default(),
            pk_syndrome: Default::default(),
            pk_msn: Default::default(),
            pk_plen: Default::default(),
            pay: Default::default(),
            pay_bad: Default::default(),
            dma_rd: Default::default(),
            pfifo: Default::default(),
            bad: Default::default(),
            c_err_bit: Constant::new(Bits::<74>::from(1u64) << 73),
            resv: Default::default(),
            state: Default::default(),
            r_qpn: Default::default(),
            r_dest: Default::default(),
            r_psn: Default::default(),
            r_msn: Default::default(),
            r_syn: Default::default(),
            r_addr: Default::default(),
            r_rem: Default::default(),
            r_pmtu: Default::default(),
            r_first: Default::default(),
            r_rdd: Default::default(),
            c_128: Constant::new(128u64.into()),
            pmtu: Default::default(),
            plen: Default::default(),
            is_last: Default::default(),
            beats: Default::default(),
            p7: Default::default(),
            lastb: Default::default(),
            room: Default::default(),
            pop: Default::default(),
            rd_fire: Default::default(),
            fout: Default::default(),
        }
    }
}

impl<const QA: usize> Logic for RcReadResponder<QA> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, pfifo);
        dff_setup!(
            self, clock, resv, state, r_qpn, r_dest, r_psn, r_msn, r_syn, r_addr, r_rem, r_pmtu,
            r_first, r_rdd, bad
        );
        // this packet: min(PMTU, the rest); PMTU bytes = 128 << code (1 = 256 .. 5 = 4096)
        self.pmtu.next = self.c_128.val() << self.r_pmtu.q.val();
        self.plen.next = self.pmtu.val();
        if self.r_rem.q.val() < bit_cast::<32, 13>(self.pmtu.val()) {
            self.plen.next = self.r_rem.q.val().get_bits::<13>(0);
        }
        self.is_last.next = self.r_rem.q.val() == bit_cast::<32, 13>(self.plen.val());
        // beats of its read, and whether the FIFO can take them besides what is reserved
        self.p7.next = self.plen.val() + 7;
        self.beats.next = bit_cast::<11, 10>(self.p7.val().get_bits::<10>(3));
        self.room.next = self.resv.q.val() + self.beats.val() <= 512;

        // payload: DMA read data into the FIFO (room was reserved), out of it to the TX path
        self.pfifo.write.next = self.dma_rd.rsp.valid.val();
        self.lastb.next = 0.into();
        if self.dma_rd.rsp.last.val() {
            self.lastb.next = 1.into();
        }
        if self.dma_rd.rsp_error.val() {
            self.lastb.next = self.lastb.val() | self.c_err_bit.val();
        }
        self.pfifo.data_in.next = (bit_cast::<74, 64>(self.dma_rd.rsp.data.val()) << 9)
            | (bit_cast::<74, 8>(self.dma_rd.rsp.keep.val()) << 1)
            | self.lastb.val();
        self.dma_rd.rsp.ready.next = !self.pfifo.full.val();
        self.fout.next = self.pfifo.data_out.val();
        self.pay.valid.next = !self.pfifo.empty.val();
        self.pay.data.next = self.fout.val().get_bits::<64>(9);
        self.pay.keep.next = self.fout.val().get_bits::<8>(1);
        self.pay.last.next = self.fout.val().get_bit(0);
        self.pop.next = !self.pfifo.empty.val() & self.pay.ready.val();
        self.pfifo.read.next = self.pop.val();
        self.pay_bad.next = self.bad.q.val() | self.fout.val().get_bit(73);
        if self.pop.val() {
            self.bad.d.next = self.bad.q.val() | self.fout.val().get_bit(73);
            if self.fout.val().get_bit(0) {
                self.bad.d.next = false;
            }
        }

        // defaults
        self.job_ready.next = false;
        self.busy.next = self.state.q.val() != ReadRespState::Idle;
        self.pk_valid.next = false;
        self.pk_qpn.next = self.r_qpn.q.val();
        self.pk_dest_qpn.next = self.r_dest.q.val();
        self.pk_psn.next = self.r_psn.q.val();
        self.pk_syndrome.next = self.r_syn.q.val();
        self.pk_msn.next = self.r_msn.q.val();
        self.pk_plen.next = self.plen.val();
        self.pk_opcode.next = 14.into();
        if self.r_first.q.val() & self.is_last.val() {
            self.pk_opcode.next = 16.into();
        } else if self.r_first.q.val() {
            self.pk_opcode.next = 13.into();
        } else if self.is_last.val() {
            self.pk_opcode.next = 15.into();
        }
        self.dma_rd.req_valid.next = false;
        self.dma_rd.req_addr.next = self.r_addr.q.val();
        self.dma_rd.req_len.next = bit_cast::<16, 13>(self.plen.val());
        self.dma_rd.req_tag.next = 0.into();
        self.rd_fire.next = false;

        match self.state.q.val() {
            ReadRespState::Idle => {
                self.job_ready.next = true;
                if self.job_valid.val() {
                    self.r_qpn.d.next = self.job_qpn.val();
                    self.r_dest.d.next = self.job_dest_qpn.val();
                    self.r_psn.d.next = self.job_psn.val();
                    self.r_msn.d.next = self.job_msn.val();
                    self.r_syn.d.next = self.job_syndrome.val();
                    self.r_addr.d.next = self.job_addr.val();
                    self.r_rem.d.next = self.job_len.val();
                    self.r_pmtu.d.next = self.job_pmtu.val();
                    self.r_first.d.next = true;
                    self.r_rdd.d.next = false;
                    self.state.d.next = ReadRespState::Room;
                }
            }
            ReadRespState::Room => {
                // the packet's payload read, once the FIFO can take all of it (none for an
                // empty READ)
                if self.plen.val() == 0 {
                    self.state.d.next = ReadRespState::Hdr;
                } else {
                    self.dma_rd.req_valid.next = self.room.val();
                    self.rd_fire.next = self.room.val() & self.dma_rd.req_ready.val();
                    if self.rd_fire.val() {
                        self.state.d.next = ReadRespState::Hdr;
                    }
                }
            }
            ReadRespState::Hdr => {
                self.pk_valid.next = true;
                if self.pk_ready.val() {
                    self.r_first.d.next = false;
                    self.r_psn.d.next = self.r_psn.q.val() + 1;
                    self.r_addr.d.next = self.r_addr.q.val() + bit_cast::<64, 13>(self.plen.val());
                    self.r_rem.d.next = self.r_rem.q.val() - bit_cast::<32, 13>(self.plen.val());
                    self.state.d.next = ReadRespState::Room;
                    if self.is_last.val() {
                        self.state.d.next = ReadRespState::Idle;
                    }
                }
            }
        }
        // reservations: + the beats of an issued read, - one per beat popped
        if self.rd_fire.val() & !self.pop.val() {
            self.resv.d.next = self.resv.q.val() + self.beats.val();
        }
        if self.rd_fire.val() & self.pop.val() {
            self.resv.d.next = self.resv.q.val() + self.beats.val() - 1;
        }
        if !self.rd_fire.val() & self.pop.val() {
            self.resv.d.next = self.resv.q.val() - 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_responder_synthesizes() {
        crate::csr::synth_check(&mut RcReadResponder::<8>::default(), "read_responder");
    }
}
