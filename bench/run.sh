#!/usr/bin/env bash
# Builds and runs the benchmarks behind docs/PERFORMANCE.md.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build-bench}"
bash "$ROOT/scripts/install-deps.sh"
cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DENERGY_BUILD_BENCH=ON -DENERGY_BUILD_TESTS=OFF >/dev/null
cmake --build "$BUILD_DIR" -j"$(nproc)" --target storage_bench
"$BUILD_DIR/bench/storage_bench" "$@"
