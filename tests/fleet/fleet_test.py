#!/usr/bin/env python3
"""Fleet test: Debian's Prometheus scraping three simulated boards.

Usage: fleet_test.py SOURCE_DIR ENERGYD ENERGYD_SIM ENERGYD_EXPORTER

Starts three live simulated boards (energyd-sim run), an energyd and an
energyd-exporter on each, and `prometheus` on loopback scraping the three
exporters every second with the shipped rules. Then checks (docs/FLEET.md):
  1. `promtool check metrics` finds nothing in any exporter's page;
  2. `promtool check rules` passes on etc/prometheus/*.yml;
  3. the dashboard names only exported metrics (check_dashboard.py);
  4. over a window marked as a run on every board, PromQL
     increase(energyd_energy_joules_total[W]) per rail and board agrees
     with energyd's own energy of the run and with the simulator's ground
     truth within 1 %, while board 3's energyd is killed (SIGKILL) and
     restarted in the middle (its downtime is no energy: the expected value
     is the truth outside the time from its last commit before the kill to
     its restart);
  5. an injected sensor fault (EIO on a rail of board 2) fires the
     EnergydRailReadErrors alert.
Exit status: 0 pass, 1 fail, 77 skipped (prometheus, promtool or FUSE missing).
"""
import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

WINDOW_S = 150  # the issue asks for a few minutes of scraping: 2.5 min marked, about 3 min in all
TOLERANCE = 0.01
BOARD = ("jetson-orin-nano", "36")


def log(msg):
    print("fleet_test: " + msg, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(what, check, timeout_s=20.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            if check():
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise RuntimeError("timed out waiting for " + what)


def boot_ns_of_wall(wall_s):
    """CLOCK_BOOTTIME of a wall-clock time (the simulator's time base)."""
    return time.clock_gettime_ns(time.CLOCK_BOOTTIME) - int((time.time() - wall_s) * 1e9)


class Board:
    def __init__(self, n, bins, work):
        self.n, self.bins = n, bins
        self.dir = os.path.join(work, "b%d" % n)
        os.makedirs(os.path.join(self.dir, "board"))
        self.control = os.path.join(self.dir, "sim.ctl")
        self.socket = os.path.join(self.dir, "energyd.sock")
        self.port = free_port()
        self.procs = {}

    def spawn(self, name, argv):
        out = open(os.path.join(self.dir, name + ".log"), "a")
        self.procs[name] = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT)

    def start(self):
        # A pinned CPU load: with the host's (the default) the simulated
        # governors follow whatever else the machine runs, every 20 ms, and
        # 100 ms sampling misses more of that than the 1% the checks allow.
        self.spawn("sim", [self.bins["sim"], "run", "--board", BOARD[0], "--l4t", BOARD[1],
                           "--mount", self.dir + "/board", "--control", self.control, "--cpu-load", "300"])
        wait_for("board %d's simulator" % self.n, lambda: os.path.exists(self.control))
        self.start_energyd()
        self.spawn("exporter", [self.bins["exporter"], "--listen", "127.0.0.1:%d" % self.port,
                                "--socket", self.socket])
        wait_for("board %d's exporter" % self.n, lambda: b"energyd_up 1" in self.metrics())

    def start_energyd(self):
        if os.path.exists(self.socket):
            os.unlink(self.socket)
        self.spawn("energyd", [self.bins["energyd"], "--root", self.dir + "/board", "--state-dir",
                               self.dir + "/state", "--socket", self.socket])
        wait_for("board %d's energyd" % self.n, lambda: os.path.exists(self.socket))

    def stop(self, name, sig=signal.SIGTERM):
        p = self.procs.pop(name, None)
        if p and p.poll() is None:
            p.send_signal(sig)
            p.wait(timeout=30)

    def metrics(self):
        with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % self.port, timeout=5) as r:
            return r.read()

    def sim(self, *args):
        out = subprocess.run([self.bins["sim"], "ctl", "--control", self.control] + list(args),
                             check=True, capture_output=True, text=True).stdout
        return json.loads(out)

    def truth_j(self, rail, from_wall, to_wall):
        r = self.sim("energy", "rail=" + rail, "from_ns=%d" % boot_ns_of_wall(from_wall),
                     "to_ns=%d" % boot_ns_of_wall(to_wall))
        return r["energy_uj"] / 1e6

    def energyd(self, verb, **args):
        sys.path.insert(0, os.path.join(SOURCE, "clients", "python"))
        import energyd  # the project's Python client
        with energyd.Client(self.socket) as c:
            return c.call(verb, **args)

    def close(self):
        for name in ("exporter", "energyd", "sim"):
            try:
                self.stop(name)
            except Exception as e:  # keep closing the others
                log("stopping %s of board %d: %s" % (name, self.n, e))


