//! The NIC top level and the glue between its engines.
//!
//! * [`AckFormatter`]: the responder's ACK/NAK decisions -> complete ACKNOWLEDGE descriptors
//!   for the TX header builder, addressed from the QP's context and the GID table.
//! * [`NicTop`]: the whole NIC (CSR block, RX parser, WRITE responder, ACK path, TX builder).
//! * [`QpcReadMux`]: shares the CSR block's QP-context read port between the receive path
//!   (priority) and a sender.
pub mod ack_formatter;
pub mod qpc_mux;
pub mod top;

pub use ack_formatter::AckFormatter;
pub use qpc_mux::QpcReadMux;
pub use top::NicTop;

#[cfg(test)]
mod tests;
