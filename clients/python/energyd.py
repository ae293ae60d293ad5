"""Client for energyd, the Jetson energy daemon: mark runs and read their energy.

One module, standard library only, Python 3.6 or newer (JetPack 4.6 runs
Ubuntu 18.04 with Python 3.6; tests/python/test_py36.py checks it). Copy it
next to your code, put its folder on PYTHONPATH, or `pip install` the folder.

    import energyd

    with energyd.run("resnet50", items=3200, tags={"batch": "8"}) as r:
        infer()                       # the run is closed even if this raises
    print(r.energy_j, r.avg_power_w, r.energy_per_item_j)
    print(r.report["rails"])          # the daemon's full report (a dict)

    c = energyd.Client()              # $ENERGYD_SOCKET or /run/energyd/energyd.sock
    print(c.status()["total"]["power_w"])
    info = c.mark_start("warmup")
    report = c.mark_stop(info, tags={"outcome": "ok"})  # by the dict, its id, or a unique name

    c.baseline(duration_s=10)         # idle power; later reports add idle_j and net_j
    for r in c.runs(name="resnet50", limit=10)["runs"]:
        print(r["id"], r["summary"]["energy_j"])
    print(c.show("resnet50")["total"]["net_j"])  # newest run of that name

    # A sweep, run by energyctl on this client's socket (it owns the sweep's
    # driver and statistics); results as `energyctl sweep export ID --json`:
    out = c.run_sweep(["infer", "--batch", "{batch}"], gpu="min,mid,max",
                      params={"batch": [1, 8]}, dvfs=True, repeat=3, items=64)
    print(out["results"]["minimum"], out["results"]["dvfs"])
    c.sweep_results(4); c.resume_sweep(4)

Every failure raises EnergydError with the daemon's error code ("not_found",
"state", "invalid", "denied", ...) or a transport code ("io", "timeout",
"protocol"); sweeps run through energyctl add "energyctl" (SweepError).
The wire protocol is documented in energyd's docs/PROTOCOL.md: 4-byte
big-endian length, then a UTF-8 JSON object; requests up to 64 KiB,
replies up to 64 MiB.

Thread-safety: a Client may be shared between threads; calls are serialised.
"""

import errno as _errno
import json
import os
import re
import shutil
import signal
import socket as _socket
import struct
import subprocess
import sys
import threading
import time
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Union

__all__ = [
    "Client",
    "EnergydError",
    "SweepError",
    "Run",
    "run",
    "default_socket_path",
    "find_energyctl",
    "print_progress",
    "DEFAULT_SOCKET",
    "MAX_REQUEST_BYTES",
    "MAX_REPLY_BYTES",
]

PROTOCOL_VERSION = 1
DEFAULT_SOCKET = "/run/energyd/energyd.sock"
MAX_REQUEST_BYTES = 64 * 1024
MAX_REPLY_BYTES = 64 * 1024 * 1024
DEFAULT_TIMEOUT_S = 10.0
BASELINE_KIND_TAG = "energyd.kind"
_HEADER = struct.Struct(">I")


class EnergydError(Exception):
    """A failed request or connection.

    Attributes:
        code: the daemon's error code ("not_found", "state", "invalid",
            "denied", "storage", ...) or, for transport failures, "io",
            "timeout" or "protocol".
        message: what was wrong, for people.
        errno: the system error number when a system call failed, else None.
    """

    def __init__(self, code: str, message: str, errno: Optional[int] = None) -> None:
        super().__init__("{}: {}".format(code, message))
        self.code = code
        self.message = message
        self.errno = errno


def default_socket_path() -> str:
    """$ENERGYD_SOCKET when set and not empty, else /run/energyd/energyd.sock."""
    return os.environ.get("ENERGYD_SOCKET") or DEFAULT_SOCKET


def print_progress(event: Dict[str, Any]) -> None:
    """The default progress callback: one line per event on stderr."""
    kind = event.get("event")
    if kind == "run":
        of = "/~" if event.get("runs_estimated") else "/"
        text = "sweep: run {}{}{} ({})".format(event.get("run"), of, event.get("runs"), event.get("label"))
        if "eta_s" in event:
            text += ", finish in ~{:.0f} s".format(event["eta_s"])
        if "last" in event:
            text += "; last: {}".format(event["last"])
    elif kind == "sweep":
        text = "sweep {} ({})".format(event.get("sweep"), event.get("name"))
    else:
        text = str(event.get("message", event.get("text", event)))
    sys.stderr.write("energyctl: {}\n".format(text) if not text.startswith("energyctl") else text + "\n")
    sys.stderr.flush()


def encode_frame(message: Mapping[str, Any]) -> bytes:
    """One frame: the payload's length (4 bytes, big-endian), then the JSON payload."""
    payload = json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return _HEADER.pack(len(payload)) + payload


def decode_payload(payload: bytes) -> Dict[str, Any]:
    """The JSON object in a frame's payload; anything else is a protocol error."""
    try:
        message = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise EnergydError("protocol", "reply is not valid JSON: {}".format(e)) from None
    if not isinstance(message, dict):
        raise EnergydError("protocol", "reply is not a JSON object")
    return message


