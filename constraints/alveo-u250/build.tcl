# ferroce on the Alveo U250: Vivado non-project build of ferroce_u250_top.v (README.md).
#
#   ferroce verilog --out /tmp/nic                       (the emitted NIC and DMA bridge)
#   vivado -mode batch -source build.tcl -tclargs /tmp/nic [OUT_DIR]
#
# Creates the IP (XDMA in AXI Bridge mode, the 10G/25G Ethernet subsystem, the AXI width and
# protocol converters), reads the emitted Verilog, the wrapper and the XDC, runs synthesis,
# placement and routing, writes timing and utilisation reports and the bitstream into OUT_DIR
# (default ./build-u250). Nobody in this project has run it: Vivado is not part of the open
# flow. The IP parameter names are those of AMD's product guides (PG195/PG194 for xdma, PG210
# for xxv_ethernet, PG059 for the converters); the values marked CHECK below depend on the
# board and are not known from public sources here.

if {$argc < 1} {
    error "usage: vivado -mode batch -source build.tcl -tclargs NIC_VERILOG_DIR \[OUT_DIR\]"
}
set part xcu250-figd2104-2L-e
set here [file dirname [file normalize [info script]]]
if {[info script] eq ""} { set here [pwd] }
set nic_dir [file normalize [lindex $argv 0]]
set out_dir [file normalize [expr {$argc > 1 ? [lindex $argv 1] : "build-u250"}]]
set ip_dir [file join $out_dir ip]
file mkdir $ip_dir

set sources [list \
    [file join $nic_dir ferroce_nic_64.v] \
    [file join $nic_dir ferroce_dma_axi4_64.v] \
    [file join $here ferroce_u250_top.v]]
foreach f $sources {
    if {![file exists $f]} { error "$f is missing: run `ferroce verilog --out $nic_dir` first" }
}

# CHECK (UG1289, the U250 user guide): the PCIe hard block and GT quads at the x16 edge
# connector (the XDC puts lanes 0-15 on GTY quads 224-227), and the GT channel of QSFP28 cage 0
# lane 0 (GTY quad 231). Left empty, Vivado's defaults for the part are used, which may not be
# these; set them before building.
set pcie_blk_locn ""
set pcie_select_quad ""
set eth_gt_group ""
set eth_lane_gt_loc ""

create_project -in_memory -part $part

# ---- XDMA (PG195) in AXI Bridge mode: S_AXI_B is the AXI4 slave through which the card
# reads and writes host memory, M_AXI_B carries the host's BAR0 accesses. Gen3 x16 needs the
# 512-bit interface at 250 MHz; axi_aclk is the NIC's clock.
create_ip -name xdma -vendor xilinx.com -library ip -module_name xdma_0 -dir $ip_dir
set_property -dict [list \
    CONFIG.functional_mode {AXI_Bridge} \
    CONFIG.mode_selection {Advanced} \
    CONFIG.device_port_type {PCI_Express_Endpoint_device} \
    CONFIG.pl_link_cap_max_link_width {X16} \
    CONFIG.pl_link_cap_max_link_speed {8.0_GT/s} \
    CONFIG.ref_clk_freq {100_MHz} \
    CONFIG.axi_data_width {512_bit} \
    CONFIG.axisten_freq {250} \
    CONFIG.axi_addr_width {64} \
    CONFIG.en_axi_master_if {true} \
    CONFIG.en_axi_slave_if {true} \
    CONFIG.pf0_bar0_enabled {true} \
    CONFIG.pf0_bar0_64bit {true} \
    CONFIG.pf0_bar0_scale {Megabytes} \
    CONFIG.pf0_bar0_size {2} \
    CONFIG.pciebar2axibar_0 {0x0000000000000000} \
    CONFIG.axibar_num {1} \
    CONFIG.axibar2pciebar_0 {0x0000000000000000} \
    CONFIG.xdma_num_usr_irq {16} \
] [get_ips xdma_0]
# BAR0 is the NIC's register map (2 MiB, BAR0_SIZE in proto); the slave bridge translates AXI
# addresses to PCIe addresses one to one (axibar2pciebar_0 = 0), so the NIC's IOVAs go out
# unchanged. Its AXI BAR aperture (PG194, "AXI BARs") must cover every IOVA the driver hands
# the NIC: check it with `report_property [get_ips xdma_0]` before building.
if {$pcie_blk_locn ne ""} {
    set_property CONFIG.pcie_blk_locn $pcie_blk_locn [get_ips xdma_0]
}
if {$pcie_select_quad ne ""} {
    set_property -dict [list CONFIG.en_gt_selection {true} \
        CONFIG.select_quad $pcie_select_quad] [get_ips xdma_0]
}