class Prometheus:
    def __init__(self, boards, work):
        self.port = free_port()
        self.dir = os.path.join(work, "prometheus")
        os.makedirs(self.dir)
        rules = [os.path.join(SOURCE, "etc", "prometheus", f) for f in ("energyd-rules.yml", "energyd-alerts.yml")]
        targets = ", ".join('"127.0.0.1:%d"' % b.port for b in boards)
        with open(os.path.join(self.dir, "prometheus.yml"), "w") as f:
            f.write("global: {scrape_interval: 1s, evaluation_interval: 1s}\n")
            f.write("rule_files: [%s]\n" % ", ".join('"%s"' % r for r in rules))
            f.write("scrape_configs:\n  - job_name: energyd\n    static_configs:\n      - targets: [%s]\n" % targets)
        out = open(os.path.join(self.dir, "log"), "w")
        self.proc = subprocess.Popen(["prometheus", "--config.file=" + self.dir + "/prometheus.yml",
                                      "--storage.tsdb.path=" + self.dir + "/data",
                                      "--web.listen-address=127.0.0.1:%d" % self.port], stdout=out, stderr=out)
        wait_for("prometheus", lambda: self.api("query", query="up")["status"] == "success", 60)

    def api(self, endpoint, **params):
        url = "http://127.0.0.1:%d/api/v1/%s?%s" % (self.port, endpoint, urllib.parse.urlencode(params))
        with urllib.request.urlopen(url, timeout=10) as r:
            return json.loads(r.read())

    def query(self, promql, at):
        res = self.api("query", query=promql, time="%.3f" % at)["data"]["result"]
        return {(s["metric"].get("instance"), s["metric"].get("rail")): float(s["value"][1]) for s in res}

    def close(self):
        self.proc.terminate()
        self.proc.wait(timeout=30)


def check_exposition(boards, work):
    for b in boards:
        page = os.path.join(work, "metrics-%d.txt" % b.n)
        with open(page, "wb") as f:
            f.write(b.metrics())
        r = subprocess.run("promtool check metrics < " + page, shell=True, capture_output=True, text=True)
        if r.returncode != 0 or r.stdout.strip() or r.stderr.strip():
            raise AssertionError("promtool check metrics, board %d: %s%s" % (b.n, r.stdout, r.stderr))
    rules = [os.path.join(SOURCE, "etc", "prometheus", f) for f in ("energyd-rules.yml", "energyd-alerts.yml")]
    subprocess.run(["promtool", "check", "rules"] + rules, check=True, capture_output=True)
    subprocess.run([sys.executable, os.path.join(SOURCE, "tests", "fleet", "check_dashboard.py"),
                    os.path.join(SOURCE, "etc", "grafana", "energyd-fleet.json"), page], check=True)
    log("promtool check metrics and rules clean; the dashboard names exported metrics only")


def last_stored_wall(board, before):
    """Wall-clock time (s) of the newest sweep before `before` (s) that
    board's database holds (chunks: wall = t_last_ns + wall_offset_ns), or
    None. Read after the restart: the sweeps a killed energyd had only in its
    sweep tail (appended every second, docs/ARCHITECTURE.md "Storage") are in
    the database once the new energyd has replayed the tail, before it
    serves."""
    db = sqlite3.connect("file:%s?mode=ro" % os.path.join(board.dir, "state", "energyd.db"), uri=True)
    try:
        (ns,) = db.execute("SELECT MAX(t_last_ns + wall_offset_ns) FROM chunks WHERE t_last_ns + wall_offset_ns <= ?",
                           (int(before * 1e9),)).fetchone()
    finally:
        db.close()
    return None if ns is None else ns / 1e9


def restart_energyd(board):
    """Kills board 3's energyd (SIGKILL: the worst a restart can be), waits,
    restarts it. Returns the wall-clock interval whose energy the counters do
    not hold: from the newest sweep stored before the kill (the sweeps after
    it are lost from the store and the counters alike; the counters are
    stored with the sweeps, in the database or the tail) to its socket
    being back."""
    killed = time.time()
    board.stop("energyd", signal.SIGKILL)
    time.sleep(1)
    board.start_energyd()
    back = time.time()
    down_from = last_stored_wall(board, killed)
    if down_from is None or not killed - 5 < down_from <= killed:
        raise AssertionError("board %d's newest stored sweep before the kill at %.3f is at %s" %
                             (board.n, killed, "none" if down_from is None else "%.3f" % down_from))
    log("board 3's energyd killed (SIGKILL) %.3f s after its newest stored sweep" % (killed - down_from))
    return down_from, back