def _items(items: Any) -> float:
    """A run's item count as the protocol takes it: a positive finite number."""
    if isinstance(items, bool) or not isinstance(items, (int, float)) or not 0 < items < float("inf"):  # NaN too
        raise ValueError("items must be a positive finite number, got {!r}".format(items))
    return items


def _string_tags(tags: Optional[Mapping[str, Any]]) -> Dict[str, str]:
    return {str(k): str(v) for k, v in (tags or {}).items()}


def _run_key(run: Union[int, str, Mapping[str, Any]]) -> str:
    """mark.stop's `run` argument from an id, a name or mark_start's result."""
    if isinstance(run, Mapping):
        if "id" not in run:
            raise EnergydError("invalid", "run dict has no 'id' (pass mark_start's result)")
        run = run["id"]
    if isinstance(run, bool) or not isinstance(run, (int, str)):
        raise EnergydError("invalid", "run must be an id, a name or mark_start's result, not {!r}".format(run))
    return str(run)


def _sweep_id(sweep_id: Any) -> int:
    """A sweep id from an int, a SWEEP dict or a {"sweep": SWEEP} result."""
    if isinstance(sweep_id, Mapping) and isinstance(sweep_id.get("sweep"), Mapping):
        sweep_id = sweep_id["sweep"]
    if isinstance(sweep_id, Mapping):
        sweep_id = sweep_id.get("id")
    if isinstance(sweep_id, bool) or not isinstance(sweep_id, int) or sweep_id <= 0:
        raise EnergydError("invalid", "sweep must be a positive integer id, not {!r}".format(sweep_id))
    return sweep_id


def _run_id(run: Any) -> int:
    """A run id from an int, mark_start's result or mark_stop's report."""
    if isinstance(run, Mapping):
        run = run["run"]["id"] if isinstance(run.get("run"), Mapping) else run.get("id")
    if isinstance(run, bool) or not isinstance(run, int) or run <= 0:
        raise EnergydError("invalid", "run must be a positive integer id or a run dict, not {!r}".format(run))
    return run


