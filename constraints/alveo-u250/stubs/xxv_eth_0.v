// Lint stub of the 10G/25G High Speed Ethernet Subsystem (xxv_ethernet): one core at 10G,
// Ethernet MAC + PCS/PMA 64-bit, AXI4-Stream, GT and shared logic in the core, FIFO logic
// included, control and status as ctl_*/stat_* ports (no AXI4-Lite). Ports from PG210 (only
// those the wrapper uses; the real core has many more stat_* outputs). See README.md.
module xxv_eth_0 (
    input wire gt_refclk_p,
    input wire gt_refclk_n,
    input wire gt_rxp_in_0,
    input wire gt_rxn_in_0,
    output wire gt_txp_out_0,
    output wire gt_txn_out_0,
    input wire sys_reset,
    input wire dclk,
    output wire tx_clk_out_0,
    output wire rx_clk_out_0,
    input wire rx_core_clk_0,
    input wire [2:0] txoutclksel_in_0,
    input wire [2:0] rxoutclksel_in_0,
    input wire gtwiz_reset_tx_datapath_0,
    input wire gtwiz_reset_rx_datapath_0,
    input wire [2:0] gt_loopback_in_0,
    input wire rx_reset_0,
    input wire tx_reset_0,
    output wire user_rx_reset_0,
    output wire user_tx_reset_0,
    output wire rx_axis_tvalid_0,
    output wire [63:0] rx_axis_tdata_0,
    output wire rx_axis_tlast_0,
    output wire [7:0] rx_axis_tkeep_0,
    output wire rx_axis_tuser_0,
    output wire tx_axis_tready_0,
    input wire tx_axis_tvalid_0,
    input wire [63:0] tx_axis_tdata_0,
    input wire tx_axis_tlast_0,
    input wire [7:0] tx_axis_tkeep_0,
    input wire tx_axis_tuser_0,
    output wire tx_unfout_0,
    input wire [55:0] tx_preamblein_0,
    output wire [55:0] rx_preambleout_0,
    output wire stat_rx_status_0,
    output wire stat_rx_block_lock_0,
    input wire ctl_rx_enable_0,
    input wire ctl_rx_check_preamble_0,
    input wire ctl_rx_check_sfd_0,
    input wire ctl_rx_force_resync_0,
    input wire ctl_rx_delete_fcs_0,
    input wire ctl_rx_ignore_fcs_0,
    input wire [14:0] ctl_rx_max_packet_len_0,
    input wire [7:0] ctl_rx_min_packet_len_0,
    input wire ctl_rx_process_lfi_0,
    input wire ctl_rx_test_pattern_0,
    input wire ctl_rx_data_pattern_select_0,
    input wire ctl_rx_custom_preamble_enable_0,
    input wire ctl_tx_enable_0,
    input wire ctl_tx_fcs_ins_enable_0,
    input wire ctl_tx_ignore_fcs_0,
    input wire ctl_tx_send_rfi_0,
    input wire ctl_tx_send_lfi_0,
    input wire ctl_tx_send_idle_0,
    input wire ctl_tx_test_pattern_0,
    input wire [3:0] ctl_tx_ipg_value_0,
    input wire ctl_tx_data_pattern_select_0,
    input wire ctl_tx_test_pattern_enable_0,
    input wire ctl_tx_test_pattern_select_0,
    input wire ctl_tx_custom_preamble_enable_0,
    input wire [57:0] ctl_tx_test_pattern_seed_a_0,
    input wire [57:0] ctl_tx_test_pattern_seed_b_0
);
    assign gt_txp_out_0 = 1'd0;
    assign gt_txn_out_0 = 1'd0;
    assign tx_clk_out_0 = 1'd0;
    assign rx_clk_out_0 = 1'd0;
    assign user_rx_reset_0 = 1'd0;
    assign user_tx_reset_0 = 1'd0;
    assign rx_axis_tvalid_0 = 1'd0;
    assign rx_axis_tdata_0 = 64'd0;
    assign rx_axis_tlast_0 = 1'd0;
    assign rx_axis_tkeep_0 = 8'd0;
    assign rx_axis_tuser_0 = 1'd0;
    assign tx_axis_tready_0 = 1'd0;
    assign tx_unfout_0 = 1'd0;
    assign rx_preambleout_0 = 56'd0;
    assign stat_rx_status_0 = 1'd0;
    assign stat_rx_block_lock_0 = 1'd0;
    wire unused_ok = ^{gt_refclk_p, gt_refclk_n, gt_rxp_in_0, gt_rxn_in_0, sys_reset, dclk,
                       rx_core_clk_0, txoutclksel_in_0, rxoutclksel_in_0, gtwiz_reset_tx_datapath_0, gtwiz_reset_rx_datapath_0, gt_loopback_in_0,
                       rx_reset_0, tx_reset_0, tx_axis_tvalid_0, tx_axis_tdata_0, tx_axis_tlast_0, tx_axis_tkeep_0,
                       tx_axis_tuser_0, tx_preamblein_0, ctl_rx_enable_0, ctl_rx_check_preamble_0, ctl_rx_check_sfd_0, ctl_rx_force_resync_0,
                       ctl_rx_delete_fcs_0, ctl_rx_ignore_fcs_0, ctl_rx_max_packet_len_0, ctl_rx_min_packet_len_0, ctl_rx_process_lfi_0, ctl_rx_test_pattern_0,
                       ctl_rx_data_pattern_select_0, ctl_rx_custom_preamble_enable_0, ctl_tx_enable_0, ctl_tx_fcs_ins_enable_0, ctl_tx_ignore_fcs_0, ctl_tx_send_rfi_0,
                       ctl_tx_send_lfi_0, ctl_tx_send_idle_0, ctl_tx_test_pattern_0, ctl_tx_ipg_value_0, ctl_tx_data_pattern_select_0, ctl_tx_test_pattern_enable_0,
                       ctl_tx_test_pattern_select_0, ctl_tx_custom_preamble_enable_0, ctl_tx_test_pattern_seed_a_0, ctl_tx_test_pattern_seed_b_0};
endmodule
