//! Board top levels and the blocks only a board needs (docs/INTEGRATION.md).
//!
//! * [`UartRx`], [`UartTx`]: 8N1 serial receiver and transmitter.
//! * [`UartAxil`]: UART to AXI4-Lite bridge: registers (BAR0) from a PC over the board's
//!   USB UART, with a five-command-byte protocol (docs/INTEGRATION.md, "UART register
//!   protocol").
pub mod uart_axil;
pub mod uart_rx;
pub mod uart_tx;

pub use uart_axil::UartAxil;
pub use uart_rx::UartRx;
pub use uart_tx::UartTx;
