// Lint stubs of two axi_dwidth_converter instances (PG059), synchronous clocks, 64-bit
// addresses; the master side of a width converter carries no ID. See README.md.
// axi_bar_dwidth: 512 -> 32 bits (BAR0 accesses from the XDMA's M_AXI_B).
module axi_bar_dwidth (
    input wire s_axi_aclk,
    input wire s_axi_aresetn,
    input wire [3:0] s_axi_awid,
    input wire [63:0] s_axi_awaddr,
    input wire [7:0] s_axi_awlen,
    input wire [2:0] s_axi_awsize,
    input wire [1:0] s_axi_awburst,
    input wire s_axi_awlock,
    input wire [3:0] s_axi_awcache,
    input wire [2:0] s_axi_awprot,
    input wire [3:0] s_axi_awregion,
    input wire [3:0] s_axi_awqos,
    input wire s_axi_awvalid,
    output wire s_axi_awready,
    input wire [511:0] s_axi_wdata,
    input wire [63:0] s_axi_wstrb,
    input wire s_axi_wlast,
    input wire s_axi_wvalid,
    output wire s_axi_wready,
    output wire [3:0] s_axi_bid,
    output wire [1:0] s_axi_bresp,
    output wire s_axi_bvalid,
    input wire s_axi_bready,
    input wire [3:0] s_axi_arid,
    input wire [63:0] s_axi_araddr,
    input wire [7:0] s_axi_arlen,
    input wire [2:0] s_axi_arsize,
    input wire [1:0] s_axi_arburst,
    input wire s_axi_arlock,
    input wire [3:0] s_axi_arcache,
    input wire [2:0] s_axi_arprot,
    input wire [3:0] s_axi_arregion,
    input wire [3:0] s_axi_arqos,
    input wire s_axi_arvalid,
    output wire s_axi_arready,
    output wire [3:0] s_axi_rid,
    output wire [511:0] s_axi_rdata,
    output wire [1:0] s_axi_rresp,
    output wire s_axi_rlast,
    output wire s_axi_rvalid,
    input wire s_axi_rready,
    output wire [63:0] m_axi_awaddr,
    output wire [7:0] m_axi_awlen,
    output wire [2:0] m_axi_awsize,
    output wire [1:0] m_axi_awburst,
    output wire m_axi_awlock,
    output wire [3:0] m_axi_awcache,
    output wire [2:0] m_axi_awprot,
    output wire [3:0] m_axi_awregion,
    output wire [3:0] m_axi_awqos,
    output wire m_axi_awvalid,
    input wire m_axi_awready,
    output wire [31:0] m_axi_wdata,
    output wire [3:0] m_axi_wstrb,
    output wire m_axi_wlast,
    output wire m_axi_wvalid,
    input wire m_axi_wready,
    input wire [1:0] m_axi_bresp,
    input wire m_axi_bvalid,
    output wire m_axi_bready,
    output wire [63:0] m_axi_araddr,
    output wire [7:0] m_axi_arlen,
    output wire [2:0] m_axi_arsize,
    output wire [1:0] m_axi_arburst,
    output wire m_axi_arlock,
    output wire [3:0] m_axi_arcache,
    output wire [2:0] m_axi_arprot,
    output wire [3:0] m_axi_arregion,
    output wire [3:0] m_axi_arqos,
    output wire m_axi_arvalid,
    input wire m_axi_arready,
    input wire [31:0] m_axi_rdata,
    input wire [1:0] m_axi_rresp,
    input wire m_axi_rlast,
    input wire m_axi_rvalid,
    output wire m_axi_rready
);
    assign s_axi_awready = 1'd0;
    assign s_axi_wready = 1'd0;
    assign s_axi_bid = 4'd0;
    assign s_axi_bresp = 2'd0;
    assign s_axi_bvalid = 1'd0;
    assign s_axi_arready = 1'd0;
    assign s_axi_rid = 4'd0;
    assign s_axi_rdata = 512'd0;
    assign s_axi_rresp = 2'd0;
    assign s_axi_rlast = 1'd0;
    assign s_axi_rvalid = 1'd0;
    assign m_axi_awaddr = 64'd0;
    assign m_axi_awlen = 8'd0;
    assign m_axi_awsize = 3'd0;
    assign m_axi_awburst = 2'd0;
    assign m_axi_awlock = 1'd0;
    assign m_axi_awcache = 4'd0;
    assign m_axi_awprot = 3'd0;
    assign m_axi_awregion = 4'd0;
    assign m_axi_awqos = 4'd0;
    assign m_axi_awvalid = 1'd0;
    assign m_axi_wdata = 32'd0;
    assign m_axi_wstrb = 4'd0;
    assign m_axi_wlast = 1'd0;
    assign m_axi_wvalid = 1'd0;
    assign m_axi_bready = 1'd0;
    assign m_axi_araddr = 64'd0;
    assign m_axi_arlen = 8'd0;
    assign m_axi_arsize = 3'd0;
    assign m_axi_arburst = 2'd0;
    assign m_axi_arlock = 1'd0;
    assign m_axi_arcache = 4'd0;
    assign m_axi_arprot = 3'd0;
    assign m_axi_arregion = 4'd0;
    assign m_axi_arqos = 4'd0;
    assign m_axi_arvalid = 1'd0;
    assign m_axi_rready = 1'd0;
    wire unused_ok = ^{s_axi_aclk, s_axi_aresetn, s_axi_awid, s_axi_awaddr, s_axi_awlen, s_axi_awsize,
                       s_axi_awburst, s_axi_awlock, s_axi_awcache, s_axi_awprot, s_axi_awregion, s_axi_awqos,
                       s_axi_awvalid, s_axi_wdata, s_axi_wstrb, s_axi_wlast, s_axi_wvalid, s_axi_bready,
                       s_axi_arid, s_axi_araddr, s_axi_arlen, s_axi_arsize, s_axi_arburst, s_axi_arlock,
                       s_axi_arcache, s_axi_arprot, s_axi_arregion, s_axi_arqos, s_axi_arvalid, s_axi_rready,
                       m_axi_awready, m_axi_wready, m_axi_bresp, m_axi_bvalid, m_axi_arready, m_axi_rdata,
                       m_axi_rresp, m_axi_rlast, m_axi_rvalid};
