#!/usr/bin/env bash
# The main job, from a fresh clone: installs what is missing, builds, brings
# up a simulated Jetson board, starts energyd on it (no systemd, no system
# paths), runs a short marked workload with energyctl and prints its energy
# per rail and in total.
#
# Environment: BOARD (default jetson-orin-nano), L4T (default 36),
# BUILD_DIR (default build), DEMO_DIR (default a fresh temporary directory),
# WORKLOAD (default: 3 s of CPU work).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
BOARD="${BOARD:-jetson-orin-nano}"
L4T="${L4T:-36}"
DEMO_DIR="${DEMO_DIR:-$(mktemp -d /tmp/energyd-demo-XXXXXX)}"
WORKLOAD="${WORKLOAD:-timeout 3 sh -c 'while :; do :; done' || true}"

step() { printf '\n== %s\n' "$*"; }
die() { echo "demo.sh: error: $*" >&2; exit 1; }

step "installing build dependencies (apt, only if missing)"
bash "$ROOT/scripts/install-deps.sh"

step "building energyd, energyctl and energyd-sim in $BUILD_DIR"
cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null || die "cmake configure failed"
cmake --build "$BUILD_DIR" -j"$(nproc)" --target energyd energyctl energyd-sim >/dev/null || die "build failed (run: cmake --build $BUILD_DIR)"

SIM="$BUILD_DIR/sim/energyd-sim"
ENERGYD="$BUILD_DIR/daemon/energyd"
ENERGYCTL="$BUILD_DIR/cli/energyctl"
SOCK="$DEMO_DIR/energyd.sock"

step "simulated board: $BOARD, L4T $L4T, under $DEMO_DIR/board"
"$SIM" create --board "$BOARD" --l4t "$L4T" --root "$DEMO_DIR/board" --force

step "starting energyd (log: $DEMO_DIR/energyd.log)"
"$ENERGYD" --root "$DEMO_DIR/board" --state-dir "$DEMO_DIR/state" --socket "$SOCK" >"$DEMO_DIR/energyd.log" 2>&1 &
DAEMON=$!
trap 'kill $DAEMON 2>/dev/null; wait $DAEMON 2>/dev/null || true' EXIT
for _ in $(seq 100); do
  [[ -S "$SOCK" ]] && break
  kill -0 $DAEMON 2>/dev/null || { cat "$DEMO_DIR/energyd.log" >&2; die "energyd exited"; }
  sleep 0.1
done
[[ -S "$SOCK" ]] || die "energyd did not open $SOCK within 10 s"

"$ENERGYCTL" --socket "$SOCK" status

step "marked workload: $WORKLOAD"
"$ENERGYCTL" --socket "$SOCK" mark start demo --tag kind=demo
bash -c "$WORKLOAD"
step "energy of the run"
"$ENERGYCTL" --socket "$SOCK" mark stop demo

step "stopping energyd"
kill -TERM $DAEMON
wait $DAEMON
trap - EXIT
echo "done; the database is $DEMO_DIR/state/energyd.db"
