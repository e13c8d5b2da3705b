#!/usr/bin/env python3
"""Host end of the control-channel self-test (used by test-ctl-channel.sh).

  ctl-probe.py SOCK send-expect N [--wait-eof S]
      connect to SOCK, send N pseudo-random bytes covering all byte values, read N bytes back,
      compare, then wait up to S seconds for end-of-stream
  ctl-probe.py SOCK echo [--wait-eof S]
      connect to SOCK, echo everything back until end-of-stream (or S seconds of silence)
Prints one line of JSON: ok, bytes, time of the last data and of end-of-stream (seconds after
connecting; null if none was seen).
"""
import argparse
import json
import random
import select
import socket
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("sock")
    ap.add_argument("mode", choices=["send-expect", "echo"])
    ap.add_argument("n", type=int, nargs="?", default=0)
    ap.add_argument("--wait-eof", type=float, default=20)
    ap.add_argument("--connect-timeout", type=float, default=60)
    a = ap.parse_args()
    deadline = time.monotonic() + a.connect_timeout
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(a.sock)
            break
        except OSError:
            s.close()
            if time.monotonic() > deadline:
                print(json.dumps({"ok": False, "error": "cannot connect"}))
                return 1
            time.sleep(0.05)
    t0 = time.monotonic()
    res = {"mode": a.mode, "ok": False, "t_last_data": None, "t_eof": None}
    if a.mode == "send-expect":
        rng = random.Random(1234)
        payload = bytes(range(256)) + bytes(rng.getrandbits(8) for _ in range(max(0, a.n - 256)))
        payload = payload[:a.n]
        s.sendall(payload)
        got = bytearray()
        s.settimeout(a.wait_eof)
        try:
            while len(got) < len(payload):
                d = s.recv(65536)
                if not d:
                    res["t_eof"] = round(time.monotonic() - t0, 3)
                    break
                got += d
        except socket.timeout:
            pass
        res["t_last_data"] = round(time.monotonic() - t0, 3)
        res["bytes"] = len(got)
        res["ok"] = bytes(got) == payload
        if res["t_eof"] is None:
            try:
                d = s.recv(65536)
                if d:
                    res["extra_bytes"] = len(d)
                else:
                    res["t_eof"] = round(time.monotonic() - t0, 3)
            except socket.timeout:
                pass
    else:
        n = 0
        while True:
            r, _, _ = select.select([s], [], [], a.wait_eof)
            if not r:
                break
            d = s.recv(65536)
            if not d:
                res["t_eof"] = round(time.monotonic() - t0, 3)
                break
            s.sendall(d)
            n += len(d)
            res["t_last_data"] = round(time.monotonic() - t0, 3)
        res["bytes"] = n
        res["ok"] = n > 0
    print(json.dumps(res))
    return 0 if res["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
