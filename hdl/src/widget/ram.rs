//! [`NoRwRam`]: a simple dual-port block RAM (one synchronous read port, one write port, one
//! clock) whose read-during-write collision result is **don't care**, zero-initialised.
//!
//! Why not rust-hdl's `RAM`: its Verilog reads the old word on a same-address collision
//! (read-before-write across two ports), which the ECP5/Xilinx block RAMs do not guarantee, so
//! Yosys emulates it with a delayed write and a bypass (`emulate_read_first`) around every
//! memory: measured on `MrTable1k`, a few hundred flip-flops and LUTs for nothing, because
//! the table never uses the read data of a collision. This widget marks the memory
//! `(* no_rw_check *)` so Yosys maps it straight onto the block RAM, and initialises every row
//! to 0 with a loop (Icarus would otherwise read X from unwritten rows). It also asks for block
//! RAM (`ram_style = "block"`): left to choose, Yosys 0.23 puts a 1024 x 1 memory into Xilinx
//! LUT RAM (RAM64M) and then `synth_xilinx -abc9` aborts (`std::out_of_range` in ABC9_OPS).
//!
//! Simulation model: a collision returns all ones (a "poison" word: for a valid bit it means
//! valid, the most dangerous value), so a design that wrongly used a collision's data would
//! diverge from the software oracle and from the co-simulation (Verilator returns the old
//! word), instead of silently passing.
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct NoRwRam<const W: usize, const A: usize> {
    pub clock: Signal<In, Clock>,
    pub read_address: Signal<In, Bits<A>>,
    /// `mem[read_address]` sampled at the rising edge (all ones in simulation if the same
    /// address is written at that edge).
    pub read_data: Signal<Out, Bits<W>>,
    pub write_address: Signal<In, Bits<A>>,
    pub write_data: Signal<In, Bits<W>>,
    pub write_enable: Signal<In, Bit>,
    _mem: Vec<Bits<W>>,
}

impl<const W: usize, const A: usize> Default for NoRwRam<W, A> {
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

impl<const W: usize, const A: usize> Logic for NoRwRam<W, A> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let collide =
                self.write_enable.val() && self.write_address.val() == self.read_address.val();
            self.read_data.next = if collide {
                Bits::<W>::mask()
            } else {
                self._mem[self.read_address.val().index()]
            };
            if self.write_enable.val() {
                self._mem[self.write_address.val().index()] = self.write_data.val();
            }
        }
    }

    fn connect(&mut self) {
        self.read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "\
(* no_rw_check, ram_style = \"block\" *)
reg [{w}:0] mem [0:{last}];
integer i;

initial begin
   for (i = 0; i <= {last}; i = i + 1) mem[i] = {W}'h0;
end

always @(posedge clock) begin
   read_data <= mem[read_address];
   if (write_enable) begin
      mem[write_address] <= write_data;
   end
end
",
            w = W - 1,
            last = (1usize << A) - 1,
        ))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![
            TimingInfo {
                name: "ram_read".into(),
                clock: "clock".into(),
                inputs: vec!["read_address".into()],
                outputs: vec!["read_data".into()],
            },
            TimingInfo {
                name: "ram_write".into(),
                clock: "clock".into(),
                inputs: vec![
                    "write_address".into(),
                    "write_data".into(),
                    "write_enable".into(),
                ],
                outputs: vec![],
            },
        ]
    }
}
