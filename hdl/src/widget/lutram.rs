//! [`LutRam`]: a small memory with one write port (synchronous) and one asynchronous
//! (combinational) read port, zero-initialised: what the ECP5's distributed RAM
//! (`TRELLIS_DPR16X4`) and the Xilinx LUT RAMs are.
//!
//! Why not rust-hdl's `RAM`: its read port is synchronous; a register file read through the
//! CSR bus needs the word in the cycle of the address. Why not registers and a multiplexer:
//! Yosys 0.23 `synth_ecp5` maps a 64:1 multiplexer of 32-bit registers to about 3,100 LUT4
//! (and 2,000 flip-flops), the same memory in distributed RAM to 32 `TRELLIS_DPR16X4` and 132
//! LUT4.
//!
//! `read_data` is `mem[read_address]` at all times; a write at a rising edge is visible from
//! that edge on (as a register would be).
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct LutRam<const W: usize, const A: usize> {
    pub clock: Signal<In, Clock>,
    pub read_address: Signal<In, Bits<A>>,
    pub read_data: Signal<Out, Bits<W>>,
    pub write_address: Signal<In, Bits<A>>,
    pub write_data: Signal<In, Bits<W>>,
    pub write_enable: Signal<In, Bit>,
    _mem: Vec<Bits<W>>,
}

impl<const W: usize, const A: usize> Default for LutRam<W, A> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            read_address: Default::default(),
            read_data: Default::default(),
            write_address: Default::default(),
            write_data: Default::default(),
            write_enable: Default::default(),
            _mem: vec![Bits::<W>::default(); 1 << A],
        }
    }
}

impl<const W: usize, const A: usize> Logic for LutRam<W, A> {
    fn update(&mut self) {
        if self.clock.pos_edge() && self.write_enable.val() {
            self._mem[self.write_address.val().index()] = self.write_data.val();
        }
        self.read_data.next = self._mem[self.read_address.val().index()];
    }

    fn connect(&mut self) {
        self.read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "\
reg [{w}:0] mem [0:{last}];
wire [{w}:0] mem_rd;
integer i;

initial begin
   for (i = 0; i <= {last}; i = i + 1) mem[i] = {W}'h0;
end

always @(posedge clock) begin
   if (write_enable) begin
      mem[write_address] <= write_data;
   end
end

assign mem_rd = mem[read_address];

always @(*) begin
   read_data = mem_rd;
end
",
            w = W - 1,
            last = (1usize << A) - 1,
        ))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "lutram_write".into(),
            clock: "clock".into(),
            inputs: vec![
                "write_address".into(),
                "write_data".into(),
                "write_enable".into(),
            ],
            outputs: vec![],
        }]
    }
}
