#!/bin/bash
# What the parts of energyd's tick cost at 100 ms (issue 16;
# docs/PERFORMANCE.md "What a tick's parts cost").
#
# Builds energyd with bench/patches/energyd-skip-parts.patch in a worktree
# of this checkout's HEAD, then runs observer_bench against the floor with
# parts of every tick left out, by the bits of ENERGYD_BENCH_SKIP (1 the
# context poller's nudge, 2 the writer's queue and energy counters, 4 the
# sampler's statistics, 8 the stall timer's re-arm, 16 the rail reads, 32
# the read path's bookkeeping: the bare sweep, rails read back to back
# without the hand-over's stall lock, clock reads, read times and error
# texts, and without the stall timer; 64 the clock poll's own work: the
# bare clock poll, each clock domain's frequency file read on the sweep
# and nothing else, no thermal or governor reads, with the context
# poller's thread then polling on its own timer too, so that only the
# `sample` thread's column measures it), each setting once per round, the
# settings alternated. By default:
#   0   nothing left out;
#   7   the context poller's nudge, the writer's queue and energy counters,
#       the sampler's statistics (left: the wait, the stall timer, the
#       reads, the sweep ring's put);
#   15  and the stall timer's re-arm;
#   31  and the rail reads (left: the wait and the ring's put).
# The clock and thermal polls are off in every run (clock_poll_ms: 0,
# thermal_poll_ms: 0), as they are a part of their own (observer_bench
# --config); OBS_PARTS_CONTEXT=1 keeps them at energyd's defaults (then bit
# 1 leaves out the clock and thermal reads with the nudge).
# OBS_PARTS_PERIOD (100, 10 or 1; default 100) is the sampling period in ms.
# OBS_PARTS_BESIDE=1 runs observer_bench with --beside: the floor of
# energyd's features in the same windows, one line a run after the table.
# A measurement build only: the patched energyd records nothing correctly
# with bits 2, 4, 32 or 64 set.
#
# Usage: bench/observer_parts.sh [BUILD_DIR] [ROUNDS] [SETTINGS]
#   BUILD_DIR: a configured build of this tree with observer_bench built
#   (default: build); ROUNDS: default 2; SETTINGS: the values of
#   ENERGYD_BENCH_SKIP to run, in one word separated by blanks (default
#   "0 7 15 31"), each 0-127.
# Prints one Markdown row per run (the observer_bench row, prefixed by the
# setting), and with OBS_PARTS_BESIDE=1 each run's line on the features'
# floor after the table. Exit status 1 when the patch does not apply or a build or a run
# fails.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
rounds=${2:-2}
settings=${3:-0 7 15 31}
case $rounds in '' | *[!0-9]*) echo "observer_parts: ROUNDS '$rounds' is not a whole number" >&2; exit 2 ;; esac
read -r -a setting_list <<<"$settings"
[ ${#setting_list[@]} -gt 0 ] || { echo "observer_parts: SETTINGS is empty" >&2; exit 2; }
for bits in "${setting_list[@]}"; do
  case $bits in
    '' | *[!0-9]*) echo "observer_parts: setting '$bits' is not a whole number from 0 to 127" >&2; exit 2 ;;
  esac
  [ "$bits" -le 127 ] || { echo "observer_parts: setting '$bits' is not a whole number from 0 to 127" >&2; exit 2; }
done
context=${OBS_PARTS_CONTEXT:-0}
case $context in 0 | 1) ;; *) echo "observer_parts: OBS_PARTS_CONTEXT must be 0 or 1, got '$context'" >&2; exit 2 ;; esac
period=${OBS_PARTS_PERIOD:-100}
case $period in 100 | 10 | 1) ;; *) echo "observer_parts: OBS_PARTS_PERIOD must be 100, 10 or 1, got '$period'" >&2; exit 2 ;; esac
beside=${OBS_PARTS_BESIDE:-0}
case $beside in 0 | 1) ;; *) echo "observer_parts: OBS_PARTS_BESIDE must be 0 or 1, got '$beside'" >&2; exit 2 ;; esac
beside_args=()
[ "$beside" = 0 ] || beside_args=(--beside)
bench=$build/bench/observer_bench
[ -x "$bench" ] || { echo "observer_parts: no $bench: build observer_bench first" >&2; exit 1; }

work=$(mktemp -d /var/tmp/energyd-parts-XXXXXX)
cleanup() {
  git -C "$here" worktree remove --force "$work/src" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

git -C "$here" worktree add --detach "$work/src" HEAD >/dev/null
git -C "$work/src" apply "$here/bench/patches/energyd-skip-parts.patch"
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
echo "observer_parts: building the patched energyd in $work" >&2
cmake -S "$work/src" -B "$work/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DENERGY_BUILD_TESTS=OFF \
  -DENERGY_BUILD_BENCH=OFF "${launcher[@]}" >"$work/cmake.log"
make -C "$work/build" -j"$(nproc)" energyd >"$work/make.log" 2>&1 || { tail -20 "$work/make.log" >&2; exit 1; }

config_args=()
if [ "$context" = 0 ]; then
  printf 'clock_poll_ms: 0\nthermal_poll_ms: 0\n' >"$work/context-off.yaml"
  config_args=(--config "$work/context-off.yaml")
fi
echo "| skipped (ENERGYD_BENCH_SKIP) | board | rails | period | ticks energyd / floor | window | CPU/tick energyd | floor | energyd/floor | median of windows (min-max) | \`sample\` thread / floor | wake-ups/s energyd | floor | energyd/floor | written/day (wchar) | RSS (peak) | pages/tick energyd (exe heap anon other) | floor |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
besides=()
for ((r = 1; r <= rounds; r++)); do
  for bits in "${setting_list[@]}"; do
    echo "observer_parts: round $r, ENERGYD_BENCH_SKIP=$bits" >&2
    out=$(ENERGYD_BENCH_SKIP=$bits "$bench" --board orin-nano --period "$period" "${config_args[@]}" \
      "${beside_args[@]}" --energyd "$work/build/daemon/energyd") || { echo "$out" >&2; exit 1; }
    row=$(grep '^| orin-nano' <<<"$out")
    echo "| $bits $row"
    if [ "$beside" = 1 ]; then
      line=$(grep 'beside energyd and the floor' <<<"$out") || { echo "$out" >&2; exit 1; }
      besides+=("round $r, setting $bits: $line")
    fi
  done
done
[ ${#besides[@]} -eq 0 ] || { echo; printf '%s\n' "${besides[@]}"; }
