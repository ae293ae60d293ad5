#!/usr/bin/env bash
# The main job, from a fresh clone: installs what is missing, builds, brings
# up a live simulated Jetson board (energyd-sim run: a FUSE-mounted sysfs
# whose power follows a model), starts energyd on it (no systemd, no system
# paths), and measures a study workload with energyctl: the idle board, then
# the same inference workload under the default governors (DVFS) and with
# the GPU pinned, side by side. Energy follows the work; the pinned run is
# slower and uses less energy per item.
#
# Without /dev/fuse it falls back to a static board tree (energyd-sim
# create), where power stays at the idle values, and says so.
#
# Environment: BOARD (default jetson-orin-nx), L4T (default 36), BUILD_DIR
# (default build), DEMO_DIR (default a fresh temporary directory), PRESET
# (gpu-bound, memory-bound or cpu-heavy; default gpu-bound), ITEMS (1600),
# BATCH (16), GPU_PIN (the pinned run's GPU clock, default 612MHz).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
BOARD="${BOARD:-jetson-orin-nx}"
L4T="${L4T:-36}"
DEMO_DIR="${DEMO_DIR:-$(mktemp -d /tmp/energyd-demo-XXXXXX)}"
PRESET="${PRESET:-gpu-bound}"
ITEMS="${ITEMS:-1600}"
BATCH="${BATCH:-16}"
GPU_PIN="${GPU_PIN:-612MHz}"

step() { printf '\n== %s\n' "$*"; }
die() { echo "demo.sh: error: $*" >&2; exit 1; }

# wait_for SOCKET PID LOG WHAT: until SOCKET exists (10 s), or PID exits.
wait_for() {
  for _ in $(seq 100); do
    [[ -S "$1" ]] && return 0
    kill -0 "$2" 2>/dev/null || { cat "$3" >&2; die "$4 exited"; }
    sleep 0.1
  done
  die "$4 did not open $1 within 10 s"
}

step "installing build dependencies (apt, only if missing)"
bash "$ROOT/scripts/install-deps.sh"

step "building energyd, energyctl and energyd-sim in $BUILD_DIR"
cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null || die "cmake configure failed"
cmake --build "$BUILD_DIR" -j"$(nproc)" --target energyd energyctl energyd-sim >/dev/null || die "build failed (run: cmake --build $BUILD_DIR)"

SIM="$BUILD_DIR/sim/energyd-sim"
ENERGYD="$BUILD_DIR/daemon/energyd"
ENERGYCTL="$BUILD_DIR/cli/energyctl"
SOCK="$DEMO_DIR/energyd.sock"
CONTROL="$DEMO_DIR/sim.ctl"
SIM_PID=""
DAEMON=""

cleanup() {
  [[ -n "$DAEMON" ]] && { kill -TERM "$DAEMON" 2>/dev/null; wait "$DAEMON" 2>/dev/null || true; }
  [[ -n "$SIM_PID" ]] && { kill -TERM "$SIM_PID" 2>/dev/null; wait "$SIM_PID" 2>/dev/null || true; }
}
trap cleanup EXIT

if [[ -r /dev/fuse && -w /dev/fuse ]]; then
  step "live simulated board: $BOARD, L4T $L4T, mounted on $DEMO_DIR/board (log: $DEMO_DIR/sim.log)"
  "$SIM" run --board "$BOARD" --l4t "$L4T" --cpu-load 0 --mount "$DEMO_DIR/board" --control "$CONTROL" >"$DEMO_DIR/sim.log" 2>&1 &
  SIM_PID=$!
  wait_for "$CONTROL" "$SIM_PID" "$DEMO_DIR/sim.log" "energyd-sim run"
else
  step "no /dev/fuse: static board tree $BOARD, L4T $L4T (power stays at idle) under $DEMO_DIR/board"
  "$SIM" create --board "$BOARD" --l4t "$L4T" --root "$DEMO_DIR/board" --force
fi

step "starting energyd (log: $DEMO_DIR/energyd.log)"
"$ENERGYD" --root "$DEMO_DIR/board" --state-dir "$DEMO_DIR/state" --socket "$SOCK" >"$DEMO_DIR/energyd.log" 2>&1 &
DAEMON=$!
wait_for "$SOCK" "$DAEMON" "$DEMO_DIR/energyd.log" "energyd"
"$ENERGYCTL" --socket "$SOCK" status

step "idle: 3 s baseline (reports then give idle and net energy)"
"$ENERGYCTL" --socket "$SOCK" baseline --duration 3s

if [[ -z "$SIM_PID" ]]; then
  step "marked workload on the static tree: 3 s of sleep"
  "$ENERGYCTL" --socket "$SOCK" run --name demo -- sleep 3
else
  WORK=("$SIM" workload --control "$CONTROL" --preset "$PRESET" --items "$ITEMS" --batch "$BATCH")
  step "$ITEMS items of the $PRESET workload, batch $BATCH, under the default governors (DVFS)"
  "$ENERGYCTL" --socket "$SOCK" run --name dvfs --tag preset="$PRESET" --items "$ITEMS" -- "${WORK[@]}"
  step "the same with the GPU pinned at $GPU_PIN (restored afterwards)"
  "$ENERGYCTL" --socket "$SOCK" run --name pinned --tag preset="$PRESET" --items "$ITEMS" --gpu "$GPU_PIN" -- "${WORK[@]}"
  step "side by side"
  "$ENERGYCTL" --socket "$SOCK" compare dvfs pinned
fi

step "stopping"
cleanup
DAEMON=""
SIM_PID=""
trap - EXIT
echo "done; the database is $DEMO_DIR/state/energyd.db"
