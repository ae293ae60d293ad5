#!/usr/bin/env bash
# CPU time to compile whole targets one source at a time and as unity
# batches (CMAKE_UNITY_BUILD, the default: docs/HACKING.md "Unity builds").
# Configures two scratch build trees of this checkout (unity OFF and ON,
# the flags of scripts/test.sh without -g), then compiles every source of
# each TARGET from each tree's compile_commands.json into a temporary
# object, one compiler at a time, and prints the user+system CPU seconds of
# both and their ratio. Nothing is linked; the scratch trees are removed.
#
# Usage: bench/unity_compile_time.sh TARGET...
#   e.g. bench/unity_compile_time.sh energy_store integration_test energyctl_lib
set -euo pipefail
(($# >= 1)) || { echo "usage: $0 TARGET..." >&2; exit 2; }
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
command -v python3 >/dev/null || { echo "unity_compile_time.sh: error: python3 is missing" >&2; exit 2; }
for t in "$@"; do
  [[ "$t" =~ ^[A-Za-z0-9_]+$ ]] || { echo "unity_compile_time.sh: error: '$t' is not a target name" >&2; exit 2; }
done
SCRATCH="$(mktemp -d -t energyd-unity.XXXXXX)"
trap 'rm -rf -- "$SCRATCH"' EXIT
for mode in OFF ON; do
  cmake -S "$ROOT" -B "$SCRATCH/$mode" -DCMAKE_UNITY_BUILD="$mode" -DENERGY_WERROR=ON -DENERGY_BUILD_TESTS=ON \
    -DENERGY_BUILD_BENCH=ON -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG" >/dev/null \
    || { echo "unity_compile_time.sh: error: CMake configure failed (unity $mode)" >&2; exit 1; }
done
python3 - "$SCRATCH" "$@" <<'PY'
import json, os, re, resource, shlex, subprocess, sys
scratch, targets = sys.argv[1], sys.argv[2:]

def commands(mode, target):
    """The compile commands of `target`'s sources in the build tree of `mode`."""
    out = []
    for e in json.load(open(os.path.join(scratch, mode, "compile_commands.json"))):
        args = shlex.split(e["command"])
        obj = args[args.index("-o") + 1]
        if re.search(r"CMakeFiles/%s\.dir/" % re.escape(target), obj):
            out.append((e["directory"], args))
    return out

def cpu_seconds(cmds):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    for directory, args in cmds:
        args = list(args)
        args[args.index("-o") + 1] = os.path.join(scratch, "x.o")
        subprocess.run(args, cwd=directory, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

total = {"OFF": 0.0, "ON": 0.0}
for target in targets:
    row = {}
    for mode in ("OFF", "ON"):
        cmds = commands(mode, target)
        if not cmds:
            sys.exit("unity_compile_time.sh: error: no sources of target '%s'" % target)
        row[mode] = (len(cmds), cpu_seconds(cmds))
        total[mode] += row[mode][1]
    (n_off, off), (n_on, on) = row["OFF"], row["ON"]
    print("%-20s %3d sources %7.1f s   %2d batches %7.1f s   unity/sources %.2f" % (target, n_off, off, n_on, on, on / off))
print("%-20s %19.1f s   %10s %7.1f s   unity/sources %.2f" % ("all", total["OFF"], "", total["ON"], total["ON"] / total["OFF"]))
PY
