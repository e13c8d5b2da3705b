#!/usr/bin/python3
"""Independent ICRC oracle: scapy's own RoCEv2 implementation (scapy.contrib.roce.BTH.compute_icrc).

Usage: scapy_icrc.py FILE.pcap
Prints one line per RoCEv2-over-IPv4 frame: "<frame number> <icrc wire bytes as hex>".
scapy computes the ICRC for IPv4 only, so IPv6 and RoCEv1 frames are skipped (ferroce's tests
check those against the published vectors instead). Run with Debian's /usr/bin/python3.
"""
import sys

from scapy.all import Ether, rdpcap, raw
from scapy.contrib.roce import BTH
from scapy.layers.inet import IP


def main(path):
    for number, packet in enumerate(rdpcap(path), 1):
        frame = Ether(raw(packet))
        if IP not in frame or BTH not in frame:
            continue
        icrc = frame[BTH].compute_icrc(b"")
        print(number, icrc.hex())


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: scapy_icrc.py FILE.pcap")
    main(sys.argv[1])
