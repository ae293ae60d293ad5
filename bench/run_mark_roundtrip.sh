#!/usr/bin/env bash
# Mark round trip p50/p99 (docs/PERFORMANCE.md): starts a simulated board
# (static tree) and energyd on it, then times N marks each through a fresh
# energyctl process, the C++ client and the Python client.
#
# Usage: bench/run_mark_roundtrip.sh [N]   (default 200)
# Builds a Release tree in BUILD_DIR (default build-bench); with SKIP_BUILD=1
# it uses the binaries already in BUILD_DIR as they are. MARK_LIVE=1 runs
# the board live (energyd-sim run on a FUSE mount, CPU load 0; needs
# /dev/fuse): its residency counters advance, so the marks' polls read them
# as on a board. SIM and ENERGYD: the simulator and the daemon to use
# (default BUILD_DIR's), so two daemons can be timed with one bench build.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build-bench}"
N="${1:-200}"
[[ "$BUILD_DIR" = /* ]] || BUILD_DIR="$PWD/$BUILD_DIR"

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DENERGY_BUILD_BENCH=ON -DENERGY_BUILD_TESTS=OFF >/dev/null
  cmake --build "$BUILD_DIR" -j"$(nproc)" --target mark_roundtrip energyd energyctl energyd-sim >/dev/null
fi

SIM="${SIM:-$BUILD_DIR/sim/energyd-sim}"
ENERGYD="${ENERGYD:-$BUILD_DIR/daemon/energyd}"
TMP="$(mktemp -d /tmp/energyd-mark-bench-XXXXXX)"
DAEMON_PID=""
SIM_PID=""
cleanup() {
  if [[ -n "$DAEMON_PID" ]]; then kill "$DAEMON_PID" 2>/dev/null || true; wait "$DAEMON_PID" 2>/dev/null || true; fi
  if [[ -n "$SIM_PID" ]]; then
    kill "$SIM_PID" 2>/dev/null || true
    wait "$SIM_PID" 2>/dev/null || true
    if mountpoint -q "$TMP/board"; then fusermount3 -u -z "$TMP/board" || true; fi
  fi
  rm -rf "$TMP"
}
trap cleanup EXIT

if [[ "${MARK_LIVE:-0}" = 1 ]]; then
  mkdir "$TMP/board"
  "$SIM" run --board jetson-orin-nano --l4t 36 --mount "$TMP/board" --control "$TMP/sim.ctl" --cpu-load 0 \
    >"$TMP/sim.log" 2>&1 &
  SIM_PID=$!
  for _ in $(seq 150); do [[ -S "$TMP/sim.ctl" ]] && break; sleep 0.1; done
  [[ -S "$TMP/sim.ctl" ]] || { echo "energyd-sim run did not start: $(cat "$TMP/sim.log")" >&2; exit 1; }
else
  "$SIM" create --board jetson-orin-nano --l4t 36 --root "$TMP/board" >/dev/null
fi
printf '# mark round-trip benchmark\nlog_level: warn\n' >"$TMP/energyd.yaml"
"$ENERGYD" --root "$TMP/board" --state-dir "$TMP/state" --socket "$TMP/energyd.sock" \
  --config "$TMP/energyd.yaml" >"$TMP/energyd.log" 2>&1 &
DAEMON_PID=$!
for _ in $(seq 200); do
  "$BUILD_DIR/cli/energyctl" --socket "$TMP/energyd.sock" status >/dev/null 2>&1 && break
  sleep 0.05
done
"$BUILD_DIR/cli/energyctl" --socket "$TMP/energyd.sock" status >/dev/null || { cat "$TMP/energyd.log" >&2; exit 1; }

{
  "$BUILD_DIR/bench/mark_roundtrip" --socket "$TMP/energyd.sock" --energyctl "$BUILD_DIR/cli/energyctl" --n "$N"
  python3 "$ROOT/bench/mark_roundtrip.py" --socket "$TMP/energyd.sock" --n "$N"
} >"$TMP/rows"

echo "mark round trip, $N marks per case${MARK_LIVE:+ (live board)}, state dir on $(df -P "$TMP" | awk 'NR==2 {print $1}'), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-24s %6s %10s %10s %10s\n' CASE N "P50 ms" "P99 ms" "MAX ms"
while read -r name n p50 p99 max; do
  printf '%-24s %6s %10s %10s %10s\n' "$name" "$n" "$p50" "$p99" "$max"
done <"$TMP/rows"
