#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, -DENERGY_FUZZ=ON) with Debian's
# clang 14 under ASan+UBSan and runs each for a bounded time over a copy of
# its seed corpus (fuzz/corpus/<target>/, with fuzz/<target>.dict). Only the
# fuzz targets and the libraries they link are built: no tests, no simulator.
#
# Any finding (crash, sanitizer report, leak, timeout, out-of-memory, a broken
# property) fails the script; the input is printed as a hexdump and base64
# with the command that reproduces it. The repository is never modified: the
# corpus is copied to a temp directory and the inputs found are dropped.
#
# Usage: scripts/ci-fuzz.sh [TARGET...]   (default: every target)
# Environment:
#   FUZZ_BUILD_DIR  build directory (default build-fuzz/ in the repo root; a
#                   relative path is taken relative to the repo root)
#   FUZZ_SECONDS    run time per target (default 60)
#   FUZZ_JOBS       targets fuzzed at a time (default: the number of cores)
#   FUZZ_CXX        the clang++ to build with (default clang++-14)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT
cd "$ROOT"
BUILD_DIR="${FUZZ_BUILD_DIR:-build-fuzz}"
SECONDS_PER_TARGET="${FUZZ_SECONDS:-60}"
JOBS="${FUZZ_JOBS:-$(nproc)}"
CXX_BIN="${FUZZ_CXX:-clang++-14}"
ALL_TARGETS=(fuzz_frames fuzz_config fuzz_sysfs_values fuzz_chunks)
readonly BUILD_DIR SECONDS_PER_TARGET JOBS CXX_BIN ALL_TARGETS

die() { echo "ci-fuzz.sh: error: $*" >&2; exit 1; }
banner() { printf '\n== fuzz (libFuzzer, ASan+UBSan): %s\n' "$*"; }

phase_start=$SECONDS
phase_done() { echo "-- $1 took $((SECONDS - phase_start)) s"; phase_start=$SECONDS; }

