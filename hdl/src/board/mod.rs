//! Board top levels and the blocks only a board needs (docs/INTEGRATION.md).
//!
//! * [`UartRx`], [`UartTx`]: 8N1 serial receiver and transmitter.
//! * [`UartAxil`]: UART to AXI4-Lite bridge: registers (BAR0) from a PC over the board's
//!   USB UART, with a five-command-byte protocol (docs/INTEGRATION.md, "UART register
//!   protocol").
//! * [`MacTx`], [`MacRx`]: 1 Gb/s Ethernet MAC halves on a GMII-style byte interface:
//!   preamble/SFD, padding, FCS generated (IEEE 802.3 clause 3.2.9) and checked, bad frames
//!   dropped and counted, inter-frame gap.
//! * [`DmaAxi4Bridge`]: the NIC's DMA port served as an AXI4 master (64-bit address and
//!   data, INCR bursts split at 4 KiB), for XDMA's AXI slave bridge or QDMA's (docs/DMA.md
//!   section 7.1).
//! * [`OnChipHostMemory`]: "host memory" in block RAM served on the DMA port, with an
//!   AXI4-Lite port through which a PC (over [`UartAxil`]) loads WQEs and data and reads CQEs.
//! * [`ReadRealign`], [`WriteRealign`]: the byte realignment between 8-byte memory words and
//!   the DMA port's streams at any address alignment, shared by [`DmaAxi4Bridge`] and
//!   [`OnChipHostMemory`].
//! * [`StreamWidthUp8To64`], [`StreamWidthDown64To8`]: between the MAC's 8-bit frames and the
//!   NIC's 64-bit ferroce stream.
//! * [`AxilSplit`]: the UART bridge's AXI4-Lite bus to two slaves by address bit 31 (the
//!   NIC's registers and the host memory).
//! * [`StreamCdcFifo64`]: a 64-bit stream from one clock domain to another (rust-hdl's
//!   asynchronous FIFO).
//! * [`StreamPacketFifo64`]: store-and-forward of 64-bit frames (a frame leaves whole and
//!   without gaps, as `MacTx` needs).
//! * [`RgmiiEcp5`]: the RGMII pins of a 1 Gb/s PHY on ECP5 (IDDRX1F/ODDRX1F/DELAYG) to the
//!   MAC's GMII-style byte interface.
//! * [`Ecpix5Top`] (with [`Ecpix5Core`] and the PLL [`Ecp5Pll`]): the LambdaConcept ECPIX-5
//!   85F top level joining the blocks above around the NIC (`constraints/ecpix5-85f/`).
pub mod axil_split;
pub mod dma_axi4;
pub mod ecpix5_top;
pub mod host_memory;
pub mod mac_rx;
pub mod mac_tx;
pub mod packet_fifo;
pub mod read_align;
pub mod rgmii_ecp5;
pub mod stream_cdc;
pub mod uart_axil;
pub mod uart_rx;
pub mod uart_tx;
pub mod width_down;
pub mod width_up;
pub mod write_align;

pub use axil_split::AxilSplit;
pub use dma_axi4::DmaAxi4Bridge;
pub use ecpix5_top::{Ecp5Pll, Ecpix5Core, Ecpix5Top};
pub use host_memory::{HostMemory64K, OnChipHostMemory};
pub use mac_rx::MacRx;
pub use mac_tx::MacTx;
pub use packet_fifo::StreamPacketFifo64;
pub use read_align::ReadRealign;
pub use rgmii_ecp5::RgmiiEcp5;
pub use stream_cdc::StreamCdcFifo64;
pub use uart_axil::UartAxil;
pub use uart_rx::UartRx;
pub use uart_tx::UartTx;
pub use width_down::StreamWidthDown64To8;
pub use width_up::StreamWidthUp8To64;
pub use write_align::WriteRealign;
