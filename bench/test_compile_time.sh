#!/usr/bin/env bash
# CPU time to compile test sources at -O2, -O1 and -Og (the figures behind
# ENERGY_TEST_CXX_FLAGS in docs/HACKING.md). Each source is compiled with
# its own command from BUILD_DIR/compile_commands.json, the optimisation
# flag appended (the last -O wins), into a temporary object; user+system
# CPU seconds are printed per source and flag.
#
# Usage: bench/test_compile_time.sh BUILD_DIR SOURCE_SUFFIX...
#   e.g. bench/test_compile_time.sh build tests/integration/kill_test.cpp tests/libenergy/store_test.cpp
set -euo pipefail
(($# >= 2)) || { echo "usage: $0 BUILD_DIR SOURCE_SUFFIX..." >&2; exit 2; }
BUILD_DIR="$1"
shift
[[ -f "$BUILD_DIR/compile_commands.json" ]] || { echo "test_compile_time.sh: error: no $BUILD_DIR/compile_commands.json" >&2; exit 2; }
command -v python3 >/dev/null || { echo "test_compile_time.sh: error: python3 is missing" >&2; exit 2; }
python3 - "$BUILD_DIR/compile_commands.json" "$@" <<'PY'
import json, os, resource, shlex, subprocess, sys, tempfile
entries = json.load(open(sys.argv[1]))
with tempfile.TemporaryDirectory() as tmp:
    obj = os.path.join(tmp, "x.o")
    for suffix in sys.argv[2:]:
        match = [e for e in entries if e["file"].endswith(suffix)]
        if len(match) != 1:
            sys.exit("test_compile_time.sh: error: %d sources end with '%s'" % (len(match), suffix))
        e = match[0]
        args = [a for a in shlex.split(e["command"]) if a != "ccache"]
        args[args.index("-o") + 1] = obj
        row = []
        for flag in ("-O2", "-O1", "-Og"):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            subprocess.run(args + [flag], cwd=e["directory"], check=True)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            row.append("%s %.1f s" % (flag, cpu))
        print("%s: %s" % (suffix, ", ".join(row)))
PY