endmodule

// axi_dma_dwidth: 64 -> 512 bits (the DMA bridge into the XDMA's S_AXI_B).
module axi_dma_dwidth (
    input wire s_axi_aclk,
    input wire s_axi_aresetn,
    input wire s_axi_awid,
    input wire [63:0] s_axi_awaddr,
    input wire [7:0] s_axi_awlen,
    input wire [2:0] s_axi_awsize,
    input wire [1:0] s_axi_awburst,
    input wire s_axi_awlock,
    input wire [3:0] s_axi_awcache,
    input wire [2:0] s_axi_awprot,
    input wire [3:0] s_axi_awregion,
    input wire [3:0] s_axi_awqos,
    input wire s_axi_awvalid,
    output wire s_axi_awready,
    input wire [63:0] s_axi_wdata,
    input wire [7:0] s_axi_wstrb,
    input wire s_axi_wlast,
    input wire s_axi_wvalid,
    output wire s_axi_wready,
    output wire s_axi_bid,
    output wire [1:0] s_axi_bresp,
    output wire s_axi_bvalid,
    input wire s_axi_bready,
    input wire s_axi_arid,
    input wire [63:0] s_axi_araddr,
    input wire [7:0] s_axi_arlen,
    input wire [2:0] s_axi_arsize,
    input wire [1:0] s_axi_arburst,
    input wire s_axi_arlock,
    input wire [3:0] s_axi_arcache,
    input wire [2:0] s_axi_arprot,
    input wire [3:0] s_axi_arregion,
    input wire [3:0] s_axi_arqos,
    input wire s_axi_arvalid,
    output wire s_axi_arready,
    output wire s_axi_rid,
    output wire [63:0] s_axi_rdata,
    output wire [1:0] s_axi_rresp,
    output wire s_axi_rlast,
    output wire s_axi_rvalid,
    input wire s_axi_rready,
    output wire [63:0] m_axi_awaddr,
    output wire [7:0] m_axi_awlen,
    output wire [2:0] m_axi_awsize,
    output wire [1:0] m_axi_awburst,
    output wire m_axi_awlock,
    output wire [3:0] m_axi_awcache,
    output wire [2:0] m_axi_awprot,
    output wire [3:0] m_axi_awregion,
    output wire [3:0] m_axi_awqos,
    output wire m_axi_awvalid,
    input wire m_axi_awready,
    output wire [511:0] m_axi_wdata,
    output wire [63:0] m_axi_wstrb,
    output wire m_axi_wlast,
    output wire m_axi_wvalid,
    input wire m_axi_wready,
    input wire [1:0] m_axi_bresp,
    input wire m_axi_bvalid,
    output wire m_axi_bready,
    output wire [63:0] m_axi_araddr,
    output wire [7:0] m_axi_arlen,
    output wire [2:0] m_axi_arsize,
    output wire [1:0] m_axi_arburst,
    output wire m_axi_arlock,
    output wire [3:0] m_axi_arcache,
    output wire [2:0] m_axi_arprot,
    output wire [3:0] m_axi_arregion,
    output wire [3:0] m_axi_arqos,
    output wire m_axi_arvalid,
    input wire m_axi_arready,
    input wire [511:0] m_axi_rdata,
    input wire [1:0] m_axi_rresp,
    input wire m_axi_rlast,
    input wire m_axi_rvalid,
    output wire m_axi_rready
);
    assign s_axi_awready = 1'd0;
    assign s_axi_wready = 1'd0;
    assign s_axi_bid = 1'd0;
    assign s_axi_bresp = 2'd0;
    assign s_axi_bvalid = 1'd0;
    assign s_axi_arready = 1'd0;
    assign s_axi_rid = 1'd0;
    assign s_axi_rdata = 64'd0;
    assign s_axi_rresp = 2'd0;
    assign s_axi_rlast = 1'd0;
    assign s_axi_rvalid = 1'd0;
    assign m_axi_awaddr = 64'd0;
    assign m_axi_awlen = 8'd0;
    assign m_axi_awsize = 3'd0;
    assign m_axi_awburst = 2'd0;
    assign m_axi_awlock = 1'd0;
    assign m_axi_awcache = 4'd0;
    assign m_axi_awprot = 3'd0;
    assign m_axi_awregion = 4'd0;
    assign m_axi_awqos = 4'd0;
    assign m_axi_awvalid = 1'd0;
    assign m_axi_wdata = 512'd0;
    assign m_axi_wstrb = 64'd0;
    assign m_axi_wlast = 1'd0;
    assign m_axi_wvalid = 1'd0;
    assign m_axi_bready = 1'd0;
    assign m_axi_araddr = 64'd0;
    assign m_axi_arlen = 8'd0;
    assign m_axi_arsize = 3'd0;
    assign m_axi_arburst = 2'd0;
    assign m_axi_arlock = 1'd0;
    assign m_axi_arcache = 4'd0;
    assign m_axi_arprot = 3'd0;
    assign m_axi_arregion = 4'd0;
    assign m_axi_arqos = 4'd0;
    assign m_axi_arvalid = 1'd0;
    assign m_axi_rready = 1'd0;
    wire unused_ok = ^{s_axi_aclk, s_axi_aresetn, s_axi_awid, s_axi_awaddr, s_axi_awlen, s_axi_awsize,
                       s_axi_awburst, s_axi_awlock, s_axi_awcache, s_axi_awprot, s_axi_awregion, s_axi_awqos,
                       s_axi_awvalid, s_axi_wdata, s_axi_wstrb, s_axi_wlast, s_axi_wvalid, s_axi_bready,
                       s_axi_arid, s_axi_araddr, s_axi_arlen, s_axi_arsize, s_axi_arburst, s_axi_arlock,
                       s_axi_arcache, s_axi_arprot, s_axi_arregion, s_axi_arqos, s_axi_arvalid, s_axi_rready,
                       m_axi_awready, m_axi_wready, m_axi_bresp, m_axi_bvalid, m_axi_arready, m_axi_rdata,
                       m_axi_rresp, m_axi_rlast, m_axi_rvalid};
endmodule
