// Pin check for ecpix5-85f.lpf: a minimal top level with every port the LPF names (LED blink on
// the 100 MHz clock, UART loopback, RGMII receive-to-transmit loopback in the PHY's receive
// clock), so that nextpnr-ecp5 places each port on its constrained site. Not a NIC top level.
module lpf_check_top(
    input clk100,
    output led_r, output led_g, output led_b,
    input uart_rx, output uart_tx,
    input eth_rx_clk, input eth_rx_ctl, input [3:0] eth_rxd,
    output eth_tx_clk, output eth_tx_ctl, output [3:0] eth_txd,
    output eth_rst_n, output eth_mdc, input eth_mdio
);
    reg [26:0] count = 0;
    always @(posedge clk100) count <= count + 1;
    reg uart_q = 1;
    always @(posedge clk100) uart_q <= uart_rx;
    assign uart_tx = uart_q;
    assign led_r = ~count[26];
    assign led_g = ~(count[25] & eth_mdio);
    assign led_b = 1'b1;
    reg [3:0] rxd_q = 0;
    reg ctl_q = 0;
    always @(posedge eth_rx_clk) begin
        rxd_q <= eth_rxd;
        ctl_q <= eth_rx_ctl;
    end
    assign eth_txd = rxd_q;
    assign eth_tx_ctl = ctl_q;
    assign eth_tx_clk = eth_rx_clk;
    assign eth_rst_n = 1'b1;
    assign eth_mdc = count[6];
endmodule
