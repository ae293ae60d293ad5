#!/usr/bin/env python3
"""Writes the seed corpora fuzz/corpus/<target>/ (standard library only).

Seeds are small, valid-looking inputs the fuzzers mutate from: request
frames for every verb (docs/PROTOCOL.md), the shipped config and variants of
each key (etc/energyd.yaml), sysfs values as the supported boards show them,
and chunks encoded exactly as libenergy/series/src/codec.cpp encodes them. Each file
is named after what it holds. Re-run after changing a format:

    python3 fuzz/make_corpus.py        # rewrites fuzz/corpus/
"""
import json
import pathlib
import shutil
import struct

HERE = pathlib.Path(__file__).resolve().parent
CORPUS = HERE / "corpus"


def write(target, name, data):
    d = CORPUS / target
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(data if isinstance(data, bytes) else data.encode())


# ---- fuzz_frames: [piece seed][frames] ---------------------------------------

def frame(msg):
    payload = msg if isinstance(msg, bytes) else json.dumps(msg).encode()
    return struct.pack(">I", len(payload)) + payload


def request(rid, verb, args=None):
    m = {"v": 1, "id": rid, "verb": verb}
    if args is not None:
        m["args"] = args
    return m


REQUESTS = {
    "status": request(1, "status"),
    "rails": request(2, "rails", {}),
    "clocks": request(3, "clocks"),
    "mark_start": request(7, "mark.start", {"name": "resnet50", "tags": {"batch": "8"}}),
    "mark_start_baseline": request(8, "mark.start", {"name": "work", "baseline": "12"}),
    "mark_stop": request(9, "mark.stop", {"run": "resnet50", "tags": {"result": "ok"}}),
    "runs_list": request(10, "runs.list", {"name": "a", "tags": {"energyd.kind": "baseline"}, "state": "stopped",
                                           "since_wall_ns": 0, "until_wall_ns": 9 * 10**18, "limit": 50,
                                           "before_id": 99}),
    "runs_show": request(11, "runs.show", {"run": "42"}),
    "export": request(12, "export", {"since_wall_ns": 1, "until_wall_ns": 2, "rail": "VDD_IN"}),
    "export_run": request(13, "export", {"run": 3, "since_ns": 812345678901, "rail": "VDD_IN"}),
    "pin": request(14, "clocks.pin", {"domains": {"cpu": "max", "gpu": "612MHz", "emc": "1.2GHz:2GHz"},
                                      "governor": "performance", "lease": "duration", "duration_ms": 60000}),
    "pin_run": request(15, "clocks.pin", {"domains": {"cpu0": "1510400kHz"}, "lease": "run", "run": "3",
                                          "allow_offline_cpus": True}),
    "unpin": request(16, "clocks.unpin", {"leases": [1, 2]}),
    "unpin_one": request(17, "clocks.unpin", {"lease": 4}),
    "unpin_all": request(18, "clocks.unpin", {"all": True}),
    "leases": request(19, "clocks.leases"),
    "bad_version": {"v": 2, "id": 1, "verb": "status"},
    "string_id": {"v": 1, "id": "7", "verb": "status"},
    "args_not_object": {"v": 1, "id": 1, "verb": "runs.list", "args": [1]},
    "unknown_verb": request(20, "reboot", {}),
}


def frames_corpus():
    for i, (name, msg) in enumerate(REQUESTS.items()):
        write("fuzz_frames", name, bytes([i % 12]) + frame(msg))
    pipelined = b"".join(frame(m) for m in REQUESTS.values())
    write("fuzz_frames", "pipelined", bytes([3]) + pipelined)
    write("fuzz_frames", "oversized_header", bytes([0]) + struct.pack(">I", 65537) + b"{}")
    write("fuzz_frames", "not_json", bytes([1]) + frame(b"{\"v\":1,"))
    write("fuzz_frames", "not_object", bytes([2]) + frame(b"[1,2,3]"))
    write("fuzz_frames", "partial", bytes([5]) + frame(REQUESTS["status"])[:-3])
    write("fuzz_frames", "nested", bytes([4]) + frame(b"{\"v\":1,\"id\":1,\"verb\":\"runs.list\",\"args\":{\"tags\":"
                                                     + b"[" * 64 + b"]" * 64 + b"}}"))
    write("fuzz_frames", "unicode", bytes([6]) + frame(request(21, "mark.start", {"name": "\u00e9nergie \u2603"})))


