"""Tests of the Python client (clients/python/energyd.py), standard library only.

FakeDaemonTest talks to an in-process fake daemon (framing, limits, errors).
LiveDaemonTest starts a simulated board and the real energyd, as the C++
board fixture does; ctest passes the binaries in $ENERGYD_BIN and
$ENERGYD_SIM_BIN and the client's folder in $ENERGYD_PYTHON_CLIENT.

Run: ENERGYD_BIN=... ENERGYD_SIM_BIN=... python3 -m unittest -v test_client
"""

import json
import os
import select
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(
    0, os.environ.get("ENERGYD_PYTHON_CLIENT", os.path.join(os.path.dirname(__file__), "..", "..", "clients", "python"))
)
import energyd  # noqa: E402


def frame(message):
    payload = json.dumps(message).encode("utf-8")
    return struct.pack(">I", len(payload)) + payload


def ok_reply(request, result):
    return frame({"v": 1, "id": request["id"], "ok": True, "result": result})


def error_reply(request, code, message, errno=None):
    error = {"code": code, "message": message}
    if errno is not None:
        error["errno"] = errno
    return frame({"v": 1, "id": request["id"], "ok": False, "error": error})


class FakeDaemon:
    """Serves a temporary Unix socket; handler(request) returns the raw bytes to answer."""

    def __init__(self, handler):
        self.handler = handler
        self.requests = []
        self.dir = tempfile.mkdtemp(prefix="energyd-py-fake-")
        self.path = os.path.join(self.dir, "energyd.sock")
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(self.path)
        self.listener.listen(4)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def close(self):
        self.listener.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def _serve(self):
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            with conn:
                self._serve_connection(conn)

    def _serve_connection(self, conn):
        while True:
            header = conn.recv(4, socket.MSG_WAITALL)
            if len(header) < 4:
                return
            (length,) = struct.unpack(">I", header)
            request = json.loads(conn.recv(length, socket.MSG_WAITALL).decode("utf-8"))
            self.requests.append(request)
            try:
                conn.sendall(self.handler(request))
            except OSError:  # the client gave up first (timeouts, refused replies)
                return


class patched_environ:
    """os.environ with `changes` applied inside the block, restored after it."""

    def __init__(self, changes):
        self.changes, self.saved = changes, {}

    def __enter__(self):
        self.saved = {k: os.environ.get(k) for k in self.changes}
        os.environ.update(self.changes)

    def __exit__(self, *exc):
        for k, v in self.saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def fake_energyctl(test, body):
    """An executable sh script standing in for energyctl; it writes its arguments to PATH.argv, one a line."""
    d = tempfile.mkdtemp(prefix="energyd-py-ctl-")
    test.addCleanup(shutil.rmtree, d, True)
    path = os.path.join(d, "energyctl")
    with open(path, "w") as f:
        f.write('#!/bin/sh\nprintf "%s\\n" "$@" > "$0.argv"\n' + body)
    os.chmod(path, 0o755)
    return path


def read_argv(ctl):
    with open(ctl + ".argv") as f:
        return f.read().splitlines()


