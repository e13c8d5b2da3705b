// ferroce on the AMD Alveo U250: an example top level for the vendor flow (Vivado), written by
// hand around the emitted NIC (`ferroce verilog --out DIR`: ferroce_nic_64.v and
// ferroce_dma_axi4_64.v). Pins and clocks: alveo-u250.xdc; how to build: README.md and
// build.tcl. It has been checked with Verilator and Icarus against port-list stubs of the AMD
// IP (hdl/tests/board_u250_wrapper.rs); it has never been through Vivado or on a card.
//
//   PCIe x16 --- XDMA (AXI Bridge mode, PG195/PG194) --- M_AXI_B 512b --- width converter ---
//                 |   axi_aclk 250 MHz: the NIC's clock    AXI4 -> AXI4-Lite --- NIC s_axil (BAR0)
//                 +-- S_AXI_B 512b <--- width converter <--- ferroce_dma_axi4_64 <--- NIC dma
//                 +-- usr_irq_req/ack <--- set/clear per vector <--- NIC irq_pulse[15:0]
//   QSFP28 lane 0 --- xxv_ethernet 10GBASE-R (PG210), 64-bit AXI4-Stream in tx_clk_out
//                 --- xpm_fifo_axis (packet mode) <--- NIC tx_mac
//                 --- xpm_fifo_axis (frame drop when nearly full) ---> NIC rx_mac
//
// Why XDMA's AXI Bridge mode: the NIC masters host memory itself (WQE fetches, payload, CQEs).
// In DMA mode the XDMA's engines are driven by descriptors and its AXI ports are masters toward
// the card; the AXI4 *slave* that turns card-side reads and writes into PCIe requests to host
// memory (S_AXI_B, the "slave bridge") exists in the AXI Bridge functional mode (PG195, whose
// bridge-mode interfaces PG194 documents as s_axib_*/m_axib_*) and, beside the DMA engines, in
// QDMA's bridge (PG302). In bridge mode the host reaches BAR0 through M_AXI_B (AXI4, the
// IP's data width), so BAR0 goes through a width and a protocol converter to the NIC's
// AXI4-Lite port.
`default_nettype none

module ferroce_u250_top (
    // PCIe x16 edge connector
    input  wire        pcie_refclk_p,
    input  wire        pcie_refclk_n,
    input  wire        pcie_perst_n,
    input  wire [15:0] pcie_rx_p,
    input  wire [15:0] pcie_rx_n,
    output wire [15:0] pcie_tx_p,
    output wire [15:0] pcie_tx_n,
    // QSFP28 cage 0, lane 0 only (one 10GBASE-R port)
    input  wire        qsfp0_refclk_p,
    input  wire        qsfp0_refclk_n,
    input  wire [0:0]  qsfp0_rx_p,
    input  wire [0:0]  qsfp0_rx_n,
    output wire [0:0]  qsfp0_tx_p,
    output wire [0:0]  qsfp0_tx_n,
    output wire        qsfp0_modsel_l,
    output wire        qsfp0_reset_l,
    input  wire        qsfp0_modprs_l,
    input  wire        qsfp0_int_l,
    output wire        qsfp0_lpmode,
    output wire        qsfp0_refclk_reset,
    output wire [1:0]  qsfp0_fs,
    output wire [2:0]  led
);

    // ---------------------------------------------------------------- clocks and resets
    // PCIe reference clock: O feeds the transceivers, ODIV2 the XDMA's sys_clk (PG195,
    // "Clocking"); a BUFG_GT copy of ODIV2 (100 MHz, running whenever the card sits in a
    // powered slot) is the Ethernet subsystem's free-running DRP clock.
    wire pcie_refclk_gt, pcie_refclk_div2, dclk;
    IBUFDS_GTE4 #(.REFCLK_HROW_CK_SEL(2'b00)) u_pcie_refclk (
        .I(pcie_refclk_p), .IB(pcie_refclk_n), .CEB(1'b0),
        .O(pcie_refclk_gt), .ODIV2(pcie_refclk_div2)
    );
    BUFG_GT u_dclk (
        .I(pcie_refclk_div2), .CE(1'b1), .CEMASK(1'b0), .CLR(1'b0), .CLRMASK(1'b0),
        .DIV(3'b000), .O(dclk)
    );

    wire axi_aclk;     // 250 MHz from the XDMA: the NIC, the bridge and the converters
    wire axi_aresetn;  // XDMA's, synchronous to axi_aclk, low while the PCIe core resets
    wire user_lnk_up;
    wire mac_clk;      // xxv_ethernet tx_clk_out_0 (156.25 MHz at 10G, 64 bits)
    wire mac_user_tx_reset, mac_user_rx_reset;

    // The MAC-side FIFO halves need a reset synchronous to mac_clk: assert it whenever the
    // MAC or the PCIe side is in reset, release it synchronously (xpm_cdc_async_rst, UG974).
    wire mac_arst_n = axi_aresetn & ~mac_user_tx_reset & ~mac_user_rx_reset;
    wire mac_rst_n;
    xpm_cdc_async_rst #(.DEST_SYNC_FF(4), .INIT_SYNC_FF(0), .RST_ACTIVE_HIGH(0)) u_mac_rst (
        .src_arst(mac_arst_n), .dest_clk(mac_clk), .dest_arst(mac_rst_n)
    );

    // ---------------------------------------------------------------- NIC <-> XDMA wiring
    // BAR0 path: XDMA M_AXI_B (512-bit AXI4) -> 32-bit AXI4 -> AXI4-Lite -> NIC
    wire [3:0]   mb_awid, mb_bid, mb_arid, mb_rid;
    wire [63:0]  mb_awaddr, mb_araddr;
    wire [7:0]   mb_awlen, mb_arlen;
    wire [2:0]   mb_awsize, mb_arsize, mb_awprot, mb_arprot;
    wire [1:0]   mb_awburst, mb_arburst, mb_bresp, mb_rresp;
    wire [3:0]   mb_awcache, mb_arcache;
    wire         mb_awlock, mb_arlock;
    wire         mb_awvalid, mb_awready, mb_wlast, mb_wvalid, mb_wready, mb_bvalid, mb_bready;
    wire         mb_arvalid, mb_arready, mb_rlast, mb_rvalid, mb_rready;
    wire [511:0] mb_wdata, mb_rdata;
    wire [63:0]  mb_wstrb;

    wire [3:0]   n_awid, n_bid, n_arid, n_rid;
    wire [63:0]  n_awaddr, n_araddr;
    wire [7:0]   n_awlen, n_arlen;
    wire [2:0]   n_awsize, n_arsize, n_awprot, n_arprot;
    wire [1:0]   n_awburst, n_arburst, n_bresp, n_rresp;
    wire [3:0]   n_awcache, n_arcache;
    wire         n_awlock, n_arlock;
    wire         n_awvalid, n_awready, n_wlast, n_wvalid, n_wready, n_bvalid, n_bready;
    wire         n_arvalid, n_arready, n_rlast, n_rvalid, n_rready;
    wire [31:0]  n_wdata, n_rdata;
    wire [3:0]   n_wstrb;

    wire [63:0]  l_awaddr, l_araddr;
    wire [2:0]   l_awprot, l_arprot;
    wire         l_awvalid, l_awready, l_wvalid, l_wready, l_bvalid, l_bready;
    wire         l_arvalid, l_arready, l_rvalid, l_rready;
    wire [31:0]  l_wdata, l_rdata;
    wire [3:0]   l_wstrb;
    wire [1:0]   l_bresp, l_rresp;

    // host-memory path: bridge (64-bit AXI4) -> 512-bit AXI4 -> XDMA S_AXI_B
    wire [63:0]  d_awaddr, d_araddr;
    wire [7:0]   d_awlen, d_arlen;
    wire [2:0]   d_awsize, d_arsize;
    wire [1:0]   d_awburst, d_arburst, d_bresp, d_rresp;
    wire         d_awvalid, d_awready, d_wlast, d_wvalid, d_wready, d_bvalid, d_bready;
    wire         d_arvalid, d_arready, d_rlast, d_rvalid, d_rready;
    wire [63:0]  d_wdata, d_rdata;
    wire [7:0]   d_wstrb;
    wire         d_bid_unused, d_rid_unused;

    wire [63:0]  sb_awaddr, sb_araddr;
    wire [7:0]   sb_awlen, sb_arlen;
    wire [2:0]   sb_awsize, sb_arsize;
    wire [1:0]   sb_awburst, sb_arburst, sb_bresp, sb_rresp;
    wire         sb_awvalid, sb_awready, sb_wlast, sb_wvalid, sb_wready, sb_bvalid, sb_bready;
    wire         sb_arvalid, sb_arready, sb_rlast, sb_rvalid, sb_rready;
    wire [511:0] sb_wdata, sb_rdata;
    wire [63:0]  sb_wstrb;
    wire [3:0]   sb_bid, sb_rid;

    // NIC DMA port <-> bridge (the names of docs/DMA.md, section 2)
    wire         rd_req_valid, rd_req_ready, rd_rsp_valid, rd_rsp_ready, rd_rsp_last, rd_rsp_error;
    wire [63:0]  rd_req_addr, rd_rsp_data;
    wire [15:0]  rd_req_len;
    wire [7:0]   rd_req_tag, rd_rsp_keep, rd_rsp_tag;
    wire         wr_req_valid, wr_req_ready, wr_dat_valid, wr_dat_ready, wr_dat_last;
    wire         wr_done_valid, wr_done_error;
    wire [63:0]  wr_req_addr, wr_dat_data;
    wire [15:0]  wr_req_len;
    wire [7:0]   wr_req_tag, wr_dat_keep, wr_done_tag;

    // interrupts
    wire [31:0]  nic_irq_pulse;
    wire [15:0]  usr_irq_ack;
    reg  [15:0]  usr_irq_req = 16'd0;

    // ---------------------------------------------------------------- XDMA, AXI Bridge mode
    xdma_0 u_xdma (
        .sys_clk(pcie_refclk_div2),
        .sys_clk_gt(pcie_refclk_gt),
        .sys_rst_n(pcie_perst_n),
        .user_lnk_up(user_lnk_up),
        .pci_exp_txp(pcie_tx_p),
        .pci_exp_txn(pcie_tx_n),
        .pci_exp_rxp(pcie_rx_p),
        .pci_exp_rxn(pcie_rx_n),
        .axi_aclk(axi_aclk),
        .axi_aresetn(axi_aresetn),
        .usr_irq_req(usr_irq_req),
        .usr_irq_ack(usr_irq_ack),
        .msi_enable(),
        .msix_enable(),
        // M_AXI_B: host accesses to BAR0
        .m_axib_awid(mb_awid), .m_axib_awaddr(mb_awaddr), .m_axib_awlen(mb_awlen),
        .m_axib_awsize(mb_awsize), .m_axib_awburst(mb_awburst), .m_axib_awprot(mb_awprot),
        .m_axib_awvalid(mb_awvalid), .m_axib_awready(mb_awready), .m_axib_awlock(mb_awlock),
        .m_axib_awcache(mb_awcache),
        .m_axib_wdata(mb_wdata), .m_axib_wstrb(mb_wstrb), .m_axib_wlast(mb_wlast),
        .m_axib_wvalid(mb_wvalid), .m_axib_wready(mb_wready),
        .m_axib_bid(mb_bid), .m_axib_bresp(mb_bresp), .m_axib_bvalid(mb_bvalid),
        .m_axib_bready(mb_bready),
        .m_axib_arid(mb_arid), .m_axib_araddr(mb_araddr), .m_axib_arlen(mb_arlen),
        .m_axib_arsize(mb_arsize), .m_axib_arburst(mb_arburst), .m_axib_arprot(mb_arprot),
        .m_axib_arvalid(mb_arvalid), .m_axib_arready(mb_arready), .m_axib_arlock(mb_arlock),
        .m_axib_arcache(mb_arcache),
        .m_axib_rid(mb_rid), .m_axib_rdata(mb_rdata), .m_axib_rresp(mb_rresp),
        .m_axib_rlast(mb_rlast), .m_axib_rvalid(mb_rvalid), .m_axib_rready(mb_rready),
        // S_AXI_B: the NIC's reads and writes of host memory (one ID, 0: in-order R and B)
        .s_axib_awid(4'd0), .s_axib_awaddr(sb_awaddr), .s_axib_awregion(4'd0),
        .s_axib_awlen(sb_awlen), .s_axib_awsize(sb_awsize), .s_axib_awburst(sb_awburst),
        .s_axib_awvalid(sb_awvalid), .s_axib_awready(sb_awready),
        .s_axib_wdata(sb_wdata), .s_axib_wstrb(sb_wstrb), .s_axib_wlast(sb_wlast),
        .s_axib_wvalid(sb_wvalid), .s_axib_wready(sb_wready),
        .s_axib_bid(sb_bid), .s_axib_bresp(sb_bresp), .s_axib_bvalid(sb_bvalid),
        .s_axib_bready(sb_bready),
        .s_axib_arid(4'd0), .s_axib_araddr(sb_araddr), .s_axib_arregion(4'd0),
        .s_axib_arlen(sb_arlen), .s_axib_arsize(sb_arsize), .s_axib_arburst(sb_arburst),
        .s_axib_arvalid(sb_arvalid), .s_axib_arready(sb_arready),
        .s_axib_rid(sb_rid), .s_axib_rdata(sb_rdata), .s_axib_rresp(sb_rresp),
        .s_axib_rlast(sb_rlast), .s_axib_rvalid(sb_rvalid), .s_axib_rready(sb_rready)
    );

    // BAR0: 512-bit AXI4 down to 32 bits (axi_dwidth_converter), then AXI4 to AXI4-Lite
    // (axi_protocol_converter, which also splits any burst into single beats)
    axi_bar_dwidth u_bar_dwidth (
        .s_axi_aclk(axi_aclk), .s_axi_aresetn(axi_aresetn),
        .s_axi_awid(mb_awid), .s_axi_awaddr(mb_awaddr), .s_axi_awlen(mb_awlen),
        .s_axi_awsize(mb_awsize), .s_axi_awburst(mb_awburst), .s_axi_awlock(mb_awlock),
        .s_axi_awcache(mb_awcache), .s_axi_awprot(mb_awprot), .s_axi_awregion(4'd0),
        .s_axi_awqos(4'd0), .s_axi_awvalid(mb_awvalid), .s_axi_awready(mb_awready),
        .s_axi_wdata(mb_wdata), .s_axi_wstrb(mb_wstrb), .s_axi_wlast(mb_wlast),
        .s_axi_wvalid(mb_wvalid), .s_axi_wready(mb_wready),
        .s_axi_bid(mb_bid), .s_axi_bresp(mb_bresp), .s_axi_bvalid(mb_bvalid),
        .s_axi_bready(mb_bready),
        .s_axi_arid(mb_arid), .s_axi_araddr(mb_araddr), .s_axi_arlen(mb_arlen),
        .s_axi_arsize(mb_arsize), .s_axi_arburst(mb_arburst), .s_axi_arlock(mb_arlock),
        .s_axi_arcache(mb_arcache), .s_axi_arprot(mb_arprot), .s_axi_arregion(4'd0),
        .s_axi_arqos(4'd0), .s_axi_arvalid(mb_arvalid), .s_axi_arready(mb_arready),
        .s_axi_rid(mb_rid), .s_axi_rdata(mb_rdata), .s_axi_rresp(mb_rresp),
        .s_axi_rlast(mb_rlast), .s_axi_rvalid(mb_rvalid), .s_axi_rready(mb_rready),
        .m_axi_awaddr(n_awaddr), .m_axi_awlen(n_awlen), .m_axi_awsize(n_awsize),
        .m_axi_awburst(n_awburst), .m_axi_awlock(n_awlock), .m_axi_awcache(n_awcache),
        .m_axi_awprot(n_awprot), .m_axi_awregion(), .m_axi_awqos(),
        .m_axi_awvalid(n_awvalid), .m_axi_awready(n_awready),
        .m_axi_wdata(n_wdata), .m_axi_wstrb(n_wstrb), .m_axi_wlast(n_wlast),
        .m_axi_wvalid(n_wvalid), .m_axi_wready(n_wready),
        .m_axi_bresp(n_bresp), .m_axi_bvalid(n_bvalid), .m_axi_bready(n_bready),
        .m_axi_araddr(n_araddr), .m_axi_arlen(n_arlen), .m_axi_arsize(n_arsize),
        .m_axi_arburst(n_arburst), .m_axi_arlock(n_arlock), .m_axi_arcache(n_arcache),
        .m_axi_arprot(n_arprot), .m_axi_arregion(), .m_axi_arqos(),
        .m_axi_arvalid(n_arvalid), .m_axi_arready(n_arready),
        .m_axi_rdata(n_rdata), .m_axi_rresp(n_rresp), .m_axi_rlast(n_rlast),
        .m_axi_rvalid(n_rvalid), .m_axi_rready(n_rready)
    );
    // the downsizer's master side carries no ID; the protocol converter's slave side takes one
    assign n_awid = 4'd0;
    assign n_arid = 4'd0;

    axi_bar_lite u_bar_lite (
        .aclk(axi_aclk), .aresetn(axi_aresetn),
        .s_axi_awid(n_awid), .s_axi_awaddr(n_awaddr), .s_axi_awlen(n_awlen),
        .s_axi_awsize(n_awsize), .s_axi_awburst(n_awburst), .s_axi_awlock(n_awlock),
        .s_axi_awcache(n_awcache), .s_axi_awprot(n_awprot), .s_axi_awregion(4'd0),
        .s_axi_awqos(4'd0), .s_axi_awvalid(n_awvalid), .s_axi_awready(n_awready),
        .s_axi_wdata(n_wdata), .s_axi_wstrb(n_wstrb), .s_axi_wlast(n_wlast),
        .s_axi_wvalid(n_wvalid), .s_axi_wready(n_wready),
        .s_axi_bid(n_bid), .s_axi_bresp(n_bresp), .s_axi_bvalid(n_bvalid),
        .s_axi_bready(n_bready),
        .s_axi_arid(n_arid), .s_axi_araddr(n_araddr), .s_axi_arlen(n_arlen),
        .s_axi_arsize(n_arsize), .s_axi_arburst(n_arburst), .s_axi_arlock(n_arlock),
        .s_axi_arcache(n_arcache), .s_axi_arprot(n_arprot), .s_axi_arregion(4'd0),
        .s_axi_arqos(4'd0), .s_axi_arvalid(n_arvalid), .s_axi_arready(n_arready),
        .s_axi_rid(n_rid), .s_axi_rdata(n_rdata), .s_axi_rresp(n_rresp),
        .s_axi_rlast(n_rlast), .s_axi_rvalid(n_rvalid), .s_axi_rready(n_rready),
        .m_axi_awaddr(l_awaddr), .m_axi_awprot(l_awprot), .m_axi_awvalid(l_awvalid),
        .m_axi_awready(l_awready),
        .m_axi_wdata(l_wdata), .m_axi_wstrb(l_wstrb), .m_axi_wvalid(l_wvalid),
        .m_axi_wready(l_wready),
        .m_axi_bresp(l_bresp), .m_axi_bvalid(l_bvalid), .m_axi_bready(l_bready),
        .m_axi_araddr(l_araddr), .m_axi_arprot(l_arprot), .m_axi_arvalid(l_arvalid),
        .m_axi_arready(l_arready),
        .m_axi_rdata(l_rdata), .m_axi_rresp(l_rresp), .m_axi_rvalid(l_rvalid),
        .m_axi_rready(l_rready)
    );

    // host memory: the bridge's 64-bit AXI4 up to the XDMA's 512 bits (axi_dwidth_converter)
    axi_dma_dwidth u_dma_dwidth (
        .s_axi_aclk(axi_aclk), .s_axi_aresetn(axi_aresetn),
        .s_axi_awid(1'b0), .s_axi_awaddr(d_awaddr), .s_axi_awlen(d_awlen),
        .s_axi_awsize(d_awsize), .s_axi_awburst(d_awburst), .s_axi_awlock(1'b0),
        .s_axi_awcache(4'd0), .s_axi_awprot(3'd0), .s_axi_awregion(4'd0),
        .s_axi_awqos(4'd0), .s_axi_awvalid(d_awvalid), .s_axi_awready(d_awready),
        .s_axi_wdata(d_wdata), .s_axi_wstrb(d_wstrb), .s_axi_wlast(d_wlast),
        .s_axi_wvalid(d_wvalid), .s_axi_wready(d_wready),
        .s_axi_bid(d_bid_unused), .s_axi_bresp(d_bresp), .s_axi_bvalid(d_bvalid),
        .s_axi_bready(d_bready),
        .s_axi_arid(1'b0), .s_axi_araddr(d_araddr), .s_axi_arlen(d_arlen),
        .s_axi_arsize(d_arsize), .s_axi_arburst(d_arburst), .s_axi_arlock(1'b0),
        .s_axi_arcache(4'd0), .s_axi_arprot(3'd0), .s_axi_arregion(4'd0),
        .s_axi_arqos(4'd0), .s_axi_arvalid(d_arvalid), .s_axi_arready(d_arready),
        .s_axi_rid(d_rid_unused), .s_axi_rdata(d_rdata), .s_axi_rresp(d_rresp),
        .s_axi_rlast(d_rlast), .s_axi_rvalid(d_rvalid), .s_axi_rready(d_rready),
        .m_axi_awaddr(sb_awaddr), .m_axi_awlen(sb_awlen), .m_axi_awsize(sb_awsize),
        .m_axi_awburst(sb_awburst), .m_axi_awlock(), .m_axi_awcache(), .m_axi_awprot(),
        .m_axi_awregion(), .m_axi_awqos(),
        .m_axi_awvalid(sb_awvalid), .m_axi_awready(sb_awready),
        .m_axi_wdata(sb_wdata), .m_axi_wstrb(sb_wstrb), .m_axi_wlast(sb_wlast),
        .m_axi_wvalid(sb_wvalid), .m_axi_wready(sb_wready),
        .m_axi_bresp(sb_bresp), .m_axi_bvalid(sb_bvalid), .m_axi_bready(sb_bready),
        .m_axi_araddr(sb_araddr), .m_axi_arlen(sb_arlen), .m_axi_arsize(sb_arsize),
        .m_axi_arburst(sb_arburst), .m_axi_arlock(), .m_axi_arcache(), .m_axi_arprot(),
        .m_axi_arregion(), .m_axi_arqos(),
        .m_axi_arvalid(sb_arvalid), .m_axi_arready(sb_arready),
        .m_axi_rdata(sb_rdata), .m_axi_rresp(sb_rresp), .m_axi_rlast(sb_rlast),
        .m_axi_rvalid(sb_rvalid), .m_axi_rready(sb_rready)
    );

    // ---------------------------------------------------------------- the DMA bridge
    ferroce_dma_axi4_64 u_bridge (
        .clock(axi_aclk),
        .dma$rd$req_valid(rd_req_valid), .dma$rd$req_ready(rd_req_ready),
        .dma$rd$req_addr(rd_req_addr), .dma$rd$req_len(rd_req_len),
        .dma$rd$req_tag(rd_req_tag),
        .dma$rd$rsp$valid(rd_rsp_valid), .dma$rd$rsp$ready(rd_rsp_ready),
        .dma$rd$rsp$data(rd_rsp_data), .dma$rd$rsp$keep(rd_rsp_keep),
        .dma$rd$rsp$last(rd_rsp_last), .dma$rd$rsp_tag(rd_rsp_tag),
        .dma$rd$rsp_error(rd_rsp_error),
        .dma$wr$req_valid(wr_req_valid), .dma$wr$req_ready(wr_req_ready),
        .dma$wr$req_addr(wr_req_addr), .dma$wr$req_len(wr_req_len),
        .dma$wr$req_tag(wr_req_tag),
        .dma$wr$data$valid(wr_dat_valid), .dma$wr$data$ready(wr_dat_ready),
        .dma$wr$data$data(wr_dat_data), .dma$wr$data$keep(wr_dat_keep),
        .dma$wr$data$last(wr_dat_last),
        .dma$wr$done_valid(wr_done_valid), .dma$wr$done_tag(wr_done_tag),
        .dma$wr$done_error(wr_done_error),
        .m_axi_awaddr(d_awaddr), .m_axi_awlen(d_awlen), .m_axi_awsize(d_awsize),
        .m_axi_awburst(d_awburst), .m_axi_awvalid(d_awvalid), .m_axi_awready(d_awready),
        .m_axi_wdata(d_wdata), .m_axi_wstrb(d_wstrb), .m_axi_wlast(d_wlast),
        .m_axi_wvalid(d_wvalid), .m_axi_wready(d_wready),
        .m_axi_bresp(d_bresp), .m_axi_bvalid(d_bvalid), .m_axi_bready(d_bready),
        .m_axi_araddr(d_araddr), .m_axi_arlen(d_arlen), .m_axi_arsize(d_arsize),
        .m_axi_arburst(d_arburst), .m_axi_arvalid(d_arvalid), .m_axi_arready(d_arready),
        .m_axi_rdata(d_rdata), .m_axi_rresp(d_rresp), .m_axi_rlast(d_rlast),
        .m_axi_rvalid(d_rvalid), .m_axi_rready(d_rready)
    );

    // ---------------------------------------------------------------- Ethernet, 10GBASE-R
    wire        mac_rx_valid, mac_rx_last, mac_rx_user;
    wire [63:0] mac_rx_data;
    wire [7:0]  mac_rx_keep;
    wire        mac_tx_valid, mac_tx_ready, mac_tx_last;
    wire [63:0] mac_tx_data;
    wire [7:0]  mac_tx_keep;
    wire        mac_rx_status;

    xxv_eth_0 u_eth (
        .gt_refclk_p(qsfp0_refclk_p), .gt_refclk_n(qsfp0_refclk_n),
        .gt_rxp_in_0(qsfp0_rx_p[0]), .gt_rxn_in_0(qsfp0_rx_n[0]),
        .gt_txp_out_0(qsfp0_tx_p[0]), .gt_txn_out_0(qsfp0_tx_n[0]),
        .sys_reset(~pcie_perst_n),
        .dclk(dclk),
        .tx_clk_out_0(mac_clk),
        .rx_clk_out_0(),
        // with the core's RX FIFO both user interfaces run on tx_clk_out (one MAC domain)
        .rx_core_clk_0(mac_clk),
        .txoutclksel_in_0(3'b101), .rxoutclksel_in_0(3'b101),
        .gtwiz_reset_tx_datapath_0(1'b0), .gtwiz_reset_rx_datapath_0(1'b0),
        .gt_loopback_in_0(3'b000),
        .rx_reset_0(1'b0), .tx_reset_0(1'b0),
        .user_rx_reset_0(mac_user_rx_reset), .user_tx_reset_0(mac_user_tx_reset),
        .rx_axis_tvalid_0(mac_rx_valid), .rx_axis_tdata_0(mac_rx_data),
        .rx_axis_tlast_0(mac_rx_last), .rx_axis_tkeep_0(mac_rx_keep),
        .rx_axis_tuser_0(mac_rx_user),
        .tx_axis_tready_0(mac_tx_ready), .tx_axis_tvalid_0(mac_tx_valid),
        .tx_axis_tdata_0(mac_tx_data), .tx_axis_tlast_0(mac_tx_last),
        .tx_axis_tkeep_0(mac_tx_keep), .tx_axis_tuser_0(1'b0),
        .tx_unfout_0(),
        .tx_preamblein_0(56'd0), .rx_preambleout_0(),
        .stat_rx_status_0(mac_rx_status), .stat_rx_block_lock_0(),
        // the MAC adds the FCS on transmit and checks and strips it on receive
        // (docs/INTEGRATION.md section 3); frames up to 4352 octets (a 4096-byte RoCE
        // payload with its headers, a VLAN tag and the FCS)
        .ctl_rx_enable_0(1'b1), .ctl_rx_check_preamble_0(1'b1), .ctl_rx_check_sfd_0(1'b1),
        .ctl_rx_force_resync_0(1'b0), .ctl_rx_delete_fcs_0(1'b1), .ctl_rx_ignore_fcs_0(1'b0),
        .ctl_rx_max_packet_len_0(15'd4352), .ctl_rx_min_packet_len_0(8'd64),
        .ctl_rx_process_lfi_0(1'b0), .ctl_rx_test_pattern_0(1'b0),
        .ctl_rx_data_pattern_select_0(1'b0), .ctl_rx_custom_preamble_enable_0(1'b0),
        .ctl_tx_enable_0(1'b1), .ctl_tx_fcs_ins_enable_0(1'b1), .ctl_tx_ignore_fcs_0(1'b0),
        .ctl_tx_send_rfi_0(1'b0), .ctl_tx_send_lfi_0(1'b0), .ctl_tx_send_idle_0(1'b0),
        .ctl_tx_test_pattern_0(1'b0), .ctl_tx_ipg_value_0(4'd12),
        .ctl_tx_data_pattern_select_0(1'b0), .ctl_tx_test_pattern_enable_0(1'b0),
        .ctl_tx_test_pattern_select_0(1'b0), .ctl_tx_custom_preamble_enable_0(1'b0),
        .ctl_tx_test_pattern_seed_a_0(58'd0), .ctl_tx_test_pattern_seed_b_0(58'd0)
    );

    // ---------------------------------------------------------------- MAC streams and CDC
    // Byte order: the MAC carries the first octet in tdata[7:0] and tkeep[0], the NIC in
    // data[63:56] and keep[7] (docs/INTEGRATION.md section 3): reverse the lanes (wiring).
    wire        nic_rx_valid, nic_rx_ready, nic_rx_last;
    wire [63:0] nic_rx_data;
    wire [7:0]  nic_rx_keep;
    wire        nic_tx_valid, nic_tx_ready, nic_tx_last;
    wire [63:0] nic_tx_data;
    wire [7:0]  nic_tx_keep;
    wire [63:0] rxf_data, txf_data;
    wire [7:0]  rxf_keep, txf_keep;
    genvar i;
    generate
        for (i = 0; i < 8; i = i + 1) begin : g_lanes
            assign nic_rx_data[63 - 8 * i -: 8] = rxf_data[8 * i +: 8];
            assign nic_rx_keep[7 - i] = rxf_keep[i];
            assign txf_data[8 * i +: 8] = nic_tx_data[63 - 8 * i -: 8];
            assign txf_keep[i] = nic_tx_keep[7 - i];
        end
    endgenerate

    // Transmit: a packet FIFO (store and forward) into the MAC's clock. The NIC may pause
    // inside a frame (its payload comes from DMA reads) and the MAC cannot take a gap, so a
    // frame is released only once all of it is in (1024 x 8 bytes > the largest frame).
    xpm_fifo_axis #(
        .CLOCKING_MODE("independent_clock"), .FIFO_DEPTH(1024), .PACKET_FIFO("true"),
        .TDATA_WIDTH(64), .TUSER_WIDTH(1), .TID_WIDTH(1), .TDEST_WIDTH(1),
        .FIFO_MEMORY_TYPE("auto"), .CDC_SYNC_STAGES(3), .USE_ADV_FEATURES("0000")
    ) u_tx_fifo (
        .s_aclk(axi_aclk), .s_aresetn(axi_aresetn),
        .s_axis_tvalid(nic_tx_valid), .s_axis_tready(nic_tx_ready),
        .s_axis_tdata(txf_data), .s_axis_tkeep(txf_keep), .s_axis_tstrb(txf_keep),
        .s_axis_tlast(nic_tx_last), .s_axis_tuser(1'b0), .s_axis_tid(1'b0),
        .s_axis_tdest(1'b0),
        .m_aclk(mac_clk),
        .m_axis_tvalid(mac_tx_valid), .m_axis_tready(mac_tx_ready),
        .m_axis_tdata(mac_tx_data), .m_axis_tkeep(mac_tx_keep), .m_axis_tstrb(),
        .m_axis_tlast(mac_tx_last), .m_axis_tuser(), .m_axis_tid(), .m_axis_tdest(),
        .prog_full_axis(), .prog_empty_axis(), .almost_full_axis(), .almost_empty_axis(),
        .wr_data_count_axis(), .rd_data_count_axis(),
        .injectsbiterr_axis(1'b0), .injectdbiterr_axis(1'b0),
        .sbiterr_axis(), .dbiterr_axis()
    );

    // Receive: the MAC has no tready, so whole frames are dropped when the FIFO might not
    // hold them: a frame starting while fewer than 560 entries are free (prog_full) is
    // discarded to its tlast. 560 beats hold the longest frame the MAC passes (4352 octets).
    // Frames with a bad FCS (tuser) still go to the NIC, whose ICRC check rejects them.
    wire rxf_prog_full;
    reg  rx_in_frame = 1'b0;  // a frame has started and not yet ended
    reg  rx_dropping = 1'b0;  // the current frame is being discarded
    wire rx_start_drop = !rx_in_frame && rxf_prog_full;
    wire rx_drop = rx_dropping || rx_start_drop;
    always @(posedge mac_clk) begin
        if (!mac_rst_n) begin
            rx_in_frame <= 1'b0;
            rx_dropping <= 1'b0;
        end else if (mac_rx_valid) begin
            rx_in_frame <= !mac_rx_last;
            rx_dropping <= rx_drop && !mac_rx_last;
        end
    end
    xpm_fifo_axis #(
        .CLOCKING_MODE("independent_clock"), .FIFO_DEPTH(2048), .PACKET_FIFO("false"),
        .TDATA_WIDTH(64), .TUSER_WIDTH(1), .TID_WIDTH(1), .TDEST_WIDTH(1),
        .FIFO_MEMORY_TYPE("auto"), .CDC_SYNC_STAGES(3), .USE_ADV_FEATURES("0002"),
        .PROG_FULL_THRESH(2048 - 560)
    ) u_rx_fifo (
        .s_aclk(mac_clk), .s_aresetn(mac_rst_n),
        .s_axis_tvalid(mac_rx_valid && !rx_drop), .s_axis_tready(),
        .s_axis_tdata(mac_rx_data), .s_axis_tkeep(mac_rx_keep), .s_axis_tstrb(mac_rx_keep),
        .s_axis_tlast(mac_rx_last), .s_axis_tuser(mac_rx_user), .s_axis_tid(1'b0),
        .s_axis_tdest(1'b0),
        .m_aclk(axi_aclk),
        .m_axis_tvalid(nic_rx_valid), .m_axis_tready(nic_rx_ready),
        .m_axis_tdata(rxf_data), .m_axis_tkeep(rxf_keep), .m_axis_tstrb(),
        .m_axis_tlast(nic_rx_last), .m_axis_tuser(), .m_axis_tid(), .m_axis_tdest(),
        .prog_full_axis(rxf_prog_full), .prog_empty_axis(), .almost_full_axis(),
        .almost_empty_axis(), .wr_data_count_axis(), .rd_data_count_axis(),
        .injectsbiterr_axis(1'b0), .injectdbiterr_axis(1'b0),
        .sbiterr_axis(), .dbiterr_axis()
    );

    // the PCS status, into the NIC's clock (CFG_STATUS link bit)
    wire link_up;
    xpm_cdc_single #(.DEST_SYNC_FF(4), .SRC_INPUT_REG(0)) u_link_sync (
        .src_clk(1'b0), .src_in(mac_rx_status), .dest_clk(axi_aclk), .dest_out(link_up)
    );

    // ---------------------------------------------------------------- the NIC
    ferroce_nic_64 u_nic (
        .clock(axi_aclk),
        .s_axil_awaddr(l_awaddr[20:0]), .s_axil_awvalid(l_awvalid), .s_axil_awready(l_awready),
        .s_axil_wdata(l_wdata), .s_axil_wstrb(l_wstrb), .s_axil_wvalid(l_wvalid),
        .s_axil_wready(l_wready),
        .s_axil_bresp(l_bresp), .s_axil_bvalid(l_bvalid), .s_axil_bready(l_bready),
        .s_axil_araddr(l_araddr[20:0]), .s_axil_arvalid(l_arvalid), .s_axil_arready(l_arready),
        .s_axil_rdata(l_rdata), .s_axil_rresp(l_rresp), .s_axil_rvalid(l_rvalid),
        .s_axil_rready(l_rready),
        .rx_mac$valid(nic_rx_valid), .rx_mac$ready(nic_rx_ready), .rx_mac$data(nic_rx_data),
        .rx_mac$keep(nic_rx_keep), .rx_mac$last(nic_rx_last),
        .tx_mac$valid(nic_tx_valid), .tx_mac$ready(nic_tx_ready), .tx_mac$data(nic_tx_data),
        .tx_mac$keep(nic_tx_keep), .tx_mac$last(nic_tx_last),
        .link_up(link_up),
        // the 10G subsystem here runs without priority flow control
        .pfc_pause_in(8'd0),
        .dma$rd$req_valid(rd_req_valid), .dma$rd$req_ready(rd_req_ready),
        .dma$rd$req_addr(rd_req_addr), .dma$rd$req_len(rd_req_len),
        .dma$rd$req_tag(rd_req_tag),
        .dma$rd$rsp$valid(rd_rsp_valid), .dma$rd$rsp$ready(rd_rsp_ready),
        .dma$rd$rsp$data(rd_rsp_data), .dma$rd$rsp$keep(rd_rsp_keep),
        .dma$rd$rsp$last(rd_rsp_last), .dma$rd$rsp_tag(rd_rsp_tag),
        .dma$rd$rsp_error(rd_rsp_error),
        .dma$wr$req_valid(wr_req_valid), .dma$wr$req_ready(wr_req_ready),
        .dma$wr$req_addr(wr_req_addr), .dma$wr$req_len(wr_req_len),
        .dma$wr$req_tag(wr_req_tag),
        .dma$wr$data$valid(wr_dat_valid), .dma$wr$data$ready(wr_dat_ready),
        .dma$wr$data$data(wr_dat_data), .dma$wr$data$keep(wr_dat_keep),
        .dma$wr$data$last(wr_dat_last),
        .dma$wr$done_valid(wr_done_valid), .dma$wr$done_tag(wr_done_tag),
        .dma$wr$done_error(wr_done_error),
        .irq_pulse(nic_irq_pulse), .irq_level(),
        // event counters for simulation and debug (docs/INTEGRATION.md section 6): unused
        .rx_cnt_accepted(), .rx_cnt_bad_icrc(), .rx_cnt_truncated(), .rx_cnt_length(),
        .rx_cnt_oversize(), .rx_cnt_unsupported(), .rx_cnt_mac_mismatch(),
        .rx_cnt_bad_opcode(), .resp_cnt_executed(), .resp_cnt_duplicate(),
        .resp_cnt_psn_err(), .resp_cnt_access_err(), .resp_cnt_invalid(),
        .resp_cnt_unsupported(), .resp_cnt_qp_drop(), .resp_cnt_dma_error(), .resp_cnt_rnr(),
        .resp_cnt_recv(), .req_cnt_packets(), .req_cnt_messages(), .req_cnt_acks(),
        .req_cnt_naks(), .req_cnt_resent(), .req_cnt_errors(), .cq_cnt_written(),
        .cq_cnt_dropped(), .pfc_paused()
    );

    // ---------------------------------------------------------------- interrupts
    // XDMA's usr_irq_req is a level held until usr_irq_ack (PG194, bridge-mode interrupts);
    // the NIC's irq_pulse is one cycle per event: a set/clear bit per vector. The XDMA has at
    // most 16 user interrupts, so vectors 16..31 are not connected (their causes are still
    // pending in the NIC's registers).
    always @(posedge axi_aclk) begin
        if (!axi_aresetn) usr_irq_req <= 16'd0;
        else usr_irq_req <= (usr_irq_req & ~usr_irq_ack) | nic_irq_pulse[15:0];
    end

    // ---------------------------------------------------------------- board pins
    // QSFP28 module out of reset once PCIe is, high-power mode, not selected for I2C (this
    // design does no module management); reference clock generator running at the 156.25 MHz
    // setting the XDC assumes (README.md).
    assign qsfp0_reset_l = pcie_perst_n;
    assign qsfp0_lpmode = 1'b0;
    assign qsfp0_modsel_l = 1'b1;
    assign qsfp0_refclk_reset = 1'b0;
    assign qsfp0_fs = 2'b01;

    // LEDs: PCIe link, Ethernet link (or the module absent: off), a heartbeat of axi_aclk
    reg [27:0] beat = 28'd0;
    always @(posedge axi_aclk) beat <= beat + 28'd1;
    assign led[0] = user_lnk_up;
    assign led[1] = link_up && !qsfp0_modprs_l;
    assign led[2] = beat[27];
    // Read by nothing, on purpose: the module interrupt (no module management), the AXI IDs
    // returned on single-ID paths, the AXI4-Lite address bits above BAR0's 21 and the
    // protection bits (the NIC decodes neither), vectors 16..31 (see the interrupts above).
    wire unused_ok = ^{qsfp0_int_l, n_bid, n_rid, sb_bid, sb_rid, l_awaddr[63:21],
                       l_araddr[63:21], l_awprot, l_arprot, nic_irq_pulse[31:16]};

endmodule

`default_nettype wire
