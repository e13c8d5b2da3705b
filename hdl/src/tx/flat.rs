//! `TxHeaderBuilderFlat`: [`TxHeaderBuilder`] with the descriptor as a plain `Bits` port.
//!
//! Why: the co-simulation harness (`crate::cosim`) drives and compares top-level ports of
//! `Bits`/`Bit`/enum type only, not `LogicStruct` ports. The flat port carries exactly the bits
//! of [`RoceHeader`] in rust-hdl's struct layout (first field in the LSBs), and the assignment
//! to the inner port is a plain wire in Verilog, so this wrapper adds no logic.
//!
//! Ports: as [`TxHeaderBuilder`], with `desc: Bits<ROCE_HEADER_BITS>`.
use super::TxHeaderBuilder;
use crate::header::ROCE_HEADER_BITS;
use crate::stream::{Sink64, Source64, StreamSink, StreamSource};
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct TxHeaderBuilderFlat {
    pub clock: Signal<In, Clock>,
    pub desc_valid: Signal<In, Bit>,
    pub desc_ready: Signal<Out, Bit>,
    pub desc: Signal<In, Bits<ROCE_HEADER_BITS>>,
    pub pay: Sink64,
    pub pay_bad: Signal<In, Bit>,
    pub out: Source64,
    builder: TxHeaderBuilder,
}

impl Logic for TxHeaderBuilderFlat {
    #[hdl_gen]
    fn update(&mut self) {
        self.builder.clock.next = self.clock.val();
        self.builder.desc_valid.next = self.desc_valid.val();
        self.builder.desc.next = self.desc.val().into();
        self.desc_ready.next = self.builder.desc_ready.val();
        StreamSink::<64, 8>::link(&mut self.pay, &mut self.builder.pay);
        self.builder.pay_bad.next = self.pay_bad.val();
        StreamSource::<64, 8>::link(&mut self.out, &mut self.builder.out);
    }
}