class FakeDaemonTest(unittest.TestCase):
    def serve(self, handler):
        d = FakeDaemon(handler)
        self.addCleanup(d.close)
        return d

    def test_call_sends_a_versioned_request_and_returns_the_result(self):
        d = self.serve(lambda r: ok_reply(r, {"echo": r["args"]}))
        with energyd.Client(d.path) as c:
            self.assertEqual(c.call("status", detail="x"), {"echo": {"detail": "x"}})
        self.assertEqual(d.requests[0]["v"], 1)
        self.assertEqual(d.requests[0]["verb"], "status")
        self.assertIsInstance(d.requests[0]["id"], int)

    def test_daemon_error_becomes_energyd_error_with_code_message_and_errno(self):
        d = self.serve(lambda r: error_reply(r, "storage", "database is locked", errno=5))
        with energyd.Client(d.path) as c, self.assertRaises(energyd.EnergydError) as caught:
            c.mark_start("x")
        self.assertEqual(caught.exception.code, "storage")
        self.assertEqual(caught.exception.message, "database is locked")
        self.assertEqual(caught.exception.errno, 5)

    def test_mark_stop_accepts_mark_starts_result_an_id_or_a_name(self):
        d = self.serve(lambda r: ok_reply(r, {"id": 12, "name": "w"} if r["verb"] == "mark.start" else {}))
        c = energyd.Client(d.path)
        self.addCleanup(c.close)
        info = c.mark_start("w", tags={"batch": 8})
        c.mark_stop(info)
        c.mark_stop(12)
        c.mark_stop("w")
        self.assertEqual(d.requests[0]["args"], {"name": "w", "tags": {"batch": "8"}})
        self.assertEqual([r["args"]["run"] for r in d.requests[1:]], ["12", "12", "w"])
        with self.assertRaises(energyd.EnergydError) as caught:
            c.mark_stop({"name": "no id"})
        self.assertEqual(caught.exception.code, "invalid")

    def test_oversized_reply_is_refused_from_its_header(self):
        d = self.serve(lambda r: struct.pack(">I", energyd.MAX_REPLY_BYTES + 1))
        with self.assertRaises(energyd.EnergydError) as caught:
            with energyd.Client(d.path) as c:
                c.status()
        self.assertEqual(caught.exception.code, "protocol")
        self.assertIn("exceeds the limit", caught.exception.message)

    def test_oversized_request_is_refused_before_sending(self):
        d = self.serve(lambda r: ok_reply(r, {}))
        with self.assertRaises(energyd.EnergydError) as caught:
            with energyd.Client(d.path) as c:
                c.mark_start("big", tags={"blob": "x" * energyd.MAX_REQUEST_BYTES})
        self.assertEqual(caught.exception.code, "invalid")
        self.assertEqual(d.requests, [])

    def test_reply_that_is_not_a_json_object_is_a_protocol_error(self):
        d = self.serve(lambda r: struct.pack(">I", 3) + b"[1]")
        with self.assertRaises(energyd.EnergydError) as caught:
            with energyd.Client(d.path) as c:
                c.status()
        self.assertEqual(caught.exception.code, "protocol")

    def test_reply_to_another_request_is_a_protocol_error(self):
        d = self.serve(lambda r: frame({"v": 1, "id": r["id"] + 100, "ok": True, "result": {}}))
        with self.assertRaises(energyd.EnergydError) as caught:
            with energyd.Client(d.path) as c:
                c.status()
        self.assertEqual(caught.exception.code, "protocol")

    def test_no_reply_within_the_timeout_is_a_timeout_error(self):
        gate = threading.Event()
        self.addCleanup(gate.set)
        d = self.serve(lambda r: b"" if gate.wait(30) else b"")
        with self.assertRaises(energyd.EnergydError) as caught:
            with energyd.Client(d.path, timeout=0.2) as c:
                c.status()
        self.assertEqual(caught.exception.code, "timeout")

    def serve_one_connection(self, serve):
        """A listening socket whose first connection is handed to serve(conn) on a thread."""
        folder = tempfile.mkdtemp(prefix="energyd-py-raw-")
        self.addCleanup(shutil.rmtree, folder, True)
        path = os.path.join(folder, "energyd.sock")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.addCleanup(listener.close)
        listener.bind(path)
        listener.listen(4)

        def run():
            conn, _ = listener.accept()
            with conn:
                serve(conn)

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        self.addCleanup(thread.join, 5)
        return path

    def test_refused_connection_raises_the_daemons_code_and_message(self):
        refusal = frame({"v": 1, "id": 0, "ok": False,
                         "error": {"code": "denied", "message": "too many connections from uid 1000"}})
        path = self.serve_one_connection(lambda conn: conn.sendall(refusal))
        with self.assertRaises(energyd.EnergydError) as caught:
            with energyd.Client(path) as c:
                c.status()
        self.assertEqual(caught.exception.code, "denied")
        self.assertIn("too many connections from uid 1000", caught.exception.message)
        self.assertIn(path, caught.exception.message)

    def test_refusal_is_read_even_when_the_send_fails_with_a_broken_pipe(self):
        refusal = frame({"v": 1, "id": 0, "ok": False, "error": {"code": "denied", "message": "too many connections"}})
        path = self.serve_one_connection(lambda conn: conn.sendall(refusal))
        c = energyd.Client(path)
        self.addCleanup(c.close)
        poller = select.poll()
        poller.register(c._sock.fileno(), select.POLLHUP)
        self.assertTrue(poller.poll(5000), "the fake daemon did not close")
        with self.assertRaises(energyd.EnergydError) as caught:
            c.status()
        self.assertEqual(caught.exception.code, "denied")
        self.assertIn("too many connections", caught.exception.message)

    def test_the_timeout_bounds_the_whole_reply_not_each_read(self):
        def trickle(conn):
            header = conn.recv(4, socket.MSG_WAITALL)
            (length,) = struct.unpack(">I", header)
            request = json.loads(conn.recv(length, socket.MSG_WAITALL).decode("utf-8"))
            for byte in ok_reply(request, {"pad": "x" * 100}):
                try:
                    conn.sendall(bytes([byte]))
                except OSError:
                    return
                time.sleep(0.02)

        path = self.serve_one_connection(trickle)
        with self.assertRaises(energyd.EnergydError) as caught:
            with energyd.Client(path, timeout=0.2) as c:
                c.status()
        self.assertEqual(caught.exception.code, "timeout")

    def test_connect_times_out_while_the_listen_backlog_is_full(self):
        folder = tempfile.mkdtemp(prefix="energyd-py-backlog-")
        self.addCleanup(shutil.rmtree, folder, True)
        path = os.path.join(folder, "energyd.sock")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.addCleanup(listener.close)
        listener.bind(path)
        listener.listen(0)
        for _ in range(16):  # fill the backlog; nothing accepts
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.addCleanup(s.close)
            s.setblocking(False)
            try:
                s.connect(path)
            except BlockingIOError:
                break
        with self.assertRaises(energyd.EnergydError) as caught:
            energyd.Client(path, timeout=0.2)
        self.assertEqual(caught.exception.code, "timeout")
        self.assertIn(path, caught.exception.message)

    def test_unreachable_socket_is_an_io_error_that_names_the_path(self):
        path = os.path.join(tempfile.gettempdir(), "energyd-py-none-{}.sock".format(os.getpid()))
        with self.assertRaises(energyd.EnergydError) as caught:
            energyd.Client(path)
        self.assertEqual(caught.exception.code, "io")
        self.assertIn(path, caught.exception.message)
        self.assertIn("is energyd running?", caught.exception.message)

    def test_socket_comes_from_the_environment_when_not_given(self):
        d = self.serve(lambda r: ok_reply(r, {"version": "fake"}))
        old = os.environ.get("ENERGYD_SOCKET")
        os.environ["ENERGYD_SOCKET"] = d.path
        try:
            self.assertEqual(energyd.default_socket_path(), d.path)
            with energyd.Client() as c:
                self.assertEqual(c.status(), {"version": "fake"})
        finally:
            if old is None:
                del os.environ["ENERGYD_SOCKET"]
            else:
                os.environ["ENERGYD_SOCKET"] = old
        saved = os.environ.pop("ENERGYD_SOCKET", None)
        try:
            self.assertEqual(energyd.default_socket_path(), "/run/energyd/energyd.sock")
        finally:
            if saved is not None:
                os.environ["ENERGYD_SOCKET"] = saved

    def test_failed_stop_during_an_exception_keeps_the_error_and_lets_the_exception_through(self):
        def handler(r):
            if r["verb"] == "mark.start":
                return ok_reply(r, {"id": 4, "name": "w"})
            return error_reply(r, "storage", "disk full")

        d = self.serve(handler)
        r = energyd.run("w", socket=d.path)
        with self.assertRaises(ZeroDivisionError):
            with r:
                1 / 0
        self.assertEqual(r.error.code, "storage")
        self.assertEqual(d.requests[-1]["verb"], "mark.stop")
        with self.assertRaises(energyd.EnergydError) as caught:
            r.energy_j
        self.assertEqual(caught.exception.code, "state")

    def test_run_queries_send_only_the_filters_given(self):
        d = self.serve(lambda r: ok_reply(r, {"runs": []}))
        c = energyd.Client(d.path)
        self.addCleanup(c.close)
        c.runs()
        c.runs(name="resnet", tags={"batch": 8}, since_wall_ns=5, state="stopped", limit=10, before_id=40)
        c.show({"id": 7})
        c.show("resnet")
        self.assertEqual([r["verb"] for r in d.requests], ["runs.list", "runs.list", "runs.show", "runs.show"])
        self.assertEqual(d.requests[0]["args"], {})
        self.assertEqual(
            d.requests[1]["args"],
            {"name": "resnet", "tags": {"batch": "8"}, "since_wall_ns": 5, "state": "stopped", "limit": 10,
             "before_id": 40})
        self.assertEqual(d.requests[2]["args"], {"run": "7"})
        self.assertEqual(d.requests[3]["args"], {"run": "resnet"})

    def test_stop_tags_and_start_baseline_are_sent_as_strings_and_an_id(self):
        d = self.serve(lambda r: ok_reply(r, {"id": 3, "name": "w"}))
        c = energyd.Client(d.path)
        self.addCleanup(c.close)
        c.mark_start("w", baseline=12)
        c.mark_stop(3, tags={"exit_status": 0})
        self.assertEqual(d.requests[0]["args"], {"name": "w", "tags": {}, "baseline": 12})
        self.assertEqual(d.requests[1]["args"], {"run": "3", "tags": {"exit_status": "0"}})

    def test_baseline_is_a_tagged_run_of_the_requested_duration(self):
        d = self.serve(lambda r: ok_reply(r, {"id": 9, "name": "baseline"}))
        c = energyd.Client(d.path)
        self.addCleanup(c.close)
        started = time.monotonic()
        c.baseline(duration_s=0.2)
        self.assertGreaterEqual(time.monotonic() - started, 0.2)
        self.assertEqual(d.requests[0]["args"], {"name": "baseline", "baseline_run": True})
        self.assertEqual(d.requests[1]["args"], {"run": "9"})
        for bad in (0, -1, "10s", True):
            with self.assertRaises(ValueError):
                c.baseline(duration_s=bad)

    def test_sweep_methods_send_the_protocols_arguments(self):
        d = self.serve(lambda r: ok_reply(r, {"sweep": {"id": 6, "state": "running"}}))
        c = energyd.Client(d.path)
        self.addCleanup(c.close)
        created = c.sweep_create("grid", {"seed": "7", "axes": {"clocks": []}})
        c.sweeps()
        c.sweeps(state="interrupted", limit=5, before_id=9)
        c.sweep(created)
        c.sweep_add_run(created, {"run": {"id": 12}, "total": {}}, point=3, repeat=1, cooldown_ms=250)
        c.sweep_add_run(6, {"id": 13}, point=0, repeat=0, role="baseline")
        c.sweep_set_state(created["sweep"], "complete")
        self.assertEqual([r["verb"] for r in d.requests],
                         ["sweep.create", "sweep.list", "sweep.list", "sweep.show", "sweep.add_run",
                          "sweep.add_run", "sweep.set_state"])
        self.assertEqual(d.requests[0]["args"], {"name": "grid", "spec": {"seed": "7", "axes": {"clocks": []}}})
        self.assertEqual(d.requests[1]["args"], {})
        self.assertEqual(d.requests[2]["args"], {"state": "interrupted", "limit": 5, "before_id": 9})
        self.assertEqual(d.requests[3]["args"], {"sweep": 6})
        self.assertEqual(d.requests[4]["args"],
                         {"sweep": 6, "run": 12, "point": 3, "repeat": 1, "role": "measure", "cooldown_ms": 250})
        self.assertEqual(d.requests[5]["args"], {"sweep": 6, "run": 13, "point": 0, "repeat": 0, "role": "baseline"})
        self.assertEqual(d.requests[6]["args"], {"sweep": 6, "state": "complete"})

    def test_sweep_ids_and_specs_of_the_wrong_type_are_refused_before_sending(self):
        d = self.serve(lambda r: ok_reply(r, {}))
        c = energyd.Client(d.path)
        self.addCleanup(c.close)
        for bad in (0, -2, "6", True, 1.5, {"name": "no id"}):
            with self.assertRaises(energyd.EnergydError) as caught:
                c.sweep(bad)
            self.assertEqual(caught.exception.code, "invalid")
            self.assertIn("sweep", caught.exception.message)
        with self.assertRaises(energyd.EnergydError):
            c.sweep_add_run(6, "12", point=0, repeat=0)
        with self.assertRaises(energyd.EnergydError):
            c.sweep_create("grid", [1, 2])
        self.assertEqual(d.requests, [])

    def test_sweeps_need_energyctl_and_say_where_they_looked(self):
        c = energyd.Client(self.serve(lambda r: ok_reply(r, {})).path)
        self.addCleanup(c.close)
        for given, env, words in (
            ("/nonexistent/energyctl", {}, "energyctl='/nonexistent/energyctl'"),
            (None, {"ENERGYCTL": "/nonexistent/ctl"}, "$ENERGYCTL='/nonexistent/ctl'"),
            (None, {"ENERGYCTL": "", "PATH": ""}, "PATH"),
        ):
            with self.subTest(given=given, env=env), patched_environ(env):
                for call in (lambda: c.sweep_results(1, energyctl=given),
                             lambda: c.run_sweep(["true"], gpu="max", energyctl=given)):
                    with self.assertRaises(energyd.EnergydError) as caught:
                        call()
                    self.assertEqual(caught.exception.code, "not_found")
                    self.assertIn(words, caught.exception.message)
                    self.assertIn("energyctl not found", caught.exception.message)

    def test_bad_sweep_arguments_are_named_before_energyctl_runs(self):
        c = energyd.Client(self.serve(lambda r: ok_reply(r, {})).path)
        self.addCleanup(c.close)
        for command, options, words in (
            ("sleep 1", {"gpu": "max"}, "command must be a non-empty list of strings"),
            ([], {"gpu": "max"}, "command must be"),
            (["x", 3], {"gpu": "max"}, "command must be"),
            (["x"], {"gpu": ""}, "gpu must be a list string"),
            (["x"], {"cpu": [True]}, "cpu must be"),
            (["x"], {"emc": ["1.2G,2G"]}, "emc must be"),
            (["x"], {"repeat": 0}, "repeat must be a whole number of at least 1, not 0"),
            (["x"], {"repeat": 2.5}, "repeat must be a whole number"),
            (["x"], {"ci": -1}, "ci must be a positive number"),
            (["x"], {"items": "batch"}, "items must be a positive number"),
            (["x"], {"cooldown": -2}, "cooldown must be seconds (a number) or 'auto' or 'off', not -2"),
            (["x"], {"baseline": 0}, "baseline must be at least 0.001 s"),
            (["x"], {"dvfs": "yes"}, "dvfs must be True or False"),
            (["x"], {"params": [("n", [1])]}, "params must be a dict"),
            (["x"], {"params": {"bad name": [1]}}, "'bad name' is not a parameter name"),
            (["x"], {"params": {"n": []}}, "params['n'] must be a non-empty list"),
            (["x"], {"params": {"n": ["1,2"]}}, "params['n'] must be"),
            (["x"], {"seed": -1}, "seed must be a whole number of at least 0"),
            (["x"], {"colour": "red"}, "unknown option 'colour'"),
        ):
            with self.subTest(command=command, options=options):
                with self.assertRaises(energyd.EnergydError) as caught:
                    c.run_sweep(command, energyctl="/nonexistent/energyctl", **options)
                self.assertEqual(caught.exception.code, "invalid")
                self.assertIn(words, caught.exception.message)
        with self.assertRaises(energyd.EnergydError) as caught:
            c.sweep_results(0, energyctl="/nonexistent/energyctl")
        self.assertEqual(caught.exception.code, "invalid")

    def test_energyctl_gets_the_clients_socket_and_the_options_as_arguments(self):
        d = self.serve(lambda r: ok_reply(r, {}))
        c = energyd.Client(d.path)
        self.addCleanup(c.close)
        ctl = fake_energyctl(self, 'echo \'{"event": "sweep", "sweep": 5}\' >&2\n'
                                   'echo "energyctl: error: mark.start failed" >&2\nexit 1\n')
        events = []
        with self.assertRaises(energyd.SweepError) as caught:
            c.run_sweep(["infer", "--batch", "{b}"], gpu=["min", 624750000], params={"b": [1, 8]}, dvfs=True,
                        repeat=2, cooldown=0.5, baseline="2s", items="{b}", seed=7, progress=events.append,
                        energyctl=ctl)
        self.assertEqual(read_argv(ctl), [
            "--socket", d.path, "sweep", "--progress", "json", "--gpu", "min,624750000", "--param", "b=1,8",
            "--dvfs", "--repeat", "2", "--cooldown", "500ms", "--baseline", "2s", "--items", "{b}", "--seed", "7",
            "--", "infer", "--batch", "{b}"])
        e = caught.exception
        self.assertEqual((e.code, e.sweep_id, e.exit_status), ("energyctl", 5, 1))
        self.assertIn("mark.start failed", e.message)
        self.assertIn("resume_sweep(5)", e.message)
        self.assertEqual(events, [{"event": "sweep", "sweep": 5},
                                  {"event": "message", "text": "energyctl: error: mark.start failed"}])

    def test_energyctls_usage_error_is_invalid_and_sweep_results_parse_its_json(self):
        c = energyd.Client(self.serve(lambda r: ok_reply(r, {})).path)
        self.addCleanup(c.close)
        usage = fake_energyctl(self, 'echo "energyctl: --gpu: 600 MHz is not in the clock table" >&2\n'
                                     'echo "Usage: energyctl sweep --resume ID" >&2\nexit 2\n')
        with self.assertRaises(energyd.SweepError) as caught:
            c.run_sweep(["x"], gpu="600M", energyctl=usage, progress=None)
        self.assertEqual((caught.exception.code, caught.exception.sweep_id), ("invalid", None))
        self.assertIn("600 MHz is not in the clock table", caught.exception.message)
        self.assertNotIn("Usage:", caught.exception.message, "the usage lines are in .lines, not the message")
        self.assertEqual(len(caught.exception.lines), 2)
        exported = fake_energyctl(self, 'echo \'{"sweep": {"id": 3}, "runs": [], "results": {}}\'\n')
        self.assertEqual(c.sweep_results({"id": 3}, energyctl=exported), {"sweep": {"id": 3}, "runs": [], "results": {}})
        self.assertEqual(read_argv(exported), ["--socket", c.socket_path, "sweep", "export", "3", "--json"])
        garbled = fake_energyctl(self, 'echo "not json"\n')
        with self.assertRaises(energyd.EnergydError) as caught:
            c.sweep_results(3, energyctl=garbled)
        self.assertEqual(caught.exception.code, "protocol")

    def test_an_exception_in_the_progress_callback_interrupts_energyctl(self):
        c = energyd.Client(self.serve(lambda r: ok_reply(r, {})).path)
        self.addCleanup(c.close)
        ctl = fake_energyctl(self, 'trap \'echo INT >> "$0.signals"; exit 130\' INT\n'
                                   'echo \'{"event": "sweep", "sweep": 2}\' >&2\n'
                                   'while :; do sleep 0.01; done\n')

        def stop(event):
            raise KeyboardInterrupt

        started = time.monotonic()
        with self.assertRaises(KeyboardInterrupt):
            c.run_sweep(["x"], gpu="max", energyctl=ctl, progress=stop)
        self.assertLess(time.monotonic() - started, 5)
        with open(ctl + ".signals") as f:
            self.assertEqual(f.read(), "INT\n", "energyctl got one SIGINT")

    def test_print_progress_writes_one_line_per_event(self):
        import io
        err, saved = io.StringIO(), sys.stderr
        sys.stderr = err
        try:
            energyd.print_progress({"event": "sweep", "sweep": 4, "name": "study"})
            energyd.print_progress({"event": "run", "run": 3, "runs": 40, "runs_estimated": True,
                                    "label": "gpu 306MHz", "eta_s": 61.4, "last": "0.25 J in 51 ms"})
            energyd.print_progress({"event": "note", "message": "running anyway"})
            energyd.print_progress({"event": "message", "text": "energyctl: sweep 4 complete"})
        finally:
            sys.stderr = saved
        self.assertEqual(err.getvalue().splitlines(), [
            "energyctl: sweep 4 (study)",
            "energyctl: sweep: run 3/~40 (gpu 306MHz), finish in ~61 s; last: 0.25 J in 51 ms",
            "energyctl: running anyway",
            "energyctl: sweep 4 complete"])

    def test_run_block_that_raises_is_tagged_with_the_exception(self):
        d = self.serve(lambda r: ok_reply(r, {"id": 4, "name": "w"}))
        with self.assertRaises(KeyError):
            with energyd.run("w", socket=d.path):
                raise KeyError("x")
        self.assertEqual(d.requests[-1]["args"], {"run": "4", "tags": {"exception": "KeyError"}})

    def test_items_must_be_positive(self):
        for bad in (0, -1, "many", True, float("inf"), float("nan")):
            with self.assertRaises(ValueError):
                energyd.run("w", items=bad)

    def test_items_are_passed_to_mark_start_and_mark_stop(self):
        d = self.serve(lambda r: ok_reply(r, {"id": 5, "name": "w"}))
        with energyd.run("w", items=64, socket=d.path):
            pass
        self.assertEqual(d.requests[0]["args"], {"name": "w", "tags": {}, "items": 64})
        c = energyd.Client(d.path)
        self.addCleanup(c.close)
        c.mark_stop(5, items=0.5)
        self.assertEqual(d.requests[-1]["args"], {"run": "5", "items": 0.5})
        with self.assertRaises(ValueError):
            c.mark_stop(5, items=0)


