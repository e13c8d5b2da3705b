#!/usr/bin/env bash
# Installs the outside tools ferroce's tests use (Debian packages). Safe to re-run.
#   tshark        - independent dissector the proto crate is checked against
#   python3-scapy - independent ICRC implementation (scapy.contrib.roce)
#   iverilog, verilator, yosys - Verilog compile, lint, co-simulation and synthesis checks
#   make, g++     - build the Verilated models (co-simulation and the fast engine)
#   gtkwave       - its vcd2fst and fst2vcd read the waveforms of --vcd (an outside VCD reader)
#   tcl           - tclsh checks the Xilinx board files (XDC syntax, the Vivado build script)
set -euo pipefail
need=()
command -v tshark >/dev/null || need+=(tshark)
/usr/bin/python3 -c 'import scapy' 2>/dev/null || need+=(python3-scapy)
command -v iverilog >/dev/null || need+=(iverilog)
command -v verilator >/dev/null || need+=(verilator)
command -v yosys >/dev/null || need+=(yosys)
command -v make >/dev/null || need+=(make)
command -v g++ >/dev/null || need+=(g++)
command -v vcd2fst >/dev/null || need+=(gtkwave)
command -v tclsh >/dev/null || need+=(tcl)
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  echo "install-tools: installing ${need[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
else
  echo "install-tools: all present"
fi
