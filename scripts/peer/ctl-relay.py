#!/usr/bin/env python3
"""Host-side relay for the control channel between two peer guests, with capture.

Connects to two QEMU chardev unix sockets (both QEMUs run the chardev with server=on), copies bytes
both ways and records every chunk:
  OUT/a_to_b.bin, OUT/b_to_a.bin   raw byte streams
  OUT/chunks.jsonl                 one record per chunk: time, direction, length, hex
  OUT/exchange.txt                 readable dump: per chunk, time, direction, hex and printable text
  OUT/events.txt                   connect / end-of-stream / close events with times
End of stream from one side is passed on as a half-close (shutdown for writing) to the other.
The relay stops when both sides have closed, or after --timeout seconds.

  ctl-relay.py --a SOCK_A --b SOCK_B --out DIR [--name-a server] [--name-b client] [--timeout 120]
"""
import argparse
import json
import os
import select
import socket
import sys
import time


def connect(path, deadline):
    while True:
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(path)
            return s
        except OSError:
            s.close()
            if time.monotonic() > deadline:
                raise SystemExit(f"ctl-relay: cannot connect to {path}")
            time.sleep(0.05)


def printable(b):
    return "".join(chr(c) if 32 <= c < 127 else "." for c in b)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--a", required=True)
    ap.add_argument("--b", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--name-a", default="a")
    ap.add_argument("--name-b", default="b")
    ap.add_argument("--timeout", type=float, default=120)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    t0 = time.monotonic()
    deadline = t0 + args.timeout
    names = {"a": args.name_a, "b": args.name_b}
    ev = open(os.path.join(args.out, "events.txt"), "w")

    def event(msg):
        ev.write(f"{time.monotonic() - t0:9.3f} {msg}\n")
        ev.flush()

    sa = connect(args.a, deadline)
    event(f"connected {names['a']}")
    sb = connect(args.b, deadline)
    event(f"connected {names['b']}")
    peer = {sa: sb, sb: sa}
    tag = {sa: "a", sb: "b"}
    raw = {sa: open(os.path.join(args.out, "a_to_b.bin"), "wb"),
           sb: open(os.path.join(args.out, "b_to_a.bin"), "wb")}
    jl = open(os.path.join(args.out, "chunks.jsonl"), "w")
    txt = open(os.path.join(args.out, "exchange.txt"), "w")
    txt.write(f"# a = {names['a']}, b = {names['b']}; offsets are per direction\n")
    offs = {sa: 0, sb: 0}
    open_rd = {sa, sb}
    while open_rd and time.monotonic() < deadline:
        r, _, _ = select.select(list(open_rd), [], [], 0.2)
        for s in r:
            try:
                data = s.recv(65536)
            except OSError as e:
                data = b""
                event(f"recv error from {names[tag[s]]}: {e}")
            src, dst = tag[s], tag[peer[s]]
            if not data:
                event(f"end-of-stream from {names[src]} after {offs[s]} bytes")
                open_rd.discard(s)
                try:
                    peer[s].shutdown(socket.SHUT_WR)
                except OSError as e:
                    event(f"shutdown towards {names[dst]} failed: {e}")
                continue
            t = time.monotonic() - t0
            raw[s].write(data)
            raw[s].flush()
            jl.write(json.dumps({"t": round(t, 4), "dir": f"{names[src]}->{names[dst]}",
                                 "off": offs[s], "len": len(data), "hex": data.hex()}) + "\n")
            jl.flush()
            txt.write(f"\n[{t:9.3f}] {names[src]} -> {names[dst]}  offset {offs[s]}  {len(data)} bytes\n")
            for i in range(0, len(data), 16):
                row = data[i:i + 16]
                txt.write(f"  {offs[s] + i:06x}  {row.hex(' '):<47}  |{printable(row)}|\n")
            txt.flush()
            offs[s] += len(data)
            try:
                peer[s].sendall(data)
            except OSError as e:
                event(f"send to {names[dst]} failed: {e}")
    if open_rd:
        event("timeout: relay stopped with streams still open")
    event(f"done: {names['a']}->{names['b']} {offs[sa]} bytes, {names['b']}->{names['a']} {offs[sb]} bytes")
    for s in (sa, sb):
        s.close()
    return 0 if not open_rd else 1


if __name__ == "__main__":
    sys.exit(main())
