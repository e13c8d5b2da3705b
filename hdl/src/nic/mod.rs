//! The NIC top level and the glue between its engines.
//!
//! * [`NicTop`]: the whole NIC (CSR block, RX parser, WRITE responder, requester and completer,
//!   CQE writer, packet formatter, TX builder).
//! * [`PacketFormatter`]: a packet request (responder ACK/NAK or requester packet) -> complete
//!   header descriptor for the TX builder, addressed from the QP's context and the GID table.
//! * [`QpcReadMux`]: shares the CSR block's QP-context read port between the receive path
//!   (priority), the formatter and the requester.
//! * [`MrPortMux`]: shares the MR table's lookup port (responder first, requester's gather).
//! * [`DmaWriteMux`]: shares the DMA write channel (responder's placement, CQE writer).
//! * [`DmaReadMux`]: shares the DMA read channel (responder's receive WQEs, requester).
//! * [`TimeBase`]: the 1.024 us tick of the transport timers.
pub mod dma_rd_mux;
#[cfg(test)]
mod dma_rd_mux_tests;
pub mod dma_wr_mux;
pub mod mr_mux;
pub mod packet_formatter;
pub mod qpc_mux;
pub mod time_base;
pub mod top;

pub use dma_rd_mux::DmaReadMux;
pub use dma_wr_mux::DmaWriteMux;
pub use mr_mux::MrPortMux;
pub use packet_formatter::PacketFormatter;
pub use qpc_mux::QpcReadMux;
pub use time_base::TimeBase;
pub use top::NicTop;

#[cfg(test)]
mod tests;
