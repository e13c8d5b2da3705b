// Lint stub of the DMA/Bridge Subsystem for PCIe (xdma) in AXI Bridge mode, Gen3 x16, 512-bit
// AXI, 64-bit AXI addresses, ID width 4, 16 user interrupts. Ports from PG195 (clocks,
// resets, PCIe lanes, usr_irq_*) and PG194 (bridge-mode m_axib_*/s_axib_*, msi(x)_enable);
// see README.md.
module xdma_0 (
    input wire sys_clk,
    input wire sys_clk_gt,
    input wire sys_rst_n,
    output wire user_lnk_up,
    output wire [15:0] pci_exp_txp,
    output wire [15:0] pci_exp_txn,
    input wire [15:0] pci_exp_rxp,
    input wire [15:0] pci_exp_rxn,
    output wire axi_aclk,
    output wire axi_aresetn,
    input wire [15:0] usr_irq_req,
    output wire [15:0] usr_irq_ack,
    output wire msi_enable,
    output wire msix_enable,
    output wire [3:0] m_axib_awid,
    output wire [63:0] m_axib_awaddr,
    output wire [7:0] m_axib_awlen,
    output wire [2:0] m_axib_awsize,
    output wire [1:0] m_axib_awburst,
    output wire m_axib_awlock,
    output wire [3:0] m_axib_awcache,
    output wire [2:0] m_axib_awprot,
    output wire m_axib_awvalid,
    input wire m_axib_awready,
    output wire [511:0] m_axib_wdata,
    output wire [63:0] m_axib_wstrb,
    output wire m_axib_wlast,
    output wire m_axib_wvalid,
    input wire m_axib_wready,
    input wire [3:0] m_axib_bid,
    input wire [1:0] m_axib_bresp,
    input wire m_axib_bvalid,
    output wire m_axib_bready,
    output wire [3:0] m_axib_arid,
    output wire [63:0] m_axib_araddr,
    output wire [7:0] m_axib_arlen,
    output wire [2:0] m_axib_arsize,
    output wire [1:0] m_axib_arburst,
    output wire m_axib_arlock,
    output wire [3:0] m_axib_arcache,
    output wire [2:0] m_axib_arprot,
    output wire m_axib_arvalid,
    input wire m_axib_arready,
    input wire [3:0] m_axib_rid,
    input wire [511:0] m_axib_rdata,
    input wire [1:0] m_axib_rresp,
    input wire m_axib_rlast,
    input wire m_axib_rvalid,
    output wire m_axib_rready,
    input wire [3:0] s_axib_awid,
    input wire [63:0] s_axib_awaddr,
    input wire [3:0] s_axib_awregion,
    input wire [7:0] s_axib_awlen,
    input wire [2:0] s_axib_awsize,
    input wire [1:0] s_axib_awburst,
    input wire s_axib_awvalid,
    output wire s_axib_awready,
    input wire [511:0] s_axib_wdata,
    input wire [63:0] s_axib_wstrb,
    input wire s_axib_wlast,
    input wire s_axib_wvalid,
    output wire s_axib_wready,
    output wire [3:0] s_axib_bid,
    output wire [1:0] s_axib_bresp,
    output wire s_axib_bvalid,
    input wire s_axib_bready,
    input wire [3:0] s_axib_arid,
    input wire [63:0] s_axib_araddr,
    input wire [3:0] s_axib_arregion,
    input wire [7:0] s_axib_arlen,
    input wire [2:0] s_axib_arsize,
    input wire [1:0] s_axib_arburst,
    input wire s_axib_arvalid,
    output wire s_axib_arready,
    output wire [3:0] s_axib_rid,
    output wire [511:0] s_axib_rdata,
    output wire [1:0] s_axib_rresp,
    output wire s_axib_rlast,
    output wire s_axib_rvalid,
    input wire s_axib_rready
);
    assign user_lnk_up = 1'd0;
    assign pci_exp_txp = 16'd0;
    assign pci_exp_txn = 16'd0;
    assign axi_aclk = 1'd0;
    assign axi_aresetn = 1'd0;
    assign usr_irq_ack = 16'd0;
    assign msi_enable = 1'd0;
    assign msix_enable = 1'd0;
    assign m_axib_awid = 4'd0;
    assign m_axib_awaddr = 64'd0;
    assign m_axib_awlen = 8'd0;
    assign m_axib_awsize = 3'd0;
    assign m_axib_awburst = 2'd0;
    assign m_axib_awlock = 1'd0;
    assign m_axib_awcache = 4'd0;
    assign m_axib_awprot = 3'd0;
    assign m_axib_awvalid = 1'd0;
    assign m_axib_wdata = 512'd0;
    assign m_axib_wstrb = 64'd0;
    assign m_axib_wlast = 1'd0;
    assign m_axib_wvalid = 1'd0;
    assign m_axib_bready = 1'd0;
    assign m_axib_arid = 4'd0;
    assign m_axib_araddr = 64'd0;
    assign m_axib_arlen = 8'd0;
    assign m_axib_arsize = 3'd0;
    assign m_axib_arburst = 2'd0;
    assign m_axib_arlock = 1'd0;
    assign m_axib_arcache = 4'd0;
    assign m_axib_arprot = 3'd0;
    assign m_axib_arvalid = 1'd0;
    assign m_axib_rready = 1'd0;
    assign s_axib_awready = 1'd0;
    assign s_axib_wready = 1'd0;
    assign s_axib_bid = 4'd0;
    assign s_axib_bresp = 2'd0;
    assign s_axib_bvalid = 1'd0;
    assign s_axib_arready = 1'd0;
    assign s_axib_rid = 4'd0;
    assign s_axib_rdata = 512'd0;
    assign s_axib_rresp = 2'd0;
    assign s_axib_rlast = 1'd0;
    assign s_axib_rvalid = 1'd0;
    wire unused_ok = ^{sys_clk, sys_clk_gt, sys_rst_n, pci_exp_rxp, pci_exp_rxn, usr_irq_req,
                       m_axib_awready, m_axib_wready, m_axib_bid, m_axib_bresp, m_axib_bvalid, m_axib_arready,
                       m_axib_rid, m_axib_rdata, m_axib_rresp, m_axib_rlast, m_axib_rvalid, s_axib_awid,
                       s_axib_awaddr, s_axib_awregion, s_axib_awlen, s_axib_awsize, s_axib_awburst, s_axib_awvalid,
                       s_axib_wdata, s_axib_wstrb, s_axib_wlast, s_axib_wvalid, s_axib_bready, s_axib_arid,
                       s_axib_araddr, s_axib_arregion, s_axib_arlen, s_axib_arsize, s_axib_arburst, s_axib_arvalid,
                       s_axib_rready};
endmodule
