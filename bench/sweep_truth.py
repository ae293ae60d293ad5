#!/usr/bin/env python3
"""A grid sweep against the simulator's ground truth (issue 15's acceptance).

On a live simulated board (energyd-sim run, FUSE) with energyd on it, runs
`energyctl sweep` over a CPU x GPU grid plus DVFS with a study workload
(`energyd-sim workload --preset P --batch B`, whose phases follow the
board's clocks), then asks the simulator for the exact energy of every
counted run over the run's own span (`energyd-sim ctl energy rail=total`).
Per point it prints the measured and the true energy per item; then the
two acceptance checks:

  minimum: the reported minimum is the point whose true energy per item is
           lowest (DVFS included: it can be the cheapest), or its 95 % CI
           contains that lowest true value;
  saving:  the reported saving against DVFS (of the reported minimum) is
           within 1 percentage point of the true saving (of the true minimum);
           when the reported minimum is DVFS itself, DVFS must truly be it.

--emc LIST adds the memory clock as a third axis.

--stall MS stalls energyd's sampler while the sweeps run: every 2-6 s (a
seeded random draw) energyd is stopped (SIGSTOP) for MS/2..MS ms, then
continued, as a loaded machine does to it. Runs caught by a stall fail their
quality gate and are run again; the minimum must still be the true one.
--sweeps N runs N sweeps in a row on the same board (seeds S, S+1, ...),
checks each, and closes with how many met the minimum check. Each sweep's
report names the runs it re-ran and the runs it left out.

With --search it runs `energyctl sweep --search --cpu all --gpu all`
instead and compares the true energy per item of the point the search
reports (the simulator's exact energy over that point's runs) with the true
grid minimum from `energyd-sim study` (model time; the script first says
how well the study's figure agrees with live runs at the same point, when
the search measured it), and prints the runs used against the grid's:

  search:  within 2 % of the ground-truth minimum with at most 35 % of the
           grid's runs.

Usage: bench/sweep_truth.py BUILD_DIR [--board ID --l4t GEN --preset P
       --batch B --items N --cpu LIST --gpu LIST --emc LIST --repeat K --seed S
       --period MS --stall MS --sweeps N] [--search]
Exits 1 when a measurement fails (energyd, the sweep or a truth query);
prints "meets" or "misses" per check and exits 0 otherwise, so that a
figure is never lost to a judgement.
"""

import argparse
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time


def fail(message):
    print("sweep_truth.py: " + message, file=sys.stderr)
    sys.exit(1)


