#!/usr/bin/env bash
# Mark round trip p50/p99 (docs/PERFORMANCE.md): starts a simulated board
# (static tree) and energyd on it, then times N marks each through a fresh
# energyctl process, the C++ client and the Python client.
#
# Usage: bench/run_mark_roundtrip.sh [N]   (default 200)
# Builds a Release tree in BUILD_DIR (default build-bench); with SKIP_BUILD=1
# it uses the binaries already in BUILD_DIR as they are.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build-bench}"
N="${1:-200}"
[[ "$BUILD_DIR" = /* ]] || BUILD_DIR="$PWD/$BUILD_DIR"

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DENERGY_BUILD_BENCH=ON -DENERGY_BUILD_TESTS=OFF >/dev/null
  cmake --build "$BUILD_DIR" -j"$(nproc)" --target mark_roundtrip energyd energyctl energyd-sim >/dev/null
fi

TMP="$(mktemp -d /tmp/energyd-mark-bench-XXXXXX)"
DAEMON_PID=""
cleanup() {
  if [[ -n "$DAEMON_PID" ]]; then kill "$DAEMON_PID" 2>/dev/null || true; wait "$DAEMON_PID" 2>/dev/null || true; fi
  rm -rf "$TMP"
}
trap cleanup EXIT

"$BUILD_DIR/sim/energyd-sim" create --board jetson-orin-nano --l4t 36 --root "$TMP/board" >/dev/null
printf '# mark round-trip benchmark\nlog_level: warn\n' >"$TMP/energyd.yaml"
"$BUILD_DIR/daemon/energyd" --root "$TMP/board" --state-dir "$TMP/state" --socket "$TMP/energyd.sock" \
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

echo "mark round trip, $N marks per case, state dir on $(df -P "$TMP" | awk 'NR==2 {print $1}'), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-24s %6s %10s %10s %10s\n' CASE N "P50 ms" "P99 ms" "MAX ms"
while read -r name n p50 p99 max; do
  printf '%-24s %6s %10s %10s %10s\n' "$name" "$n" "$p50" "$p99" "$max"
done <"$TMP/rows"