def client_tags(tags):
    """A run's tags without energyd's own (keys starting "energyd.", e.g. the owner energyd.uid)."""
    return {k: v for k, v in tags.items() if not k.startswith("energyd.")}


def start_board_and_daemon(tmp):
    """A constant-power Orin Nano (VDD_IN exactly 5.000 W) and energyd on it; returns (process, socket)."""
    board = os.path.join(tmp, "board")
    subprocess.run(
        [os.environ["ENERGYD_SIM_BIN"], "create", "--board", "jetson-orin-nano", "--l4t", "36", "--root", board,
         "--rail", "VDD_IN=5000:1000", "--rail", "VDD_CPU_GPU_CV=5000:200", "--rail", "VDD_SOC=5000:400"],
        check=True, stdout=subprocess.DEVNULL)
    config = os.path.join(tmp, "energyd.yaml")
    with open(config, "w") as f:
        f.write("# written by tests/python/test_client.py\nlog_level: debug\n")
    sock = os.path.join(tmp, "energyd.sock")
    log = open(os.path.join(tmp, "energyd.log"), "w")
    proc = subprocess.Popen(
        [os.environ["ENERGYD_BIN"], "--root", board, "--state-dir", os.path.join(tmp, "state"), "--socket", sock,
         "--sample-period-ms", "100", "--config", config],
        stdout=log, stderr=subprocess.STDOUT)
    log.close()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            energyd.Client(sock, timeout=5).close()
            return proc, sock
        except energyd.EnergydError:
            time.sleep(0.05)
    proc.kill()
    proc.wait()
    with open(os.path.join(tmp, "energyd.log")) as f:
        raise RuntimeError("energyd did not start:\n" + f.read())