# ---- fuzz_config: YAML text ---------------------------------------------------

def config_corpus():
    shipped = (HERE.parent / "etc" / "energyd.yaml").read_text()
    write("fuzz_config", "shipped", shipped)
    keys = [line.split(":")[0] for line in shipped.splitlines() if line and not line.startswith("#") and ":" in line]
    for key in keys:
        value = next(line.split(":", 1)[1] for line in shipped.splitlines() if line.startswith(key + ":"))
        write("fuzz_config", "key_" + key, f"{key}:{value}\n")
    write("fuzz_config", "empty", "")
    write("fuzz_config", "comment_only", "# nothing\n")
    write("fuzz_config", "not_a_map", "- sample_period_ms\n- 100\n")
    write("fuzz_config", "wrong_type", "sample_period_ms: [1, 2]\nroot: {a: b}\n")
    write("fuzz_config", "unknown_key", "sample_period: 100\n")
    write("fuzz_config", "huge_int", "disk_budget_mb: 99999999999999999999\n")
    write("fuzz_config", "negative", "raw_retention_hours: -1\nclock_poll_ms: -5\n")
    write("fuzz_config", "flow", "{sample_period_ms: 50, sensor_averaging: keep, log_level: debug}\n")
    write("fuzz_config", "anchors", "root: &r /srv/board\nstate_dir: *r\n")
    write("fuzz_config", "complex_key", "? [a, b]\n: 1\n")
    write("fuzz_config", "tags", "sample_period_ms: !!int 0x64\nroot: !!str 1\n")
    write("fuzz_config", "documents", "root: /\n---\nroot: /x\n")


# ---- fuzz_sysfs_values: [mode][text] -------------------------------------------

SYSFS = {
    0: ["1190400\n", "-256000\n", "5048 mv\n", "  42\n", "9223372036854775807\n", "12a\n"],
    1: ["0-3\n", "0-3,6\n", "0 1 2 3\n", "4-7,9-11\n", "0-4096\n"],
    2: ["# R36 (release), REVISION: 4.3, GCID: 38968081, BOARD: generic, EABI: aarch64, DATE: Wed Jan  8\n",
        "# R32 (release), REVISION: 7.4, GCID: 33514132, BOARD: t210ref, EABI: aarch64\n"],
    3: ["max", "min", "612MHz", "1.2GHz:2GHz", "1510400kHz", "306000000Hz", "624.75MHz", "min:max", "1200"],
    4: ["VDD_IN|VDD_CPU_GPU_CV|VDD_SOC", "POM_5V_IN|POM_5V_GPU|POM_5V_CPU", "VDD_GPU_SOC|VDD_CPU_CV|VIN_SYS_5V0",
        "VIN"],
    5: ["115200 1190400 1510400\n|interactive schedutil performance\n|0-3\n|1190400\n|115200\n|1510400\n"
        "|schedutil\n|1\n|1190400kHz:1510400kHz",
        "102000 2035200\n|schedutil\n|4-7\n|2035200\n|102000\n|2035200\n|schedutil\n|0\n|max"],
    6: ["gpu|306000000 612000000 918000000\n|nvhost_podgov performance\n|612000000\n|306000000\n|918000000\n"
        "|nvhost_podgov\n|250\n|GPU-therm\n|41500\n|612MHz",
        "ga10b|306000000 1300500000\n|performance\n|1300500000\n|306000000\n|1300500000\n|performance\n|999\n"
        "|tj-thermal\n|-256000\n|min"],
    7: ["ina3221\n|VDD_IN\n|VDD_CPU_GPU_CV\n|VDD_SOC\n|512\n|428\n|1\n|1\n|1\n|5048\n|1168\n|5040\n|320\n",
        "ina3221\n|NC\n|VDD_IN\n|\n|4\n|5\n|0\n|1\n|1\n|0\n|0\n",
        "ina238\n|VIN\n|||||||||19100\n|1800\n"],
    8: ["ina3221x\n|POM_5V_IN\n|POM_5V_GPU\n|NC\n|5032\n|632\n|3180\n|5024 mv\n|40 ma\n|200 mw\n",
        "ina3221x\n|VDD_IN\n|VDD_SYS_GPU\n|VDD_SYS_CPU\n|4984\n|1488\n|7416\n"],
    9: ["NVIDIA Jetson AGX Orin Developer Kit|nvidia,p3737-0000+p3701-0005\0nvidia,p3701-0005\0nvidia,tegra234"
        "|# R36 (release), REVISION: 4.3, BOARD: generic\n",
        "NVIDIA Jetson Xavier NX Developer Kit|nvidia,p3509-0000+p3668-0001\0nvidia,tegra194|"],
}