# ---- BAR0 path: 512-bit AXI4 down to 32 bits, then AXI4 to AXI4-Lite (PG059)
create_ip -name axi_dwidth_converter -vendor xilinx.com -library ip \
    -module_name axi_bar_dwidth -dir $ip_dir
set_property -dict [list \
    CONFIG.PROTOCOL {AXI4} \
    CONFIG.SI_DATA_WIDTH {512} \
    CONFIG.MI_DATA_WIDTH {32} \
    CONFIG.ADDR_WIDTH {64} \
    CONFIG.SI_ID_WIDTH {4} \
    CONFIG.ACLK_ASYNC {0} \
] [get_ips axi_bar_dwidth]
create_ip -name axi_protocol_converter -vendor xilinx.com -library ip \
    -module_name axi_bar_lite -dir $ip_dir
set_property -dict [list \
    CONFIG.SI_PROTOCOL {AXI4} \
    CONFIG.MI_PROTOCOL {AXI4LITE} \
    CONFIG.DATA_WIDTH {32} \
    CONFIG.ADDR_WIDTH {64} \
    CONFIG.ID_WIDTH {4} \
] [get_ips axi_bar_lite]

# ---- host-memory path: the DMA bridge's 64-bit AXI4 up to the XDMA's 512 bits
create_ip -name axi_dwidth_converter -vendor xilinx.com -library ip \
    -module_name axi_dma_dwidth -dir $ip_dir
set_property -dict [list \
    CONFIG.PROTOCOL {AXI4} \
    CONFIG.SI_DATA_WIDTH {64} \
    CONFIG.MI_DATA_WIDTH {512} \
    CONFIG.ADDR_WIDTH {64} \
    CONFIG.SI_ID_WIDTH {1} \
    CONFIG.ACLK_ASYNC {0} \
] [get_ips axi_dma_dwidth]

# ---- 10G/25G Ethernet subsystem (PG210): one 10GBASE-R MAC+PCS/PMA, 64-bit AXI4-Stream,
# control by ctl_* ports (no AXI4-Lite), the core's FIFO so RX and TX share tx_clk_out,
# a 156.25 MHz reference (README.md: the QSFP clock generator) and a 100 MHz DRP clock.
create_ip -name xxv_ethernet -vendor xilinx.com -library ip -module_name xxv_eth_0 -dir $ip_dir
set_property -dict [list \
    CONFIG.NUM_OF_CORES {1} \
    CONFIG.LINE_RATE {10} \
    CONFIG.CORE {Ethernet MAC+PCS/PMA 64-bit} \
    CONFIG.DATA_PATH_INTERFACE {AXI Stream} \
    CONFIG.BASE_R_KR {BASE-R} \
    CONFIG.INCLUDE_AXI4_INTERFACE {0} \
    CONFIG.INCLUDE_STATISTICS_COUNTERS {0} \
    CONFIG.INCLUDE_USER_FIFO {1} \
    CONFIG.GT_REF_CLK_FREQ {156.25} \
    CONFIG.GT_DRP_CLK {100} \
] [get_ips xxv_eth_0]
if {$eth_gt_group ne ""} {
    set_property CONFIG.GT_GROUP_SELECT $eth_gt_group [get_ips xxv_eth_0]
}
if {$eth_lane_gt_loc ne ""} {
    set_property CONFIG.LANE1_GT_LOC $eth_lane_gt_loc [get_ips xxv_eth_0]
}

# ---- the IP out of context, then the design
generate_target all [get_ips]
synth_ip [get_ips]
read_verilog $sources
read_xdc [file join $here alveo-u250.xdc]

synth_design -top ferroce_u250_top -part $part
write_checkpoint -force [file join $out_dir post_synth.dcp]
report_utilization -file [file join $out_dir utilization_synth.txt]
opt_design
place_design
phys_opt_design
route_design
write_checkpoint -force [file join $out_dir post_route.dcp]
report_timing_summary -max_paths 20 -file [file join $out_dir timing_summary.txt]
report_utilization -file [file join $out_dir utilization.txt]
report_drc -file [file join $out_dir drc.txt]
write_bitstream -force [file join $out_dir ferroce_u250.bit]
puts "build.tcl: done, reports and bitstream in $out_dir"
