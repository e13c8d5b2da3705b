#!/usr/bin/env python3
"""Splits a captured control-channel exchange into the tools' messages and decodes them.

  decode-exchange.py DIR
DIR holds client_to_server.bin and server_to_client.bin (as written by validate-pair.sh
--samples) or a_to_b.bin (server to client) and b_to_a.bin (client to server) from ctl-relay.py.
Each direction is decoded on its own (the tools send fixed-size messages; the framing below is what
the captures show, see docs/INTEROP.md). Prints one line per message.

Formats recognised:
  ibv_rc_pingpong (rdma-core): 52-byte text "LID:QPN:PSN:GID" + NUL, then "done" + NUL from the
      client.
  perftest (ib_*_bw / ib_*_lat, TCP exchange, no RDMA-CM): 16-byte version string, 4-byte and
      4-byte big-endian integers (cycle buffer, cache line size), 2-byte MTU (ASCII digit of the
      ibv_mtu enum + NUL), then 108-byte key messages
      "LID:OUT_READS:QPN:PSN:RKEY:VADDR:G0:..:G15:SRQN:" + NUL, bandwidth reports (five 8-byte
      big-endian fields: size, iterations, peak, average, message rate; the last three are IEEE
      doubles) and finally "done" + NUL.
"""
import ipaddress
import os
import struct
import sys

HEX = set(b"0123456789abcdefABCDEF")


def gid_str(raw):
    a = ipaddress.IPv6Address(bytes(raw))
    return str(a.ipv4_mapped) + " (IPv4-mapped)" if a.ipv4_mapped else str(a)


def is_hex(b):
    return len(b) > 0 and all(c in HEX for c in b)


def decode_pingpong(d):
    out, pos = [], 0
    while pos < len(d):
        if d[pos:pos + 5] == b"done\0":
            out.append((pos, 5, "done"))
            pos += 5
        elif len(d) - pos >= 52 and d[pos + 51] == 0:
            s = d[pos:pos + 51].decode()
            lid, qpn, psn, gid = s.split(":")
            out.append((pos, 52, f"dest lid=0x{lid} qpn=0x{qpn} psn=0x{psn} gid={gid_str(bytes.fromhex(gid))}"))
            pos += 52
        else:
            out.append((pos, len(d) - pos, f"UNDECODED {d[pos:].hex()}"))
            break
    return out


def decode_perftest(d):
    out, pos = [], 0
    v = d[0:16]
    out.append((0, 16, f"version {v.rstrip(bytes(1)).decode(errors='replace')!r}"))
    pos = 16
    (cb,) = struct.unpack(">i", d[pos:pos + 4])
    out.append((pos, 4, f"cycle_buffer {cb} (big-endian int)"))
    pos += 4
    (cl,) = struct.unpack(">i", d[pos:pos + 4])
    out.append((pos, 4, f"cache_line_size {cl} (big-endian int)"))
    pos += 4
    m = d[pos:pos + 2]
    mtu = {b"1": 256, b"2": 512, b"3": 1024, b"4": 2048, b"5": 4096}.get(m[:1], "?")
    out.append((pos, 2, f"mtu enum {m[:1].decode(errors='replace')!r} ({mtu} bytes)"))
    pos += 2
    nkey = 0
    while pos < len(d):
        if d[pos:pos + 5] == b"done\0":
            out.append((pos, 5, "done"))
            pos += 5
        elif is_hex(d[pos:pos + 4]) and d[pos + 4:pos + 5] == b":" and len(d) - pos >= 108:
            s = d[pos:pos + 107].decode()
            f = s.rstrip(":").split(":")
            lid, outr, qpn, psn, rkey, va = f[0:6]
            gid = bytes(int(x, 16) for x in f[6:22])
            srqn = f[22]
            nkey += 1
            out.append((pos, 108, f"key#{nkey} lid=0x{lid} out_reads=0x{outr} qpn=0x{qpn} psn=0x{psn} "
                                  f"rkey=0x{rkey} vaddr=0x{va} gid={gid_str(gid)} srqn=0x{srqn}"))
            pos += 108
        elif len(d) - pos >= 40:
            size, iters = struct.unpack(">QQ", d[pos:pos + 16])
            peak, avg, rate = struct.unpack(">ddd", d[pos + 16:pos + 40])
            out.append((pos, 40, f"report size={size} iters={iters} bw_peak={peak:.6g} bw_avg={avg:.6g} "
                                 f"msg_rate={rate:.6g}  (5 x 8-byte messages)"))
            pos += 40
        else:
            out.append((pos, len(d) - pos, f"UNDECODED {d[pos:].hex()}"))
            break
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    d = sys.argv[1]
    names = [("client_to_server.bin", "server_to_client.bin"), ("b_to_a.bin", "a_to_b.bin")]
    for c2s, s2c in names:
        if os.path.exists(os.path.join(d, c2s)):
            break
    else:
        sys.exit(f"decode-exchange: no capture files in {d}")
    for label, fn in (("client -> server", c2s), ("server -> client", s2c)):
        data = open(os.path.join(d, fn), "rb").read()
        if len(data) >= 16 and data[1:2] == b"." and data[4:16] == bytes(12):
            kind, msgs = "perftest", decode_perftest(data)
        else:
            kind, msgs = "ibv_rc_pingpong", decode_pingpong(data)
        print(f"{label} ({kind}, {len(data)} bytes, {len(msgs)} messages)")
        for off, n, text in msgs:
            print(f"  @{off:<5} {n:>3} B  {text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