def wait_for_socket(path, seconds, what, log=None, child=None):
    """Waits for a listening socket; on failure says why, with the end of the child's log."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if child is not None and child.poll() is not None:
            break
        if os.path.exists(path):
            try:
                with socket.socket(socket.AF_UNIX) as s:
                    s.connect(path)
                return
            except OSError:
                pass
        time.sleep(0.05)
    tail = ""
    if log is not None:
        log.flush()
        with open(log.name) as f:
            tail = ": " + " | ".join(f.read().strip().splitlines()[-3:])
    fail(what + " did not come up at " + path + tail)


class Board:
    """energyd-sim run + energyd on it, in a temporary directory."""

    def __init__(self, build, board, l4t, period_ms=None):
        self.build = build
        self.dir = tempfile.mkdtemp(prefix="energyd-sweep-truth-")
        self.ctl = os.path.join(self.dir, "sim.ctl")
        self.sock = os.path.join(self.dir, "energyd.sock")
        sim = os.path.join(build, "sim", "energyd-sim")
        self.sim_log = open(os.path.join(self.dir, "sim.log"), "w")
        self.sim = subprocess.Popen([sim, "run", "--board", board, "--l4t", str(l4t), "--mount",
                                     os.path.join(self.dir, "b"), "--control", self.ctl, "--cpu-load", "0"],
                                    stdout=self.sim_log, stderr=subprocess.STDOUT)
        wait_for_socket(self.ctl, 20, "energyd-sim", self.sim_log, self.sim)
        config = os.path.join(self.dir, "energyd.yaml")
        with open(config, "w") as f:
            f.write("log_level: warn\n")
            if period_ms is not None:
                f.write("sample_period_ms: %d\n" % period_ms)
        self.daemon_log = open(os.path.join(self.dir, "energyd.log"), "w")
        self.daemon = subprocess.Popen([os.path.join(build, "daemon", "energyd"), "--root",
                                        os.path.join(self.dir, "b"), "--state-dir", os.path.join(self.dir, "state"),
                                        "--socket", self.sock, "--config", config],
                                       stdout=self.daemon_log, stderr=subprocess.STDOUT)
        wait_for_socket(self.sock, 20, "energyd")

    def ctl_cmd(self, *args):
        return [os.path.join(self.build, "cli", "energyctl"), "--socket", self.sock] + list(args)

    def energyctl_json(self, *args):
        out = subprocess.run(self.ctl_cmd(*args), capture_output=True, text=True)
        if out.returncode != 0:
            fail("energyctl " + " ".join(args) + " failed: " + out.stderr.strip())
        return json.loads(out.stdout)

    def truth_j(self, start_ns, stop_ns):
        sim = os.path.join(self.build, "sim", "energyd-sim")
        out = subprocess.run([sim, "ctl", "--control", self.ctl, "energy", "rail=total", "from_ns=%d" % start_ns,
                              "to_ns=%d" % stop_ns], capture_output=True, text=True)
        if out.returncode != 0:
            fail("energyd-sim ctl energy failed: " + out.stderr.strip())
        reply = json.loads(out.stdout)
        if not reply.get("ok") or "energy_uj" not in reply:
            fail("no ground truth for [%d, %d]: %s" % (start_ns, stop_ns, out.stdout.strip()))
        return reply["energy_uj"] / 1e6

    def close(self):
        for p in (self.daemon, self.sim):
            p.terminate()
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


class Staller:
    """Stops and continues energyd at seeded random moments until stopped."""

    def __init__(self, pid, stall_ms, seed):
        self.pid = pid
        self.stall_ms = stall_ms
        self.rng = random.Random(seed)
        self.done = threading.Event()
        self.stalls = 0
        self.thread = threading.Thread(target=self.loop, daemon=True)
        self.thread.start()

    def loop(self):
        while not self.done.wait(self.rng.uniform(2.0, 6.0)):
            os.kill(self.pid, signal.SIGSTOP)
            try:
                time.sleep(self.rng.uniform(self.stall_ms / 2000.0, self.stall_ms / 1000.0))
            finally:
                os.kill(self.pid, signal.SIGCONT)
            self.stalls += 1

    def stop(self):
        self.done.set()
        self.thread.join()


def run_sweep(board, a):
    sim = os.path.join(a.build, "sim", "energyd-sim")
    workload = [sim, "workload", "--control", board.ctl, "--preset", a.preset, "--batch", str(a.batch), "--items",
                str(a.items)]
    axes = ["--cpu", a.cpu, "--gpu", a.gpu] + (["--emc", a.emc] if a.emc else [])
    cmd = board.ctl_cmd("sweep", *axes, "--dvfs", "--repeat", str(a.repeat), "--cooldown", "off", "--seed",
                        str(a.seed), "--items", str(a.items), "--name", "truth", "--") + workload
    started = time.monotonic()
    staller = Staller(board.daemon.pid, a.stall, a.seed) if a.stall else None
    # stdout: the workload's own lines and the results table; the sweep's id is on stderr.
    try:
        out = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    finally:
        if staller:
            staller.stop()
            print("stalls: energyd stopped %d times for %d-%d ms" % (staller.stalls, a.stall // 2, a.stall))
    if out.returncode != 0:
        fail("energyctl sweep failed (%d): %s" % (out.returncode, out.stderr.strip()[-2000:]))
    found = re.search(r"energyctl: sweep (\d+) complete", out.stderr)
    if not found:
        fail("energyctl sweep did not say it completed: " + out.stderr.strip()[-2000:])
    return int(found.group(1)), time.monotonic() - started


def run_search(board, a):
    sim = os.path.join(a.build, "sim", "energyd-sim")
    workload = [sim, "workload", "--control", board.ctl, "--preset", a.preset, "--batch", str(a.batch), "--items",
                str(a.items)]
    cmd = board.ctl_cmd("sweep", "--search", "--cpu", "all", "--gpu", "all", "--repeat", str(a.repeat),
                        "--cooldown", "off", "--items", str(a.items), "--name", "truth-search", "--") + workload
    started = time.monotonic()
    out = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if out.returncode != 0:
        fail("energyctl sweep --search failed (%d): %s" % (out.returncode, out.stderr.strip()[-2000:]))
    found = re.search(r"energyctl: sweep (\d+) complete", out.stderr)
    used = re.search(r"in (\d+) runs against the full grid's (\d+) runs", out.stderr)
    if not found or not used:
        fail("energyctl sweep --search did not report its end: " + out.stderr.strip()[-2000:])
    return int(found.group(1)), int(used.group(1)), int(used.group(2)), time.monotonic() - started


def study_minimum(a):
    """(cpu MHz, gpu MHz, J per item) of the true grid minimum, model time."""
    sim = os.path.join(a.build, "sim", "energyd-sim")
    out = subprocess.run([sim, "study", "--board", a.board, "--l4t", str(a.l4t), "--preset", a.preset, "--batch",
                          str(a.batch)], capture_output=True, text=True)
    m = re.search(r"grid minimum\s+CPU ([\d.]+) GPU ([\d.]+) MHz\s+([\d.]+) mJ/item", out.stdout)
    if out.returncode != 0 or not m:
        fail("energyd-sim study failed: " + (out.stderr or out.stdout).strip())
    return float(m.group(1)), float(m.group(2)), float(m.group(3)) / 1000.0


def label_clocks(label):
    """(cpu MHz, gpu MHz) from a point label such as 'cpu 652.8MHz, gpu 408MHz'."""
    cpu = re.search(r"cpu ([\d.]+) ?MHz", label)
    gpu = re.search(r"gpu ([\d.]+) ?MHz", label)
    return (float(cpu.group(1)) if cpu else None, float(gpu.group(1)) if gpu else None)


def report_search(results, truth, a, used, seconds):
    points = {p["point"]: p for p in results["points"]}
    cpu, gpu, study_j = study_minimum(a)
    live_min = None
    print("%s L4T %s, preset %s, batch %d, %d items per run, search over all x all, repeat %d (%.0f s)" %
          (a.board, a.l4t, a.preset, a.batch, a.items, a.repeat, seconds))
    for p, v in truth.items():
        c = label_clocks(points[p]["label"])
        if abs((c[0] or 0) - cpu) < 0.05 and abs((c[1] or 0) - gpu) < 0.05:
            print("study minimum CPU %.1f GPU %.1f MHz: study %.5f J/item, live true %.5f J/item (%+.2f %%)" %
                  (cpu, gpu, study_j, mean(v), 100 * (mean(v) - study_j) / study_j))
            live_min = mean(v)
            break
    else:
        print("study minimum CPU %.1f GPU %.1f MHz (%.5f J/item): not measured by the search" % (cpu, gpu, study_j))
    reported = results["minimum"]["point"]
    true_j = mean(truth[reported])
    gap = 100 * (true_j - study_j) / study_j
    share = 100.0 * used[0] / used[1]
    print("search: reported %s, true %.5f J/item, %+.2f %% from the true minimum; %d runs of the grid's %d (%.1f %%): %s" %
          (points[reported]["label"], true_j, gap, used[0], used[1], share,
           "meets" if gap <= 2.0 and share <= 35.0 else "misses"))
    if live_min:
        print("  against the live truth at the study minimum: %+.2f %%" % (100 * (true_j - live_min) / live_min))


def true_per_item(board, export):
    """point -> [true J per item of each counted run] over each run's own span.

    A point all of whose runs failed their quality gate (re-run, then left
    out) has no counted run; those runs ran all the same and the simulator
    knows their true energy, so such a point gets the mean over them, and the
    minimum check covers every point of the grid."""
    counted, failed = {}, {}
    for row in export["runs"]:
        failed_gate = row.get("role") == "rejected" or (row.get("role") == "measure" and not row.get("counted") and
                                                       "quality gate" in (row.get("left_out") or ""))
        if not row.get("counted") and not failed_gate:
            continue
        run = board.energyctl_json("show", str(row["run_id"]), "--json")["run"]
        truth = board.truth_j(run["start_ns"], run["stop_ns"]) / row["items"]
        (counted if row.get("counted") else failed).setdefault(row["point"], []).append(truth)
    for p, values in failed.items():
        counted.setdefault(p, values)
    return counted


def mean(values):
    return sum(values) / len(values)


def report_quality(export):
    """Names the runs re-run after failing their quality gate and the runs left out."""
    rerun = [r for r in export["runs"] if r.get("role") == "rejected"]
    left = [r for r in export["runs"] if r.get("role") == "measure" and not r.get("counted")]
    print("re-run after failing the quality gate: %s" %
          (", ".join("%d (point %d)" % (r["run_id"], r["point"]) for r in rerun) or "none"))
    print("left out: %s" % (", ".join("%d (point %d: %s)" % (r["run_id"], r["point"], r.get("left_out"))
                                      for r in left) or "none"))
    notes = [n for n in export["results"].get("notes", []) if "quality gate" in n]
    named = all(str(r["run_id"]) in " ".join(notes) for r in rerun)
    print("sweep show names the re-run runs: %s" % ("meets" if named else "misses"))
    return named


def report(results, truth, a, seconds):
    points = {p["point"]: p for p in results["points"]}
    true_mean = {p: mean(v) for p, v in truth.items()}
    emc = " x emc %s" % a.emc if a.emc else ""
    print("%s L4T %s, preset %s, batch %d, %d items per run, %d repeats, cpu %s x gpu %s%s + DVFS (%.0f s)" %
          (a.board, a.l4t, a.preset, a.batch, a.items, a.repeat, a.cpu, a.gpu, emc, seconds))
    print("%-48s %14s %12s %12s %9s" % ("point", "measured J/it", "+-95% CI", "true J/it", "diff"))
    for p in sorted(points):
        e = points[p]["energy_j"]
        t = true_mean.get(p)
        diff = "%+8.3f%%" % (100 * (e["mean"] - t) / t) if t else "n/a"
        print("%-48s %14.5f %12.5f %12.5f %9s" % (points[p]["label"], e["mean"], e["ci95_half"], t or 0, diff))
    unmeasured = sorted(p for p in true_mean if p not in points)
    for p in unmeasured:
        print("%-48s %14s %12s %12.5f %9s" % ("point %d (every run failed its gate)" % p, "-", "-", true_mean[p], "n/a"))
    true_min = min(true_mean, key=lambda p: true_mean[p])  # DVFS included: it can be the cheapest point
    if true_min not in points:
        print("minimum: the true minimum, point %d (%.5f J/item), has no counted run: misses" %
              (true_min, true_mean[true_min]))
        return False
    dvfs = ([p for p in true_mean if p in points and points[p]["dvfs"]] or [None])[0]
    reported = results["minimum"]["point"]
    e = points[reported]["energy_j"]
    contains = abs(e["mean"] - true_mean[true_min]) <= e["ci95_half"]
    ok_min = reported == true_min or contains
    print("minimum: reported %s, true %s (%.5f J/item)%s: %s" %
          (points[reported]["label"], points[true_min]["label"], true_mean[true_min],
           "" if reported == true_min else ", in the reported CI" if contains else ", outside the reported CI",
           "meets" if ok_min else "misses"))
    if points[reported]["dvfs"]:
        print("saving against DVFS: none, the reported minimum is DVFS itself: %s" %
              ("meets" if true_min == dvfs else "misses"))
        return ok_min
    saving = [s for s in results["dvfs"] if s["point"] == reported]
    if dvfs is None:
        print("saving against DVFS: the DVFS point has no counted run: misses")
        return ok_min
    true_saving = (true_mean[dvfs] - true_mean[true_min]) / true_mean[dvfs]
    if not saving:
        print("saving: the results give no saving for the reported minimum: misses")
        return ok_min
    gap_pp = 100 * (saving[0]["saving_relative"] - true_saving)
    print("saving against DVFS: reported %.2f %% (CI +-%.2f), true %.2f %%, %+.2f pp: %s" %
          (100 * saving[0]["saving_relative"], 100 * saving[0]["saving_relative_ci95_half"], 100 * true_saving,
           gap_pp, "meets" if abs(gap_pp) <= 1.0 else "misses"))
    return ok_min


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build")
    ap.add_argument("--board", default="jetson-orin-nano")
    ap.add_argument("--l4t", default="36")
    ap.add_argument("--preset", default="gpu-bound")
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--items", type=int, default=32)
    ap.add_argument("--cpu", default="min..max/4")
    ap.add_argument("--gpu", default="min..max/4")
    ap.add_argument("--emc", default=None, help="memory clocks, as --cpu (default: not an axis)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--search", action="store_true", help="energyctl sweep --search over all x all")
    ap.add_argument("--period", type=int, default=None, help="energyd's sampling period in ms (default: its own)")
    ap.add_argument("--stall", type=int, default=0, help="stall energyd for up to MS ms every 2-6 s (default: none)")
    ap.add_argument("--sweeps", type=int, default=1, help="sweeps to run and check, seeds S, S+1, ... (default 1)")
    a = ap.parse_args()
    a.build = os.path.abspath(a.build)
    if a.period is not None and not 1 <= a.period <= 60000:
        fail("--period must be 1..60000 ms, got %d" % a.period)
    if not 0 <= a.stall <= 10000:
        fail("--stall must be 0..10000 ms, got %d" % a.stall)
    if not 1 <= a.sweeps <= 100:
        fail("--sweeps must be 1..100, got %d" % a.sweeps)
    if a.search and (a.stall or a.sweeps != 1):
        fail("--stall and --sweeps go with a grid sweep, not with --search")
    board = Board(a.build, a.board, a.l4t, a.period)
    try:
        if a.search:
            sweep_id, runs, grid_runs, seconds = run_search(board, a)
            export = board.energyctl_json("sweep", "export", str(sweep_id), "--json")
            report_search(export["results"], true_per_item(board, export), a, (runs, grid_runs), seconds)
            return
        met = named = 0
        first_seed = a.seed
        for k in range(a.sweeps):
            a.seed = first_seed + k
            if a.sweeps > 1:
                print("\n== sweep %d of %d (seed %d)" % (k + 1, a.sweeps, a.seed))
            sweep_id, seconds = run_sweep(board, a)
            export = board.energyctl_json("sweep", "export", str(sweep_id), "--json")
            met += 1 if report(export["results"], true_per_item(board, export), a, seconds) else 0
            named += 1 if report_quality(export) else 0
        if a.sweeps > 1:
            print("\nminimum: %d of %d sweeps report the true minimum: %s" %
                  (met, a.sweeps, "meets" if met == a.sweeps else "misses"))
            print("re-run runs named in %d of %d sweeps: %s" %
                  (named, a.sweeps, "meets" if named == a.sweeps else "misses"))
    finally:
        board.close()


if __name__ == "__main__":
    main()