[[ "$SECONDS_PER_TARGET" =~ ^[1-9][0-9]*$ ]] || die "FUZZ_SECONDS must be a positive integer (got '$SECONDS_PER_TARGET')"
[[ "$JOBS" =~ ^[1-9][0-9]*$ ]] || die "FUZZ_JOBS must be a positive integer (got '$JOBS')"
TARGETS=("$@")
((${#TARGETS[@]})) || TARGETS=("${ALL_TARGETS[@]}")
for t in "${TARGETS[@]}"; do
  [[ " ${ALL_TARGETS[*]} " == *" $t "* ]] || die "unknown target '$t' (targets: ${ALL_TARGETS[*]})"
done

banner "installing dependencies (clang-14, libclang-rt-14-dev: libFuzzer and the sanitizer runtimes)"
bash "$ROOT/scripts/install-deps.sh" clang-14 libclang-rt-14-dev || die "scripts/install-deps.sh failed"
command -v "$CXX_BIN" >/dev/null || die "$CXX_BIN not found after installing clang-14"
phase_done "dependencies"

banner "configuring $BUILD_DIR ($("$CXX_BIN" --version | head -n1))"
# -O1 -g keeps assertions (no NDEBUG) and readable stacks at a useful speed.
# Warnings are not errors here: the gcc legs enforce -Werror, and a warning
# only clang gives must not stop the fuzzing (it is still printed).
cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_CXX_COMPILER="$CXX_BIN" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" \
  -DENERGY_FUZZ=ON -DENERGY_WERROR=OFF -DENERGY_BUILD_TESTS=OFF -DENERGY_BUILD_SIM=OFF \
  -DENERGY_BUILD_BENCH=OFF >/dev/null || die "CMake configure failed (build dir: $BUILD_DIR)"
phase_done "configure"

banner "building ${TARGETS[*]} with -j$(nproc)"
cmake --build "$BUILD_DIR" -j "$(nproc)" --target "${TARGETS[@]}" || die "build failed (build dir: $BUILD_DIR)"
phase_done "build"

WORK="$(mktemp -d -t energyd-fuzz.XXXXXX)"
readonly WORK
trap 'rm -rf -- "$WORK"' EXIT

# Prints every input libFuzzer saved for a finding, and how to replay it.
show_findings() {
  local target="$1" dir="$2" bin="$3" found=0 f
  for f in "$dir"/crash-* "$dir"/leak-* "$dir"/timeout-* "$dir"/oom-* "$dir"/slow-unit-*; do
    [[ -f "$f" ]] || continue
    found=1
    echo "---- $target: $(basename "$f") ($(stat -c %s "$f") bytes)"
    echo "hexdump (first 1024 bytes):"
    head -c 1024 "$f" | od -A x -t x1z -v
    echo "base64:"
    base64 -w 76 "$f"
    echo "reproduce:"
    echo "  echo '$(base64 -w0 "$f")' | base64 -d > input"
    echo "  scripts/ci-fuzz.sh $target   # once, to build $bin"
    echo "  $bin input"
  done
  ((found)) || echo "---- $target: no input saved (see the log above)"
}

# Runs one target; 0 when it ran the whole time without a finding.
run_target() {
  local target="$1"
  local bin="$BUILD_DIR/fuzz/$target" dir="$WORK/$target"
  [[ -x "$bin" ]] || die "$bin was not built"
  mkdir -p "$dir/corpus" "$dir/tmp"
  cp -r "$ROOT/fuzz/corpus/$target/." "$dir/corpus/"
  local seeds
  seeds="$(find "$dir/corpus" -type f | wc -l)"
  banner "$target: ${SECONDS_PER_TARGET} s over $seeds seeds"
  local rc=0
  # libFuzzer stops itself after max_total_time; timeout(1) is the backstop.
  TMPDIR="$dir/tmp" \
    ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=0" \
    UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
    timeout --kill-after=30 "$((SECONDS_PER_TARGET + 120))" \
    "$bin" -max_total_time="$SECONDS_PER_TARGET" -rss_limit_mb=2048 -malloc_limit_mb=1024 -timeout=10 \
    -max_len=8192 -dict="$ROOT/fuzz/$target.dict" -artifact_prefix="$dir/" -print_final_stats=1 \
    "$dir/corpus" >"$dir/log" 2>&1 || rc=$?
  # The log without libFuzzer's line per new input.
  grep -v -E '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse)' "$dir/log" || true
  if ((rc != 0)); then
    echo "ci-fuzz.sh: $target FAILED (exit status $rc)" >&2
    show_findings "$target" "$dir" "$bin"
    return 1
  fi
  echo "ci-fuzz.sh: $target clean: corpus grew from $seeds to $(find "$dir/corpus" -type f | wc -l) inputs"
}

# libFuzzer fuzzes in one process on one core: FUZZ_JOBS targets at a time,
# each still with a whole core for its FUZZ_SECONDS (nothing else runs in
# CI meanwhile), so the leg takes half the time on two cores. Each target's
# output is kept and printed whole, in order, once its batch has ended.
failed=()
run_batch() {
  local t pids=() i targets=("$@")
  for t in "$@"; do
    run_target "$t" >"$WORK/$t.out" 2>&1 &
    pids+=($!)
  done
  for i in "${!pids[@]}"; do
    t="${targets[$i]}"
    wait "${pids[$i]}" || failed+=("$t")
    cat "$WORK/$t.out"
  done
  phase_done "$*"
}
for ((i = 0; i < ${#TARGETS[@]}; i += JOBS)); do
  run_batch "${TARGETS[@]:i:JOBS}"
done

if ((${#failed[@]})); then
  die "findings in: ${failed[*]} (inputs and reproduction above)"
fi
banner "OK: ${TARGETS[*]} ran ${SECONDS_PER_TARGET} s each without a finding"
