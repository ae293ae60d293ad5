#!/usr/bin/env python3
"""energyd's memory under whole-page exports (docs/PERFORMANCE.md "Memory
under large replies").

Creates a static simulated board (energyd-sim create), runs energyd on it at
a 10 ms period until its database holds more than one full export page
(20,000 rows: 3 rails x 100 sweeps/s, ~70 s), then has 6 clients each fetch
--pages whole pages at once (alternately `export` from the beginning of time
and `export` of run 1, reading every reply) and prints energyd's RSS before,
its peak (VmHWM) and its RSS after. Needs no FUSE and no root.

Usage: bench/export_memory.py [--build build] [--pages 10] [--fill-s 75]
         [--energyd PATH]   (another energyd binary, e.g. an older build)
"""
import argparse
import json
import os
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time


def status_mib(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {field} in /proc/{pid}/status")


def recv_exact(s, n):
    buf = bytearray()
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            raise EOFError("energyd closed the connection")
        buf += chunk
    return bytes(buf)


def call(s, request_id, verb, args):
    body = json.dumps({"v": 1, "id": request_id, "verb": verb, "args": args}).encode()
    s.sendall(struct.pack(">I", len(body)) + body)
    (n,) = struct.unpack(">I", recv_exact(s, 4))
    return json.loads(recv_exact(s, n))


def wait_for_socket(path, seconds):
    end = time.time() + seconds
    while time.time() < end:
        try:
            s = socket.socket(socket.AF_UNIX)
            s.connect(path)
            return s
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"energyd did not listen on {path} within {seconds} s")


def fetch_pages(sock_path, pages, totals, lock):
    s = socket.socket(socket.AF_UNIX)
    s.connect(sock_path)
    for i in range(pages):
        args = {"since_wall_ns": 0} if i % 2 == 0 else {"run": 1}
        reply = call(s, i + 1, "export", args)
        with lock:
            if reply.get("ok"):
                totals["rows"] += len(reply["result"]["rows"])
            else:
                totals["errors"] += 1
                totals["last_error"] = reply.get("error")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--energyd")
    ap.add_argument("--pages", type=int, default=10, help="pages each of the 6 clients fetches")
    ap.add_argument("--fill-s", type=float, default=75.0, help="seconds of sampling before the exports")
    a = ap.parse_args()
    energyd = a.energyd or os.path.join(a.build, "daemon", "energyd")
    sim = os.path.join(a.build, "sim", "energyd-sim")
    with tempfile.TemporaryDirectory(prefix="energyd-export-memory-") as tmp:
        board = os.path.join(tmp, "board")
        subprocess.run([sim, "create", "--board", "jetson-orin-nano", "--l4t", "36", "--root", board],
                       check=True, stdout=subprocess.DEVNULL)
        config = os.path.join(tmp, "energyd.yaml")
        with open(config, "w") as f:
            f.write("log_level: warn\n")
        sock_path = os.path.join(tmp, "energyd.sock")
        with open(os.path.join(tmp, "energyd.log"), "w") as log:
            daemon = subprocess.Popen([energyd, "--root", board, "--state-dir", os.path.join(tmp, "state"),
                                       "--socket", sock_path, "--sample-period-ms", "10", "--config", config],
                                      stdout=log, stderr=log)
        try:
            control = wait_for_socket(sock_path, 15)
            started = call(control, 1, "mark.start", {"name": "export-memory"})
            if not started.get("ok"):
                raise RuntimeError(f"mark.start failed: {started}")
            time.sleep(a.fill_s)
            idle = status_mib(daemon.pid, "VmRSS")
            totals = {"rows": 0, "errors": 0}
            lock = threading.Lock()
            t0 = time.time()
            clients = [threading.Thread(target=fetch_pages, args=(sock_path, a.pages, totals, lock)) for _ in range(6)]
            for c in clients:
                c.start()
            for c in clients:
                c.join()
            took = time.time() - t0
            peak = status_mib(daemon.pid, "VmHWM")
            after = status_mib(daemon.pid, "VmRSS")
            print(f"{6 * a.pages} pages, {totals['rows']} rows, {totals['errors']} errors in {took:.1f} s; "
                  f"RSS before {idle:.1f} MiB, peak {peak:.1f} MiB (+{peak - idle:.1f}), after {after:.1f} MiB")
            if totals["errors"]:
                print(f"last error: {totals['last_error']}", file=sys.stderr)
                return 1
            if totals["rows"] == 0:
                print("no rows were exported: nothing was measured", file=sys.stderr)
                return 1
            return 0
        finally:
            daemon.terminate()
            daemon.wait(timeout=15)


if __name__ == "__main__":
    sys.exit(main())