@unittest.skipUnless(
    os.environ.get("ENERGYD_BIN") and os.environ.get("ENERGYD_SIM_BIN"),
    "needs ENERGYD_BIN and ENERGYD_SIM_BIN (ctest sets them)")
class LiveDaemonTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="energyd-py-it-")
        cls.proc, cls.sock = start_board_and_daemon(cls.tmp)

    @classmethod
    def tearDownClass(cls):
        cls.proc.terminate()
        cls.proc.wait(timeout=20)
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def client(self):
        c = energyd.Client(self.sock)
        self.addCleanup(c.close)
        return c

    def open_run_names(self):
        return [r["name"] for r in self.client().status()["open_runs"]]

    def test_context_manager_measures_the_block(self):
        with energyd.run("resnet50", items=3200, tags={"batch": 8}, socket=self.sock) as r:
            self.assertEqual(self.open_run_names(), ["resnet50"])
            time.sleep(0.5)
        self.assertGreaterEqual(r.duration_s, 0.5)
        self.assertAlmostEqual(r.avg_power_w, 5.0, delta=0.05)
        self.assertAlmostEqual(r.energy_j, 5.0 * r.duration_s, delta=0.01 * 5.0 * r.duration_s)
        self.assertAlmostEqual(r.energy_per_item_j, r.energy_j / 3200)
        self.assertEqual(r.report["run"]["items"], 3200)  # stored with the run
        self.assertAlmostEqual(r.report["total"]["energy_per_item_j"], r.energy_j / 3200)
        self.assertEqual(r.report["run"]["state"], "stopped")
        self.assertEqual(client_tags(r.report["run"]["tags"]), {"batch": "8"})
        self.assertEqual(r.report["run"]["tags"]["energyd.uid"], str(os.getuid()))
        self.assertEqual({x["label"] for x in r.report["rails"]}, {"VDD_IN", "VDD_CPU_GPU_CV", "VDD_SOC"})
        self.assertEqual(self.open_run_names(), [])

    def test_run_is_stopped_when_the_block_raises(self):
        with self.assertRaises(RuntimeError):
            with energyd.run("failing", socket=self.sock) as r:
                raise RuntimeError("workload crashed")
        self.assertEqual(r.report["run"]["state"], "stopped")
        self.assertIsNone(r.error)
        self.assertEqual(self.open_run_names(), [])

    def test_run_on_a_shared_client_leaves_it_open(self):
        c = self.client()
        with energyd.run("shared", client=c) as r:
            pass
        self.assertEqual(r.report["run"]["name"], "shared")
        self.assertIn("rails", c.status())

    def test_unknown_run_is_not_found(self):
        with self.assertRaises(energyd.EnergydError) as caught:
            self.client().mark_stop("no-such-run")
        self.assertEqual(caught.exception.code, "not_found")
        self.assertIn("no open run named or numbered 'no-such-run'", caught.exception.message)

    def test_stopping_twice_is_a_state_error(self):
        c = self.client()
        info = c.mark_start("twice")
        report = c.mark_stop(info)
        self.assertEqual(report["run"]["id"], info["id"])
        with self.assertRaises(energyd.EnergydError) as caught:
            c.mark_stop(info["id"])
        self.assertEqual(caught.exception.code, "state")
        self.assertIn("already stopped", caught.exception.message)

    def test_invalid_name_is_an_invalid_error(self):
        with self.assertRaises(energyd.EnergydError) as caught:
            self.client().mark_start("")
        self.assertEqual(caught.exception.code, "invalid")

    def test_runs_and_show_find_what_was_measured(self):
        c = self.client()
        info = c.mark_start("py-listed", tags={"batch": 4})
        report = c.mark_stop(info, tags={"outcome": "ok"})
        listed = c.runs(name="py-listed", tags={"batch": 4, "outcome": "ok"})
        self.assertEqual([r["id"] for r in listed["runs"]], [info["id"]])
        self.assertAlmostEqual(listed["runs"][0]["summary"]["energy_j"], report["total"]["energy_j"], places=6)
        self.assertNotIn("next_before_id", listed)
        shown = c.show("py-listed")
        self.assertEqual(client_tags(shown["run"]["tags"]), {"batch": "4", "outcome": "ok"})
        self.assertEqual(shown["total"]["energy_j"], report["total"]["energy_j"])

    def test_a_sweep_is_created_filled_shown_listed_and_completed(self):
        c = self.client()
        spec = {"format": 1, "axes": {"clocks": [{"domain": "gpu", "hz": [306000000]}], "params": []}}
        sweep = c.sweep_create("py-sweep", spec)["sweep"]
        self.assertEqual(sweep["state"], "running")
        runs = []
        for point in (0, 1):
            info = c.mark_start("py-sweep-run", items=10 * (point + 1))
            runs.append(c.mark_stop(info))
            c.sweep_add_run(sweep, runs[-1], point=point, repeat=0)
        shown = c.sweep(sweep["id"])["sweep"]
        self.assertEqual(shown["spec"], spec)
        self.assertEqual([r["run_id"] for r in shown["runs"]], [r["run"]["id"] for r in runs])
        self.assertEqual(shown["runs"][1]["run"]["items"], 20)
        self.assertIn("energy_j", shown["runs"][0]["run"]["summary"])
        listed = [s for s in c.sweeps(state="running")["sweeps"] if s["id"] == sweep["id"]]
        self.assertEqual((listed[0]["runs"], listed[0]["points"]), (2, 2))
        with self.assertRaises(energyd.EnergydError) as caught:
            c.sweep_add_run(sweep, runs[0], point=5, repeat=0)
        self.assertEqual(caught.exception.code, "state")
        self.assertIn("already belongs", caught.exception.message)
        self.assertEqual(c.sweep_set_state(sweep, "complete")["sweep"]["state"], "complete")
        with self.assertRaises(energyd.EnergydError) as caught:
            c.sweep_set_state(sweep, "running")
        self.assertEqual(caught.exception.code, "state")

    def test_bad_run_query_arguments_are_invalid_and_named(self):
        c = self.client()
        for verb, args, words in (
            ("runs.list", {"limit": 0}, '"limit"'),
            ("runs.list", {"state": "paused"}, '"state"'),
            ("runs.list", {"tags": {"batch": 8}}, '"batch"'),
            ("runs.list", {"colour": "red"}, 'unknown argument "colour"'),
            ("runs.show", {}, '"run" is missing'),
            ("runs.show", {"run": ""}, '"run"'),
            ("export", {"run": "x"}, '"run" must be a run id'),
            ("export", {"run": 1, "since_wall_ns": 0}, '"since_wall_ns"'),
            ("mark.start", {"name": "x", "baseline": "latest"}, '"baseline"'),
        ):
            with self.assertRaises(energyd.EnergydError) as caught:
                c.call(verb, **args)
            self.assertEqual(caught.exception.code, "invalid", (verb, args, caught.exception.message))
            self.assertIn(words, caught.exception.message)
        c.mark_start("bad-stop-tags")
        with self.assertRaises(energyd.EnergydError) as caught:
            c.call("mark.stop", run="bad-stop-tags", tags={"exit_status": 0})
        self.assertEqual(caught.exception.code, "invalid")
        self.assertIn('"exit_status"', caught.exception.message)
        c.mark_stop("bad-stop-tags")
        with self.assertRaises(energyd.EnergydError) as caught:
            c.show(999999)
        self.assertEqual(caught.exception.code, "not_found")

    def test_a_baseline_gives_idle_and_net_energy_and_a_plain_run_is_no_baseline(self):
        c = self.client()
        plain = c.mark_start("not-a-baseline")
        c.mark_stop(plain)
        with self.assertRaises(energyd.EnergydError) as caught:
            c.mark_start("x", baseline=plain["id"])
        self.assertEqual(caught.exception.code, "invalid")
        self.assertIn("is not a stopped baseline", caught.exception.message)
        with self.assertRaises(energyd.EnergydError) as caught:
            c.mark_start("x", baseline=999999)
        self.assertEqual(caught.exception.code, "not_found")
        bl = c.baseline(duration_s=0.5)
        self.assertAlmostEqual(bl["total"]["avg_power_w"], 5.0, places=6)
        with energyd.run("py-net", client=c, baseline=bl["run"]["id"]) as r:
            time.sleep(0.3)
        self.assertEqual(r.report["baseline"]["run"], bl["run"]["id"])
        self.assertAlmostEqual(r.report["total"]["idle_j"], 5.0 * r.duration_s, delta=1e-6 * 5.0 * r.duration_s)
        self.assertAlmostEqual(r.net_energy_j, r.energy_j - r.report["total"]["idle_j"], places=9)
        self.assertAlmostEqual(r.net_energy_j, 0.0, delta=0.01)  # the board stayed at 5 W

    @unittest.skipUnless(os.environ.get("ENERGYCTL"), "needs $ENERGYCTL (ctest sets it)")
    def test_a_sweep_runs_from_python_and_its_results_are_read(self):
        c = self.client()
        events = []
        out = c.run_sweep(["sleep", "0.05"], gpu=["min", "max"], params={"n": [4]}, items="{n}", repeat=1,
                          cooldown="off", name="py-grid", progress=events.append)
        sweep = [e for e in events if e["event"] == "sweep"]
        runs = [e for e in events if e["event"] == "run"]
        self.assertEqual(len(sweep), 1)
        self.assertEqual(([e["run"] for e in runs], {e["runs"] for e in runs}), ([1, 2], {2}))
        self.assertFalse(any(e["runs_estimated"] for e in runs))
        self.assertEqual(sorted(e["label"] for e in runs), ["gpu 306MHz, n=4", "gpu 624.75MHz, n=4"])
        results = out["results"]
        self.assertEqual((results["sweep"]["id"], results["sweep"]["state"]), (sweep[0]["sweep"], "complete"))
        self.assertEqual(results["unit"], "item")
        self.assertEqual([p["clocks"] for p in results["points"]], [{"gpu": 306000000}, {"gpu": 624750000}])
        for p, run in zip(results["points"], sorted(out["runs"], key=lambda r: r["point"])):
            self.assertEqual(p["energy_j"]["n"], 1)
            self.assertAlmostEqual(p["power_w"]["mean"], 5.0, places=3)
            self.assertAlmostEqual(p["energy_j"]["mean"], run["energy_j"] / 4, places=9)  # per item
        self.assertIn(results["minimum"]["point"], (0, 1))
        self.assertEqual(c.sweep_results(sweep[0]["sweep"]), out)

    @unittest.skipUnless(os.environ.get("ENERGYCTL"), "needs $ENERGYCTL (ctest sets it)")
    def test_ctrl_c_interrupts_the_sweep_and_resume_finishes_it(self):
        c = self.client()
        events = []

        def interrupt_after_the_first_run(event):
            events.append(event)
            if event["event"] == "run":
                raise KeyboardInterrupt

        with self.assertRaises(KeyboardInterrupt):
            c.run_sweep(["sleep", "0.05"], gpu="min,max", repeat=2, cooldown=0, name="py-interrupted",
                        progress=interrupt_after_the_first_run)
        sweep_id = [e["sweep"] for e in events if e["event"] == "sweep"][0]
        self.assertEqual(c.sweep(sweep_id)["sweep"]["state"], "interrupted")
        # energyd ends the interrupted run's pin when energyctl's connection closes: soon, not at once.
        deadline = time.monotonic() + 5
        while (c.call("clocks.leases")["leases"] or self.open_run_names()) and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertEqual(c.call("clocks.leases")["leases"], [], "a clock stayed pinned")
        self.assertEqual(self.open_run_names(), [])
        kept = {(r["point"], r["repeat"]) for r in c.sweep(sweep_id)["sweep"]["runs"] if r["role"] == "measure"}
        self.assertGreaterEqual(len(kept), 1)
        resumed = []
        out = c.resume_sweep(sweep_id, progress=resumed.append)
        self.assertEqual(len([e for e in resumed if e["event"] == "run"]), 4 - len(kept), "finished runs not repeated")
        measured = [(r["point"], r["repeat"]) for r in out["runs"] if r["role"] == "measure"]
        self.assertEqual(sorted(measured), [(0, 0), (0, 1), (1, 0), (1, 1)])
        self.assertEqual(out["results"]["sweep"]["state"], "complete")

    def test_status_shows_the_board_rails_and_total(self):
        st = self.client().status()
        self.assertIn("Orin Nano", st["board"]["model"])
        self.assertEqual(len(st["rails"]), 3)
        self.assertEqual(st["total"]["rails"], ["VDD_IN"])
        self.assertAlmostEqual(st["total"]["power_w"], 5.0, places=6)


if __name__ == "__main__":
    unittest.main()
