//! Completion queues on the NIC side: [`CqeWriter`] owns every CQ's producer index and arm
//! state, writes CQEs into the rings in host memory and raises CQ interrupts.
pub mod cqe_writer;

pub use cqe_writer::CqeWriter;

#[cfg(test)]
mod tests;
