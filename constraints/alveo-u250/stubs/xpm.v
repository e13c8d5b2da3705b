// Lint stubs of three Xilinx parameterised macros (ports and parameters from UG974); see
// README.md.
// a stub ignores the parameters it declares
/* verilator lint_off UNUSEDPARAM */
module xpm_fifo_axis #(
    parameter CASCADE_HEIGHT = 0,
    parameter CDC_SYNC_STAGES = 2,
    parameter CLOCKING_MODE = "common_clock",
    parameter ECC_MODE = "no_ecc",
    parameter FIFO_DEPTH = 2048,
    parameter FIFO_MEMORY_TYPE = "auto",
    parameter PACKET_FIFO = "false",
    parameter PROG_EMPTY_THRESH = 10,
    parameter PROG_FULL_THRESH = 10,
    parameter RD_DATA_COUNT_WIDTH = 1,
    parameter RELATED_CLOCKS = 0,
    parameter SIM_ASSERT_CHK = 0,
    parameter TDATA_WIDTH = 32,
    parameter TDEST_WIDTH = 1,
    parameter TID_WIDTH = 1,
    parameter TUSER_WIDTH = 1,
    parameter USE_ADV_FEATURES = "1000",
    parameter WR_DATA_COUNT_WIDTH = 1
) (
    input wire s_aclk,
    input wire m_aclk,
    input wire s_aresetn,
    input wire s_axis_tvalid,
    output wire s_axis_tready,
    input wire [TDATA_WIDTH-1:0] s_axis_tdata,
    input wire [TDATA_WIDTH/8-1:0] s_axis_tstrb,
    input wire [TDATA_WIDTH/8-1:0] s_axis_tkeep,
    input wire s_axis_tlast,
    input wire [TID_WIDTH-1:0] s_axis_tid,
    input wire [TDEST_WIDTH-1:0] s_axis_tdest,
    input wire [TUSER_WIDTH-1:0] s_axis_tuser,
    output wire m_axis_tvalid,
    input wire m_axis_tready,
    output wire [TDATA_WIDTH-1:0] m_axis_tdata,
    output wire [TDATA_WIDTH/8-1:0] m_axis_tstrb,
    output wire [TDATA_WIDTH/8-1:0] m_axis_tkeep,
    output wire m_axis_tlast,
    output wire [TID_WIDTH-1:0] m_axis_tid,
    output wire [TDEST_WIDTH-1:0] m_axis_tdest,
    output wire [TUSER_WIDTH-1:0] m_axis_tuser,
    output wire prog_full_axis,
    output wire [WR_DATA_COUNT_WIDTH-1:0] wr_data_count_axis,
    output wire almost_full_axis,
    output wire prog_empty_axis,
    output wire [RD_DATA_COUNT_WIDTH-1:0] rd_data_count_axis,
    output wire almost_empty_axis,
    input wire injectsbiterr_axis,
    input wire injectdbiterr_axis,
    output wire sbiterr_axis,
    output wire dbiterr_axis
);
    assign s_axis_tready = 1'b0;
    assign m_axis_tvalid = 1'b0;
    assign m_axis_tdata = {TDATA_WIDTH{1'b0}};
    assign m_axis_tstrb = {TDATA_WIDTH/8{1'b0}};
    assign m_axis_tkeep = {TDATA_WIDTH/8{1'b0}};
    assign m_axis_tlast = 1'b0;
    assign m_axis_tid = {TID_WIDTH{1'b0}};
    assign m_axis_tdest = {TDEST_WIDTH{1'b0}};
    assign m_axis_tuser = {TUSER_WIDTH{1'b0}};
    assign prog_full_axis = 1'b0;
    assign wr_data_count_axis = {WR_DATA_COUNT_WIDTH{1'b0}};
    assign almost_full_axis = 1'b0;
    assign prog_empty_axis = 1'b0;
    assign rd_data_count_axis = {RD_DATA_COUNT_WIDTH{1'b0}};
    assign almost_empty_axis = 1'b0;
    assign sbiterr_axis = 1'b0;
    assign dbiterr_axis = 1'b0;
    wire unused_ok = ^{s_aclk, m_aclk, s_aresetn, s_axis_tvalid, s_axis_tdata, s_axis_tstrb,
                       s_axis_tkeep, s_axis_tlast, s_axis_tid, s_axis_tdest, s_axis_tuser,
                       m_axis_tready, injectsbiterr_axis, injectdbiterr_axis};
endmodule

module xpm_cdc_single #(
    parameter DEST_SYNC_FF = 4,
    parameter INIT_SYNC_FF = 0,
    parameter SIM_ASSERT_CHK = 0,
    parameter SRC_INPUT_REG = 1
) (
    input wire src_clk,
    input wire src_in,
    input wire dest_clk,
    output wire dest_out
);
    assign dest_out = 1'b0;
    wire unused_ok = ^{src_clk, src_in, dest_clk};
endmodule

module xpm_cdc_async_rst #(
    parameter DEST_SYNC_FF = 4,
    parameter INIT_SYNC_FF = 0,
    parameter RST_ACTIVE_HIGH = 0
) (
    input wire src_arst,
    input wire dest_clk,
    output wire dest_arst
);
    assign dest_arst = 1'b0;
    wire unused_ok = ^{src_arst, dest_clk};
endmodule