class Client:
    """A connection to energyd's Unix socket.

    Args:
        socket: the socket path; default $ENERGYD_SOCKET, else
            /run/energyd/energyd.sock.
        timeout: seconds to wait for the connection (while energyd's listen
            backlog is full: it is overloaded or out of descriptors) and for
            each whole reply (marks wait for a sample and a database commit).

    Raises EnergydError("io") when energyd cannot be reached and
    EnergydError("timeout") when it does not answer in time. When energyd
    refuses the connection (an error frame with id 0, e.g. too many
    connections), the EnergydError has its code ("denied") and message. After a
    transport failure the connection is dropped and the next call reconnects.
    Usable as a context manager (closes on exit).
    """

    def __init__(self, socket: Optional[str] = None, timeout: float = DEFAULT_TIMEOUT_S) -> None:
        self.socket_path = socket or default_socket_path()
        self.timeout = timeout
        self._lock = threading.Lock()
        self._sock = None  # type: Optional[_socket.socket]
        self._next_id = 1
        self._deadline = 0.0  # monotonic time by which the current reply must be complete
        self._connect()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        """Closes the connection; a later call reconnects."""
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def call(self, verb: str, **args: Any) -> Dict[str, Any]:
        """Sends one request and returns its result (a dict).

        Raises EnergydError with the daemon's code when it refuses the request.
        """
        with self._lock:
            request_id = self._next_id
            self._next_id += 1
            frame = encode_frame({"v": PROTOCOL_VERSION, "id": request_id, "verb": verb, "args": args})
            if len(frame) - _HEADER.size > MAX_REQUEST_BYTES:
                raise EnergydError(
                    "invalid",
                    "{} request of {} bytes exceeds the protocol's limit of {} bytes".format(
                        verb, len(frame) - _HEADER.size, MAX_REQUEST_BYTES
                    ),
                )
            reply = self._exchange(frame)
        if reply.get("id") == 0:
            raise self._refusal(reply)
        return _result_of(reply, request_id)

    def status(self) -> Dict[str, Any]:
        """Board, rails with live readings, sampler and storage health, open runs."""
        return self.call("status")

    def rails(self) -> Dict[str, Any]:
        """Rails with their files, and which rails form the module total."""
        return self.call("rails")

    def mark_start(
        self,
        name: str,
        tags: Optional[Mapping[str, Any]] = None,
        baseline: Optional[int] = None,
        items: Optional[float] = None,
    ) -> Dict[str, Any]:
        """Opens a run; returns it ({"id", "name", "tags", "start_ns", ...}).

        The daemon samples every rail and stores the mark durably before it
        answers. Tag values are sent as strings. `baseline`: the id of an
        idle baseline run (see baseline()) whose power the report subtracts;
        without it the newest baseline before the run is used. `items`: the
        run's work items (a positive number), stored with the run for energy
        per item.
        """
        args = {"name": name, "tags": _string_tags(tags)}  # type: Dict[str, Any]
        if baseline is not None:
            args["baseline"] = int(baseline)
        if items is not None:
            args["items"] = _items(items)
        return self.call("mark.start", **args)

    def mark_stop(
        self,
        run: Union[int, str, Mapping[str, Any]],
        tags: Optional[Mapping[str, Any]] = None,
        items: Optional[float] = None,
    ) -> Dict[str, Any]:
        """Closes a run and returns its report (see docs/PROTOCOL.md, mark.stop).

        `run` is mark_start's result, the run's id, or its name when exactly
        one open run has it. `tags` are merged into the run's tags and stored
        with the stop (e.g. {"outcome": "failed"}). Raises
        EnergydError("not_found") for an unknown run and
        EnergydError("state") for one already stopped. `items` (a positive
        number) replaces the item count stored with the run.
        """
        args = {"run": _run_key(run)}  # type: Dict[str, Any]
        if tags:
            args["tags"] = _string_tags(tags)
        if items is not None:
            args["items"] = _items(items)
        return self.call("mark.stop", **args)

    def runs(
        self,
        name: Optional[str] = None,
        tags: Optional[Mapping[str, Any]] = None,
        since_wall_ns: Optional[int] = None,
        until_wall_ns: Optional[int] = None,
        state: Optional[str] = None,
        limit: Optional[int] = None,
        before_id: Optional[int] = None,
    ) -> Dict[str, Any]:
        """Runs newest first: {"runs": [...], "next_before_id"?} (runs.list).

        Filters: exact `name`, `tags` (every key must have that value),
        start time in [since_wall_ns, until_wall_ns] (wall clock, ns),
        `state` ("open", "stopped", "interrupted"). `limit`: 1-10000
        (default 100); pass next_before_id as `before_id` for the next page.
        Each run has a "summary": duration_s, energy_j, avg_power_w.
        """
        args = {}  # type: Dict[str, Any]
        for key, value in (("name", name), ("since_wall_ns", since_wall_ns), ("until_wall_ns", until_wall_ns),
                           ("state", state), ("limit", limit), ("before_id", before_id)):
            if value is not None:
                args[key] = value
        if tags:
            args["tags"] = _string_tags(tags)
        return self.call("runs.list", **args)

    def show(self, run: Union[int, str, Mapping[str, Any]]) -> Dict[str, Any]:
        """The report of a run by id, dict or name (the newest run of that name).

        The same report as mark_stop gives, with the stored clocks, and with
        "baseline", "idle_j" and "net_j" when an idle baseline applies. An
        open run is reported up to its newest stored reading.
        """
        return self.call("runs.show", run=_run_key(run))

    def sweep_create(self, name: str, spec: Mapping[str, Any]) -> Dict[str, Any]:
        """Stores a new sweep in state "running"; returns {"sweep": SWEEP}.

        SWEEP is {"id", "name", "state", "created_wall_ns",
        "updated_wall_ns"}. `spec` (a dict, at most 60 KiB as JSON) is kept
        verbatim; energyd does not interpret it (see docs/SWEEPS.md).
        """
        if not isinstance(spec, Mapping):
            raise EnergydError("invalid", "spec must be a dict (a JSON object), not {!r}".format(spec))
        return self.call("sweep.create", name=name, spec=dict(spec))

    def sweeps(self, state: Optional[str] = None, limit: Optional[int] = None,
               before_id: Optional[int] = None) -> Dict[str, Any]:
        """Sweeps newest first: {"sweeps": [...], "next_before_id"?} (sweep.list).

        `state`: "running", "interrupted" or "complete"; `limit`: 1-1000
        (default 100); pass next_before_id as `before_id` for the next page.
        Each sweep has "runs": its number of measure runs (no spec).
        """
        args = {}  # type: Dict[str, Any]
        for key, value in (("state", state), ("limit", limit), ("before_id", before_id)):
            if value is not None:
                args[key] = value
        return self.call("sweep.list", **args)

    def sweep(self, sweep_id: Union[int, Mapping[str, Any]]) -> Dict[str, Any]:
        """One sweep with its spec and runs: {"sweep": {..., "spec", "runs"}}.

        Each of "runs", in the order they were added, is {"run_id", "point",
        "repeat", "role", "cooldown_ms", "run"}, where "run" is the object
        runs() gives for that run (items, tags, state, summary ...). Raises
        EnergydError("not_found") for an unknown id.
        """
        return self.call("sweep.show", sweep=_sweep_id(sweep_id))

    def sweep_add_run(self, sweep_id: Union[int, Mapping[str, Any]], run: Union[int, Mapping[str, Any]], point: int, repeat: int,
                      role: str = "measure", cooldown_ms: Optional[int] = None) -> Dict[str, Any]:
        """Adds a stopped run to a sweep at (point, repeat); returns {"sweep": SWEEP}.

        `run`: its id, or mark_start's or mark_stop's result. `role`:
        "measure", "warmup" or "baseline"; `cooldown_ms`: the wait before
        the run. Raises EnergydError("state") for a run still open or in a
        sweep already, a complete sweep, or a second measure run at the same
        point and repeat; EnergydError("not_found") for an unknown sweep or run.
        """
        args = {"sweep": _sweep_id(sweep_id), "run": _run_id(run), "point": point, "repeat": repeat,
                "role": role}  # type: Dict[str, Any]
        if cooldown_ms is not None:
            args["cooldown_ms"] = cooldown_ms
        return self.call("sweep.add_run", **args)

    def sweep_set_state(self, sweep_id: Union[int, Mapping[str, Any]], state: str) -> Dict[str, Any]:
        """Sets a sweep's state ("running", "interrupted", "complete").

        complete is final: leaving it raises EnergydError("state"). Setting
        the state a sweep has is a no-op. Returns {"sweep": SWEEP}.
        """
        return self.call("sweep.set_state", sweep=_sweep_id(sweep_id), state=state)

    def sweep_results(self, sweep_id: Union[int, Mapping[str, Any]], energyctl: Optional[str] = None) -> Dict[str, Any]:
        """A stored sweep's runs and results, as `energyctl sweep export ID --json` gives them.

        Returns {"sweep", "runs", "results"}: "results" has the per-point
        means and 95% CIs (energy, net energy and time per item, power), the
        minimum-energy point, the fastest, the Pareto front, the
        energy-delay-product minimum and the saving against DVFS (see
        docs/SWEEPS.md). energyctl computes them (it owns a sweep's meaning);
        it is run on this client's socket, found as find_energyctl() says.
        Raises EnergydError: "not_found" when energyctl is missing, "invalid"
        for a bad id, else energyctl's error with its message.
        """
        sweep = str(_sweep_id(sweep_id))
        return _export_json([find_energyctl(energyctl), "--socket", self.socket_path, "sweep", "export", sweep, "--json"])

    def run_sweep(self, command: Sequence[str], progress: Optional[Callable[[Dict[str, Any]], None]] = print_progress,
                  energyctl: Optional[str] = None, **options: Any) -> Dict[str, Any]:
        """Runs `energyctl sweep` on this client's socket and returns its results (sweep_results()).

        `command`: the workload as a list of strings (no shell); "{NAME}" in
        it is replaced by a parameter's value. Options, each checked here
        (type and value named in the error) and again by energyctl:
        cpu, gpu, emc (a list string such as "min,mid,max" or "600M..1.2G/4",
        or a list of items: strings, or ints in Hz), params ({"batch": [1, 8]}),
        dvfs (bool), repeat, ci (%), max_repeat, warmup, search (bool),
        max_runs, cooldown ("auto", "off", seconds or "30s"), baseline
        (seconds or "2s"), items (a number or "{NAME}"), seed, name. See
        docs/SWEEPS.md for what each means.

        `progress(event)` is called with each of energyctl's progress events
        (dicts; "event" is "sweep" with the sweep's id first, then "run" per
        run, "note", or "message" with a plain line of energyctl's in "text");
        the default print_progress writes them to stderr, None is silent.

        Ctrl-C (KeyboardInterrupt) is passed to energyctl as SIGINT: the
        running command gets it, the clocks are restored and the sweep is
        marked interrupted; then the KeyboardInterrupt propagates. Resume with
        resume_sweep(id). A sweep that fails raises SweepError (its
        sweep_id, exit_status and energyctl's last lines).
        """
        tail = _sweep_options(options) + ["--"] + _command(command)
        return self._drive_sweep(tail, progress, energyctl)

    def resume_sweep(self, sweep_id: Union[int, Mapping[str, Any]],
                     progress: Optional[Callable[[Dict[str, Any]], None]] = print_progress,
                     energyctl: Optional[str] = None) -> Dict[str, Any]:
        """Finishes an interrupted sweep (`energyctl sweep --resume ID`) without
        repeating its finished runs; returns its results as run_sweep does."""
        return self._drive_sweep(["--resume", str(_sweep_id(sweep_id))], progress, energyctl)

    def _drive_sweep(self, tail: List[str], progress: Optional[Callable[[Dict[str, Any]], None]],
                     energyctl: Optional[str]) -> Dict[str, Any]:
        exe = find_energyctl(energyctl)
        argv = [exe, "--socket", self.socket_path, "sweep", "--progress", "json"] + tail
        status, sweep_id, lines = _follow_sweep(argv, progress)
        if status != 0:
            raise _sweep_failure(status, sweep_id, lines)
        if sweep_id is None:
            raise EnergydError("protocol", "energyctl sweep ended without naming its sweep: " + " | ".join(lines))
        return self.sweep_results(sweep_id, energyctl=exe)

    def baseline(self, duration_s: float = 10.0, name: str = "baseline") -> Dict[str, Any]:
        """Measures the idle power: a run that energyd tags
        energyd.kind=baseline ("baseline_run": true; needs the clock
        privilege) lasting `duration_s` while the board is left alone;
        returns its report (avg_power_w per rail and in total). Later
        reports subtract it.

        If the wait is interrupted (KeyboardInterrupt, ...), the run is
        stopped with "baseline_interrupted": true (energyd tags it
        energyd.kind=baseline-interrupted) so no report uses it, and the
        exception propagates.
        """
        if isinstance(duration_s, bool) or not isinstance(duration_s, (int, float)) or not duration_s > 0:
            raise ValueError("duration_s must be a positive number, got {!r}".format(duration_s))
        info = self.call("mark.start", name=name, baseline_run=True)
        try:
            time.sleep(duration_s)
        except BaseException:
            self.call("mark.stop", run=_run_key(info), baseline_interrupted=True)
            raise
        return self.mark_stop(info)

    def _connect(self) -> None:
        sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        try:
            self._connect_within_timeout(sock)
        except EnergydError:
            sock.close()
            raise
        except OSError as e:
            sock.close()
            hint = " (is energyd running?)" if isinstance(e, (FileNotFoundError, ConnectionRefusedError)) else ""
            raise EnergydError(
                "io", "cannot connect to {}{}: {}".format(self.socket_path, hint, e.strerror or e), e.errno
            ) from None
        self._sock = sock

    def _connect_within_timeout(self, sock: _socket.socket) -> None:
        """connect() on a Unix socket with a timeout fails at once with EAGAIN
        while the listen backlog is full; retried until the timeout."""
        deadline = time.monotonic() + self.timeout
        pause = 0.005
        while True:
            try:
                sock.connect(self.socket_path)
                return
            except BlockingIOError as e:
                if e.errno != _errno.EAGAIN or time.monotonic() + pause > deadline:
                    raise EnergydError(
                        "timeout",
                        "energyd did not accept the connection on {} within {} s (its listen backlog is full: "
                        "is it overloaded or out of file descriptors?)".format(self.socket_path, self.timeout),
                    ) from None
                time.sleep(pause)
                pause = min(pause * 2, 0.1)

    def _refusal(self, reply: Dict[str, Any]) -> EnergydError:
        """The EnergydError an id-0 frame (energyd's word about the connection) carries."""
        self.close()
        try:
            _result_of(reply, 0)
        except EnergydError as e:
            return EnergydError(
                e.code, "energyd refused the connection on {}: {}: {}".format(self.socket_path, e.code, e.message), e.errno
            )
        return EnergydError("protocol", "energyd sent a frame with id 0 that is not an error ({})".format(self.socket_path))

    def _last_word(self) -> Optional[Dict[str, Any]]:
        """After a send failed because energyd closed: its last frame, if any."""
        try:
            return self._receive()
        except (OSError, EnergydError):
            return None

    def _exchange(self, frame: bytes) -> Dict[str, Any]:
        if self._sock is None:
            self._connect()
        self._deadline = time.monotonic() + self.timeout
        try:
            assert self._sock is not None
            try:
                self._sock.sendall(frame)
            except (BrokenPipeError, ConnectionResetError):
                last = self._last_word()
                if last is not None and last.get("id") == 0:
                    return last
                raise
            return self._receive()
        except _socket.timeout:
            self.close()
            raise EnergydError("timeout", "no reply from {} within {} s".format(self.socket_path, self.timeout)) from None
        except OSError as e:
            self.close()
            raise EnergydError("io", "lost the connection to {}: {}".format(self.socket_path, e), e.errno) from None
        except EnergydError:
            self.close()  # the stream is out of step
            raise

    def _receive(self) -> Dict[str, Any]:
        (length,) = _HEADER.unpack(self._read_exactly(_HEADER.size))
        if length > MAX_REPLY_BYTES:
            raise EnergydError(
                "protocol", "reply of {} bytes exceeds the limit of {} bytes".format(length, MAX_REPLY_BYTES)
            )
        return decode_payload(self._read_exactly(length))

    def _read_exactly(self, n: int) -> bytes:
        assert self._sock is not None
        chunks = []
        while n > 0:
            left = self._deadline - time.monotonic()
            if left <= 0:
                raise _socket.timeout("reply deadline")
            self._sock.settimeout(left)
            chunk = self._sock.recv(min(n, 1 << 20))
            if not chunk:
                raise EnergydError("io", "energyd closed the connection {}".format(self.socket_path))
            chunks.append(chunk)
            n -= len(chunk)
        return b"".join(chunks)