def energy_window(boards, prom):
    runs = [b.energyd("mark.start", name="fleet-window") for b in boards]
    t0 = time.time()
    time.sleep(WINDOW_S / 3)
    down = restart_energyd(boards[2])
    time.sleep(t0 + WINDOW_S - time.time())
    t1 = time.time()
    reports = [b.energyd("mark.stop", run=str(r["id"])) for b, r in zip(boards, runs)]
    time.sleep(2.5)  # the scrapes after t1 are in
    got = prom.query("increase(energyd_energy_joules_total[%ds])" % WINDOW_S, t1)
    return t0, t1, down, reports, got


def compare(boards, window):
    t0, t1, down, reports, got = window
    failures = []
    for b, report in zip(boards, reports):
        for rail in report["rails"]:
            label = rail["label"]
            truth = b.truth_j(label, t0, t1)
            if b.n == 3:
                truth -= b.truth_j(label, down[0], down[1])
            prom = got.get(("127.0.0.1:%d" % b.port, label))
            own = rail["energy_j"] - rail.get("filter_correction_j", 0.0)
            # Against the truth, energyd's own error bound counts too: a
            # 0.7 W rail read in 8 mA (40 mW) steps is off by more than 1%
            # whatever the exporter does (the run report states how much).
            bound = rail.get("error_bound_j", 0.0)
            log("board %d %-16s increase %.3f J, truth %.3f J, energyd's run %.3f J (bound %.3f J)"
                % (b.n, label, prom or -1, truth, own, bound))
            if prom is None or abs(prom - truth) > TOLERANCE * truth + bound:
                failures.append("board %d %s: increase() %s J vs truth %.3f J (bound %.3f J)" % (b.n, label, prom, truth, bound))
            if b.n != 3 and abs(prom - own) > TOLERANCE * own:
                failures.append("board %d %s: increase() %s J vs energyd's %.3f J" % (b.n, label, prom, own))
    if failures:
        raise AssertionError("; ".join(failures))
    log("increase() agrees with energyd within 1 % and with the ground truth within 1 % plus energyd's error bound, "
        "also across a restart")


def alert_fires(boards, prom):
    rail = boards[1].energyd("status")["rails"][0]["label"]
    boards[1].sim("fault", "rail=" + rail, "kind=eio")
    instance = "127.0.0.1:%d" % boards[1].port

    def firing():
        alerts = prom.api("alerts")["data"]["alerts"]
        return any(a["labels"].get("alertname") == "EnergydRailReadErrors" and a["labels"].get("instance") == instance
                   and a["state"] == "firing" for a in alerts)

    wait_for("EnergydRailReadErrors to fire", firing, 30)
    boards[1].sim("clear_fault")
    log("EnergydRailReadErrors fired for board 2's injected EIO on " + rail)


def main(argv):
    global SOURCE
    if len(argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    SOURCE = os.path.abspath(argv[1])
    bins = {"energyd": argv[2], "sim": argv[3], "exporter": argv[4]}
    for tool in ("prometheus", "promtool", "fusermount3"):
        if shutil.which(tool) is None:
            print("fleet_test: SKIPPED: %s is not installed" % tool)
            return 77
    if not os.path.exists("/dev/fuse"):
        print("fleet_test: SKIPPED: no /dev/fuse")
        return 77
    work = tempfile.mkdtemp(prefix="energyd-fleet-")
    boards, prom = [], None
    try:
        boards = [Board(n, bins, work) for n in (1, 2, 3)]
        for b in boards:
            b.start()
        prom = Prometheus(boards, work)
        wait_for("three targets up", lambda: len(prom.query("energyd_up == 1", time.time())) == 3, 30)
        check_exposition(boards, work)
        compare(boards, energy_window(boards, prom))
        alert_fires(boards, prom)
        return 0
    except (AssertionError, RuntimeError, subprocess.CalledProcessError) as e:
        print("fleet_test: FAILED: %s (logs in %s)" % (e, work), file=sys.stderr)
        work = None
        return 1
    finally:
        if prom:
            prom.close()
        for b in boards:
            b.close()
        if work:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
