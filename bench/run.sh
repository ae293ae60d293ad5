#!/usr/bin/env bash
# Builds (Release) and runs the benchmarks behind docs/PERFORMANCE.md.
# Usage: bench/run.sh [storage|context|daemon|accuracy|all] [BENCH ARGS...]
#   storage  bench/storage_bench (Google Benchmark): raw and tier sizes, chunking, queries
#   context  bench/context_bench (Google Benchmark): clock and thermal polls, context rows, residency
#   daemon   bench/daemon_bench: the whole energyd on simulated boards (CPU per tick,
#            lateness idle and with every core busy, RSS, bytes written); ~6 min
#   accuracy bench/accuracy_bench: run energy against the simulator's exact ground truth
#            (error, error bound, right-rectangle sum) on a live FUSE board; ~15-20 min;
#            needs /dev/fuse (root, or fusermount3)
#   observer bench/observer_bench: energyd against a floor poller on the same tree (CPU per
#            tick, wake-ups per second, bytes written per day, RSS; issue 16); ~5 min;
#            its options follow (--board, --period, --config FILE, --control for a second
#            floor in energyd's place beside each row, ~10 min, --short, --out FILE,
#            --tmpdir DIR for energyd's state on a file system of 4 KiB folios)
#   all      storage, context and daemon (default; accuracy and observer only when asked for)
# The mark round trip has its own script: bench/run_mark_roundtrip.sh.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build-bench}"
WHAT="${1:-all}"
[[ $# -gt 0 ]] && shift
case "$WHAT" in
  storage | context | daemon | accuracy | observer | all) ;;
  *) echo "bench/run.sh: unknown benchmark '$WHAT' (storage, context, daemon, accuracy, observer or all)" >&2; exit 2 ;;
esac
bash "$ROOT/scripts/install-deps.sh"
cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DENERGY_BUILD_BENCH=ON -DENERGY_BUILD_TESTS=OFF >/dev/null
cmake --build "$BUILD_DIR" -j"$(nproc)" --target storage_bench context_bench daemon_bench accuracy_bench observer_bench
if [[ "$WHAT" == storage || "$WHAT" == all ]]; then "$BUILD_DIR/bench/storage_bench" "$@"; fi
if [[ "$WHAT" == context || "$WHAT" == all ]]; then "$BUILD_DIR/bench/context_bench" "$@"; fi
if [[ "$WHAT" == daemon || "$WHAT" == all ]]; then "$BUILD_DIR/bench/daemon_bench" "$@"; fi
if [[ "$WHAT" == accuracy ]]; then "$BUILD_DIR/bench/accuracy_bench" "$@"; fi
if [[ "$WHAT" == observer ]]; then "$BUILD_DIR/bench/observer_bench" "$@"; fi
