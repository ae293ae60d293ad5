#!/usr/bin/env bash
# energyctl sweep's own time per run (docs/PERFORMANCE.md "Sweep machinery"):
# on a simulated Orin Nano (static tree) with energyd, a sweep of `true`
# over gpu {min, max} x cpu {min, max} with --cooldown off and R repeats
# (4 x R runs) prints its own time per run: from one command's end to the
# next one's start, without the cooldown (mark.stop, sweep.add_run, the
# progress line, the next mark.start with its pin). The reference is
# `energyctl run --repeat 4R --cpu max --gpu max -- true`, whose runs are the same
# pinned mark.start + command + mark.stop without the sweep: the script
# prints both wall times per run and their ratio.
#
# Usage: bench/sweep_overhead.sh [R]   (default 25: 100 runs each)
# Builds a Release tree in BUILD_DIR (default build-bench); with SKIP_BUILD=1
# it uses the binaries already in BUILD_DIR as they are.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build-bench}"
R="${1:-25}"
[[ "$BUILD_DIR" = /* ]] || BUILD_DIR="$PWD/$BUILD_DIR"

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DENERGY_BUILD_TESTS=OFF >/dev/null
  cmake --build "$BUILD_DIR" -j"$(nproc)" --target energyd energyctl energyd-sim >/dev/null
fi

TMP="$(mktemp -d /tmp/energyd-sweep-bench-XXXXXX)"
DAEMON_PID=""
cleanup() {
  if [[ -n "$DAEMON_PID" ]]; then kill "$DAEMON_PID" 2>/dev/null || true; wait "$DAEMON_PID" 2>/dev/null || true; fi
  rm -rf "$TMP"
}
trap cleanup EXIT

CTL=("$BUILD_DIR/cli/energyctl" --socket "$TMP/energyd.sock")
"$BUILD_DIR/sim/energyd-sim" create --board jetson-orin-nano --l4t 36 --root "$TMP/board" >/dev/null
printf '# sweep overhead benchmark\nlog_level: warn\n' >"$TMP/energyd.yaml"
"$BUILD_DIR/daemon/energyd" --root "$TMP/board" --state-dir "$TMP/state" --socket "$TMP/energyd.sock" \
  --config "$TMP/energyd.yaml" >"$TMP/energyd.log" 2>&1 &
DAEMON_PID=$!
for _ in $(seq 200); do
  "${CTL[@]}" status >/dev/null 2>&1 && break
  sleep 0.05
done
"${CTL[@]}" status >/dev/null || { cat "$TMP/energyd.log" >&2; exit 1; }

RUNS=$((4 * R))
now() { date +%s.%N; }
t0=$(now)
"${CTL[@]}" sweep --gpu min,max --cpu min,max --repeat "$R" --cooldown off --seed 1 -- true >/dev/null 2>"$TMP/sweep.err"
t1=$(now)
"${CTL[@]}" run --repeat "$RUNS" --cpu max --gpu max --output /dev/null -- true 2>"$TMP/run.err"
t2=$(now)

own=$(sed -n 's/.*, \([0-9.]*\) ms of energyctl.s own time per run.*/\1/p' "$TMP/sweep.err")
[[ -n "$own" ]] || { cat "$TMP/sweep.err" >&2; exit 1; }
echo "sweep machinery, $RUNS runs of 'true' each, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
awk -v t0="$t0" -v t1="$t1" -v t2="$t2" -v n="$RUNS" -v own="$own" 'BEGIN {
  s = t1 - t0; r = t2 - t1
  printf "%-44s %10.1f ms\n", "sweep: energyctl own time per run", own
  printf "%-44s %10.1f ms\n", "sweep: wall time per run", 1000 * s / n
  printf "%-44s %10.1f ms\n", "reference (run --repeat, pinned): per run", 1000 * r / n
  printf "%-44s %10.2f\n", "ratio sweep / reference (wall per run)", s / r
}'