def sysfs_corpus():
    for mode, texts in SYSFS.items():
        for i, text in enumerate(texts):
            write("fuzz_sysfs_values", f"mode{mode}_{i}", bytes([mode]) + text.encode())


# ---- fuzz_chunks: [unit selector][times length LE16][times][readings] ---------
# The encoding of libenergy/series/src/codec.cpp: LEB128 varints of zigzag values.

def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def zigzag(v):
    return ((v << 1) ^ (v >> 63)) & (2**64 - 1)


def encode_times(times):
    out, prev, prev_delta = b"", 0, 0
    for t in times:
        delta = t - prev
        out += varint(zigzag(delta - prev_delta))
        prev_delta, prev = delta, t
    return out


def encode_readings(readings, unit):
    out, prev = b"", (0, 0, 0)
    for mv, ma, puw, err in readings:
        if err:
            out += varint(((err & 0xFFFFFFFF) << 1) | 1)
            continue
        out += varint(zigzag(mv - prev[0]) << 1) + varint(zigzag(ma - prev[1]))
        if unit > 0:
            out += varint(zigzag((puw - prev[2]) // unit))
        prev = (mv, ma, puw)
    return out


UNITS = {0: 0, 1: 1000, 2: 1, 3: 7}  # the selector byte modulo 4, as in fuzz_chunks.cpp


def chunk(selector, times, readings):
    t = encode_times(times)
    return bytes([selector]) + struct.pack("<H", len(t)) + t + encode_readings(readings, UNITS[selector])


def chunks_corpus():
    grid = [10**6 + i * 100_000 + (i * 37) % 300 for i in range(40)]
    hwmon = [(4968 + (i % 3) * 8, 792 + (i % 5) * 8, 0, 0) for i in range(40)]
    write("fuzz_chunks", "hwmon_steady", chunk(0, grid, hwmon))
    iio = [(5000 - i, 640 + i, (3189 + i) * 1000, 0) for i in range(40)]
    write("fuzz_chunks", "iio_mw", chunk(1, grid, iio))
    ina238 = [(19100, 1800 + i, 34_380_000 + 17 * i, 0) for i in range(40)]
    write("fuzz_chunks", "ina238_uw", chunk(2, grid, ina238))
    failed = [r if i % 7 else (0, 0, 0, 5 if i % 2 else 110) for i, r in enumerate(hwmon)]
    write("fuzz_chunks", "with_failed_reads", chunk(0, grid, failed))
    write("fuzz_chunks", "one_reading", chunk(0, [123456789], [(5000, 1000, 0, 0)]))
    write("fuzz_chunks", "empty", chunk(0, [], []))
    write("fuzz_chunks", "count_mismatch", chunk(0, grid[:3], hwmon[:5]))
    write("fuzz_chunks", "extreme", chunk(2, [0, 9_223_372_036_854_775, 1],
                                          [(2**31 - 1, -2**31, 2**62, 0), (-2**31, 2**31 - 1, -2**62, 0),
                                           (0, 0, 0, -1)]))
    write("fuzz_chunks", "odd_unit", chunk(3, grid[:10], [(5000, 100, 7 * i, 0) for i in range(10)]))
    write("fuzz_chunks", "truncated", chunk(0, grid[:2], hwmon[:2])[:-1] + b"\x80")


def main():
    if CORPUS.exists():
        shutil.rmtree(CORPUS)
    frames_corpus()
    config_corpus()
    sysfs_corpus()
    chunks_corpus()
    for d in sorted(CORPUS.iterdir()):
        print(f"{d.name}: {len(list(d.iterdir()))} files")


if __name__ == "__main__":
    main()