# Running sweeps: energyctl owns a sweep's driver and statistics, so the
# client runs it as a child process (an argument list, never a shell) and
# reads its `--progress json` lines and `sweep export --json`.

ENERGYCTL_ENV = "ENERGYCTL"
_PARAM_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}\Z")
_EXIT_CODES = {2: "invalid", 3: "io"}  # energyctl's usage error, energyd unreachable
_KEPT_LINES = 20


class SweepError(EnergydError):
    """A sweep that energyctl did not complete.

    Attributes (beside EnergydError's): sweep_id (None when it was never
    created), exit_status (energyctl's; 130 after Ctrl-C, negative for a
    signal that killed it), lines (energyctl's last plain lines).
    """

    def __init__(self, code: str, message: str, sweep_id: Optional[int], exit_status: int,
                 lines: List[str]) -> None:
        super().__init__(code, message)
        self.sweep_id = sweep_id
        self.exit_status = exit_status
        self.lines = lines


def find_energyctl(energyctl: Optional[str] = None) -> str:
    """energyctl's path: `energyctl` when given, else $ENERGYCTL, else the
    first `energyctl` on PATH. Raises EnergydError("not_found") naming where
    it looked."""
    if energyctl is not None:
        where, name = "energyctl={!r}".format(energyctl), energyctl
    elif os.environ.get(ENERGYCTL_ENV):
        where, name = "${}={!r}".format(ENERGYCTL_ENV, os.environ[ENERGYCTL_ENV]), os.environ[ENERGYCTL_ENV]
    else:
        where, name = "PATH", "energyctl"
    if not isinstance(name, str) or not name:
        raise EnergydError("invalid", "energyctl must be a path (a non-empty string), not {!r}".format(name))
    path = shutil.which(name)
    if path is None:
        raise EnergydError("not_found", "energyctl not found ({}: no executable file); sweeps need energyctl "
                           "(the energyd package), or pass energyctl= or set ${}".format(where, ENERGYCTL_ENV))
    return path


