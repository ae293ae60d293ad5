#!/usr/bin/env python3
"""Would a per-tick phase dither help energyd's accuracy at 100 ms? (docs/PERFORMANCE.md, "Accuracy")

A numerical experiment, standard library only: the trapezoid integral of readings
taken every 100 ms, on a regular grid or moved by a random offset per tick (the
deadlines stay absolute), against the exact integral, for three signal shapes:

  ripple       6 W with the simulator's ripple: 3 % at a random 3.1-9.1 Hz
  bursty-sim   the simulator's bursty workload: 41.6 ms at 9.8 W, 50 ms at 4 W,
               +- 0.5 ms of jitter per edge (a period of about 93 ms)
  locked-30Hz  a 30 frames/s pipeline: 10 ms at 9.8 W in every 33.3 ms (a
               multiple of 10 Hz: every regular reading sees the same phase)

Readings are instantaneous (no sensor averaging, no quantisation): the point
is the sampling scheme alone. Prints mean / max |error| in % per case.
Usage: bench/dither_experiment.py [SEED]
"""
import bisect
import math
import random
import sys

PERIOD = 0.1


def ripple(rnd):
    f, ph, a, mean = rnd.uniform(3.1, 9.1), rnd.uniform(0, 2 * math.pi), 0.03, 6.0
    w = 2 * math.pi * f
    power = lambda t: mean * (1 + a * math.sin(w * t + ph))
    energy = lambda x, y: mean * (y - x) - mean * a / w * (math.cos(w * y + ph) - math.cos(w * x + ph))
    return power, energy


def square(starts, ends, low, high):
    def power(t):
        i = bisect.bisect_right(starts, t) - 1
        return high if i >= 0 and t < ends[i] else low

    def energy(x, y):
        on = sum(max(0.0, min(y, e) - max(x, s)) for s, e in zip(starts, ends) if s < y and e > x)
        return low * (y - x) + (high - low) * on

    return power, energy


def bursty_sim(rnd, until=70.0):
    starts, ends, t = [], [], rnd.uniform(0, 0.1)
    while t < until:
        starts.append(t)
        t += 0.0416 + rnd.gauss(0, 0.0005)
        ends.append(t)
        t += 0.050 + rnd.gauss(0, 0.0005) + 0.0012  # the workload's control round trips
    return square(starts, ends, 4.0, 9.8)


def locked_30hz(rnd, until=70.0):
    phase = rnd.uniform(0, 1 / 30)
    starts = [phase + k / 30 for k in range(int(until * 30))]
    return square(starts, [s + 0.010 for s in starts], 4.0, 9.8)


def trapezoid_error_pct(signal, seconds, dither, rnd):
    power, energy = signal
    begin = rnd.uniform(0.5, 0.6)
    end = begin + seconds
    times, k = [begin], math.floor(begin / PERIOD) + 1
    while True:
        t = k * PERIOD + (rnd.uniform(-dither, dither) if dither > 0 else 0.0)
        if t >= end:
            break
        if t > times[-1]:
            times.append(t)
        k += 1
    times.append(end)
    trap = sum((b - a) * (power(a) + power(b)) / 2 for a, b in zip(times, times[1:]))
    exact = energy(begin, end)
    return abs(trap - exact) / exact * 100


def main():
    rnd = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
    dithers = [("regular", 0.0), ("+-5 ms", 0.005), ("+-25 ms", 0.025), ("+-50 ms", 0.05)]
    print("| signal | run | " + " | ".join(f"{name}: mean / max abs error" for name, _ in dithers) + " |")
    print("|---|---|" + "---|" * len(dithers))
    for name, make in (("ripple", ripple), ("bursty-sim", bursty_sim), ("locked-30Hz", locked_30hz)):
        for seconds, trials in ((1, 200), (10, 60), (60, 12)):
            cells = []
            for _, dither in dithers:
                errors = [trapezoid_error_pct(make(rnd), seconds, dither, rnd) for _ in range(trials)]
                cells.append(f"{sum(errors) / trials:.3f} / {max(errors):.3f} %")
            print(f"| {name} | {seconds} s | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
