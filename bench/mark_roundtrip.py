#!/usr/bin/env python3
"""Mark round trip through the Python client (clients/python/energyd.py).

Prints rows CASE N P50_MS P99_MS MAX_MS like bench/mark_roundtrip:
python_open_connection (mark_start on an open Client) and
python_new_connection (Client() + mark_start). Each run is stopped, untimed.

Usage: mark_roundtrip.py --socket PATH [--n N]
"""

import argparse
import math
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "clients", "python"))
import energyd  # noqa: E402


def percentile(sorted_ms, p):
    """Nearest-rank percentile."""
    rank = max(1, math.ceil(p / 100.0 * len(sorted_ms)))
    return sorted_ms[min(rank, len(sorted_ms)) - 1]


def row(name, ms):
    ms = sorted(ms)
    print("{} {} {:.3f} {:.3f} {:.3f}".format(name, len(ms), percentile(ms, 50), percentile(ms, 99), ms[-1]))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--socket", required=True)
    parser.add_argument("--n", type=int, default=200)
    args = parser.parse_args()
    control = energyd.Client(args.socket)
    open_ms, new_ms = [], []
    for _ in range(args.n):
        t0 = time.perf_counter()
        info = control.mark_start("bench-py")
        open_ms.append((time.perf_counter() - t0) * 1000.0)
        control.mark_stop(info)
    for _ in range(args.n):
        t0 = time.perf_counter()
        with energyd.Client(args.socket) as c:
            info = c.mark_start("bench-py-connect")
            new_ms.append((time.perf_counter() - t0) * 1000.0)
        control.mark_stop(info)
    row("python_open_connection", open_ms)
    row("python_new_connection", new_ms)


if __name__ == "__main__":
    main()