def _whole(name: str, value: Any, low: int) -> str:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise EnergydError("invalid", "{} must be a whole number of at least {}, not {!r}".format(name, low, value))
    return str(value)


def _positive(name: str, value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < float("inf"):
        raise EnergydError("invalid", "{} must be a positive number, not {!r}".format(name, value))
    return repr(value)


def _duration(name: str, value: Any, words: Sequence[str]) -> str:
    """Seconds (a number, as whole milliseconds) or energyctl's own spelling
    ("30s", "auto"); 0 is words[0] ("off") when the option has one."""
    if isinstance(value, str) and value:
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < float("inf"):
        raise EnergydError("invalid", "{} must be seconds (a number){}, not {!r}".format(
            name, "".join(" or " + repr(w) for w in words), value))
    if value == 0 and words:
        return words[-1]
    ms = int(round(value * 1000))
    if ms < 1:
        raise EnergydError("invalid", "{} must be at least 0.001 s (energyctl counts whole milliseconds), "
                           "not {!r}".format(name, value))
    return "{}ms".format(ms)


def _clock_list(name: str, value: Any) -> str:
    """A clock axis: energyctl's list string, or a list of items (strings, or ints in Hz)."""
    if isinstance(value, str) and value:
        return value
    if isinstance(value, (list, tuple)) and value and all(
            (isinstance(v, str) and v and "," not in v) or (isinstance(v, int) and not isinstance(v, bool) and v > 0)
            for v in value):
        return ",".join(str(v) for v in value)
    raise EnergydError("invalid", "{} must be a list string (\"min,mid,max\") or a non-empty list of frequencies "
                       "(\"624.75M\", or Hz as an int), not {!r}".format(name, value))


def _param(name: Any, values: Any) -> str:
    if not isinstance(name, str) or not _PARAM_NAME.match(name):
        raise EnergydError("invalid", "params: {!r} is not a parameter name (a letter or _, then letters, digits "
                           "or _; at most 64)".format(name))
    ok = isinstance(values, (list, tuple)) and values and all(
        not isinstance(v, bool) and isinstance(v, (str, int, float)) and str(v) and "," not in str(v) for v in values)
    if not ok:
        raise EnergydError("invalid", "params[{!r}] must be a non-empty list of strings or numbers without commas, "
                           "not {!r}".format(name, values))
    return "{}={}".format(name, ",".join(str(v) for v in values))


def _flag(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise EnergydError("invalid", "{} must be True or False, not {!r}".format(name, value))
    return value


def _items_option(value: Any) -> str:
    if isinstance(value, str) and value.startswith("{") and value.endswith("}"):
        return value
    return _positive("items", value)


def _text(name: str, value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise EnergydError("invalid", "{} must be a non-empty string, not {!r}".format(name, value))
    return value


# run_sweep's options: name -> (energyctl's flag, its value's check).
_SWEEP_OPTIONS = {
    "cpu": ("--cpu", lambda v: _clock_list("cpu", v)),
    "gpu": ("--gpu", lambda v: _clock_list("gpu", v)),
    "emc": ("--emc", lambda v: _clock_list("emc", v)),
    "repeat": ("--repeat", lambda v: _whole("repeat", v, 1)),
    "ci": ("--ci", lambda v: _positive("ci", v)),
    "max_repeat": ("--max-repeat", lambda v: _whole("max_repeat", v, 2)),
    "max_runs": ("--max-runs", lambda v: _whole("max_runs", v, 1)),
    "warmup": ("--warmup", lambda v: _whole("warmup", v, 0)),
    "cooldown": ("--cooldown", lambda v: _duration("cooldown", v, ("auto", "off"))),
    "baseline": ("--baseline", lambda v: _duration("baseline", v, ())),
    "items": ("--items", _items_option),
    "seed": ("--seed", lambda v: _whole("seed", v, 0)),
    "name": ("--name", lambda v: _text("name", v)),
}


def _sweep_options(options: Mapping[str, Any]) -> List[str]:
    """energyctl sweep's options from run_sweep's keyword arguments (None: not given)."""
    out = []  # type: List[str]
    for key, value in options.items():
        if value is None:
            continue
        if key in ("dvfs", "search"):
            out += ["--" + key] if _flag(key, value) else []
        elif key == "params":
            if not isinstance(value, Mapping):
                raise EnergydError("invalid", "params must be a dict {{name: [values]}}, not {!r}".format(value))
            for name, values in value.items():
                out += ["--param", _param(name, values)]
        elif key in _SWEEP_OPTIONS:
            flag, check = _SWEEP_OPTIONS[key]
            out += [flag, check(value)]
        else:
            raise EnergydError("invalid", "run_sweep() got an unknown option {!r} (options: {})".format(
                key, ", ".join(sorted(list(_SWEEP_OPTIONS) + ["dvfs", "search", "params"]))))
    return out


def _command(command: Any) -> List[str]:
    if isinstance(command, (str, bytes)) or not isinstance(command, (list, tuple)) or not command or not all(
            isinstance(w, str) for w in command):
        raise EnergydError("invalid", "command must be a non-empty list of strings (it is run without a shell), "
                           "e.g. [\"infer\", \"--batch\", \"{{batch}}\"], not {!r}".format(command))
    return list(command)


def _event_of(line: str) -> Dict[str, Any]:
    """A `--progress json` line as its event; any other line as {"event": "message", "text"}."""
    if line.startswith("{"):
        try:
            event = json.loads(line)
        except ValueError:
            event = None
        if isinstance(event, dict) and isinstance(event.get("event"), str):
            return event
    return {"event": "message", "text": line}


def _follow_sweep(argv: List[str], progress: Optional[Callable[[Dict[str, Any]], None]]):
    """Runs energyctl sweep; returns (exit status, sweep id or None, its last plain lines).

    energyctl runs in its own session, so a Ctrl-C at the terminal reaches
    only Python, which passes it on once (a second SIGINT would reach the
    command twice)."""
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            universal_newlines=True, encoding="utf-8", errors="replace", start_new_session=True)
    seen = {"sweep": None, "lines": []}  # type: Dict[str, Any]
    try:
        for line in proc.stderr:
            _take_line(line.rstrip("\n"), seen, progress)
    except BaseException:
        proc.send_signal(signal.SIGINT)  # the sweep is marked interrupted, the clocks restored
        proc.stderr.read()
        proc.wait()
        raise
    finally:
        proc.stderr.close()
    return proc.wait(), seen["sweep"], seen["lines"]


def _take_line(line: str, seen: Dict[str, Any], progress: Optional[Callable[[Dict[str, Any]], None]]) -> None:
    event = _event_of(line)
    if event["event"] == "sweep" and isinstance(event.get("sweep"), int):
        seen["sweep"] = event["sweep"]
    if event["event"] in ("message", "note"):
        seen["lines"] = (seen["lines"] + [event.get("text", event.get("message", ""))])[-_KEPT_LINES:]
    if progress is not None:
        progress(event)


def _sweep_failure(status: int, sweep_id: Optional[int], lines: List[str]) -> SweepError:
    what = "killed by signal {}".format(-status) if status < 0 else "exit status {}".format(status)
    resume = "" if sweep_id is None else " (sweep {}; resume it with resume_sweep({}))".format(sweep_id, sweep_id)
    said = [line for line in lines if not line.startswith(("Usage: ", "Try '"))]  # energyctl's own words
    message = "energyctl sweep failed with {}{}: {}".format(what, resume, " | ".join(said[-5:]) or "no message")
    return SweepError(_EXIT_CODES.get(status, "energyctl"), message, sweep_id, status, lines)


def _export_json(argv: List[str]) -> Dict[str, Any]:
    """Runs `energyctl ... sweep export ID --json` and returns its JSON object."""
    done = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, encoding="utf-8", errors="replace")
    if done.returncode != 0:
        code = _EXIT_CODES.get(done.returncode, "energyctl")
        raise EnergydError(code, "{} failed with exit status {}: {}".format(
            " ".join(argv[3:]), done.returncode, done.stderr.strip() or "no message"))
    try:
        result = json.loads(done.stdout)
    except ValueError as e:
        raise EnergydError("protocol", "energyctl sweep export --json printed no JSON: {}".format(e)) from None
    if not isinstance(result, dict):
        raise EnergydError("protocol", "energyctl sweep export --json printed no JSON object")
    return result


def _result_of(reply: Dict[str, Any], request_id: int) -> Dict[str, Any]:
    """The result of a reply, or its error raised as EnergydError."""
    if reply.get("id") != request_id:
        raise EnergydError("protocol", "reply does not answer request {}".format(request_id))
    ok = reply.get("ok")
    if ok is True:
        result = reply.get("result", {})
        return result if isinstance(result, dict) else {"value": result}
    if ok is not False:
        raise EnergydError("protocol", 'reply has no boolean field "ok"')
    error = reply.get("error")
    if not isinstance(error, dict):
        raise EnergydError("protocol", 'error reply has no object field "error"')
    errno = error.get("errno")
    raise EnergydError(
        str(error.get("code", "protocol")),
        str(error.get("message", "unspecified error")),
        errno if isinstance(errno, int) else None,
    )


class Run:
    """A run measured around a block of code; see run().

    While open: `info` (mark_start's result) and `id`. After the block:
    `report` (the daemon's full report, a dict) and the shortcuts below, or
    `error` (an EnergydError) when stopping failed while the block was
    raising its own exception (which then propagates unchanged).
    """

    def __init__(
        self,
        name: str,
        items: Optional[float] = None,
        tags: Optional[Mapping[str, Any]] = None,
        socket: Optional[str] = None,
        client: Optional[Client] = None,
        timeout: float = DEFAULT_TIMEOUT_S,
        baseline: Optional[int] = None,
    ) -> None:
        if items is not None:
            _items(items)
        self.name = name
        self.items = items
        self.tags = dict(tags or {})
        self.baseline = baseline
        self.info = None  # type: Optional[Dict[str, Any]]
        self.report = None  # type: Optional[Dict[str, Any]]
        self.error = None  # type: Optional[EnergydError]
        self._socket = socket
        self._timeout = timeout
        self._client = client
        self._owns_client = client is None

    def __enter__(self) -> "Run":
        self.start()
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> bool:
        try:
            self.stop(tags={"exception": exc_type.__name__} if exc_type is not None else None)
        except EnergydError as e:
            self.error = e
            if exc_type is None:
                raise
        return False

    @property
    def id(self) -> int:
        """The daemon's run id."""
        if self.info is None:
            raise EnergydError("state", "run '{}' has not been started".format(self.name))
        return int(self.info["id"])

    def start(self) -> Dict[str, Any]:
        """Opens the run (the context manager calls this)."""
        if self.info is not None:
            raise EnergydError("state", "run '{}' was already started (id {})".format(self.name, self.id))
        if self._client is None:
            self._client = Client(self._socket, self._timeout)
        self.info = self._client.mark_start(self.name, self.tags, baseline=self.baseline, items=self.items)
        return self.info

    def stop(self, tags: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
        """Closes the run once and returns its report (the context manager calls
        this, tagging the run "exception" with the exception's type name when
        the block raised). `tags` are stored with the stop."""
        if self.report is not None:
            return self.report
        if self.info is None or self._client is None:
            raise EnergydError("state", "run '{}' has not been started".format(self.name))
        try:
            self.report = self._client.mark_stop(self.id, tags=tags)
        finally:
            if self._owns_client:
                self._client.close()
        return self.report

    def _total(self, key: str) -> float:
        if self.report is None:
            raise EnergydError("state", "run '{}' has no report yet: it is still open or failed to stop".format(self.name))
        value = self.report.get("total", {}).get(key)
        if not isinstance(value, (int, float)):
            raise EnergydError("protocol", "report of run {} has no total {}".format(self.id, key))
        return float(value)

    @property
    def energy_j(self) -> float:
        """Module energy over the run, J (trapezoidal, interpolated at both edges)."""
        return self._total("energy_j")

    @property
    def avg_power_w(self) -> float:
        """Average module power over the run, W."""
        return self._total("avg_power_w")

    @property
    def peak_power_w(self) -> float:
        """Highest module power sampled in the run, W."""
        return self._total("peak_power_w")

    @property
    def duration_s(self) -> float:
        """Stop minus start, s."""
        if self.report is None:
            raise EnergydError("state", "run '{}' has no report yet".format(self.name))
        return float(self.report["duration_s"])

    @property
    def net_energy_j(self) -> float:
        """energy_j minus the idle baseline's share (baseline power x duration), J;
        needs a baseline (Client.baseline())."""
        return self._total("net_j")

    @property
    def energy_per_item_j(self) -> float:
        """energy_j / items, J per item (e.g. per inference); needs items."""
        if self.items is None:
            raise EnergydError("invalid", "run '{}' was started without items".format(self.name))
        return self.energy_j / self.items


def run(
    name: str,
    items: Optional[float] = None,
    tags: Optional[Mapping[str, Any]] = None,
    socket: Optional[str] = None,
    client: Optional[Client] = None,
    timeout: float = DEFAULT_TIMEOUT_S,
    baseline: Optional[int] = None,
) -> Run:
    """A context manager that measures its block as a run named `name`.

        with energyd.run("resnet50", items=3200, tags={"batch": 8}) as r:
            infer()
        r.energy_j, r.avg_power_w, r.energy_per_item_j, r.report

    The run is stopped even when the block raises (also KeyboardInterrupt);
    the block's exception propagates. `items`: work done in the block, for
    energy_per_item_j. `client`: an existing Client to use (else one is
    opened on `socket` and closed afterwards). `baseline`: an idle
    baseline's run id (see Client.baseline()) for net_energy_j; by default
    the newest baseline before the run.
    """
    return Run(name, items=items, tags=tags, socket=socket, client=client, timeout=timeout, baseline=baseline)
