// Lint stubs of two UltraScale+ primitives (ports from UG974); see README.md.
// a stub ignores the parameters it declares
/* verilator lint_off UNUSEDPARAM */
module IBUFDS_GTE4 #(
    parameter [0:0] REFCLK_EN_TX_PATH = 1'b0,
    parameter [1:0] REFCLK_HROW_CK_SEL = 2'b00,
    parameter [1:0] REFCLK_ICNTL_RX = 2'b00
) (
    input wire I,
    input wire IB,
    input wire CEB,
    output wire O,
    output wire ODIV2
);
    assign O = 1'b0;
    assign ODIV2 = 1'b0;
    wire unused_ok = I ^ IB ^ CEB;
endmodule

module BUFG_GT (
    input wire I,
    input wire CE,
    input wire CEMASK,
    input wire CLR,
    input wire CLRMASK,
    input wire [2:0] DIV,
    output wire O
);
    assign O = 1'b0;
    wire unused_ok = ^{I, CE, CEMASK, CLR, CLRMASK, DIV};
endmodule
