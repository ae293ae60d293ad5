#!/usr/bin/env bash
# System calls per tick of energyd's `sample` thread, by kind: the thread's
# share of the per-tick CPU that issue 16 compares with a minimal poller's
# one clock_nanosleep and its rail preads (docs/PERFORMANCE.md "Observer
# cost"). Starts ENERGYD on a static simulated tree (energyd-sim create),
# lets it settle 4 s, attaches `strace -c` to the `sample` thread for
# SECONDS and divides each count by the ticks energyd's status reports over
# the same window.
#
# Usage: bench/observer_syscalls.sh ENERGYD_SIM SECONDS ENERGYD [PERIOD_MS] [CONFIG]
#   PERIOD_MS: the sampling period (default 100); CONFIG: passed as --config.
#   OBS_BOARD="jetson-tx2 32" measures another board (default "jetson-orin-nano 36").
#   OBS_LIVE=1 runs the board live (energyd-sim run on a FUSE mount, CPU load
#   pinned at 0; needs /dev/fuse) rather than as static files: its residency
#   counters advance, so energyd takes clock residency from them (a static
#   tree's counters do not move, and energyd falls back to polling).
#   ENERGYCTL: the energyctl to read the ticks with (default: beside ENERGYD's
#   build, ../cli/energyctl).
#   OBS_ALLOCS=1 counts the thread's calls of libc's malloc, calloc, realloc
#   and free instead (uprobes through `perf probe` and `perf stat`; needs
#   perf and root): what the tick allocates (docs/PERFORMANCE.md "Pages a
#   tick touches").
# Needs strace and permission to trace (root, or ptrace_scope 0).
# Exits non-zero when energyd does not start or strace (perf) fails.
set -euo pipefail

NAME=observer_syscalls.sh
# shellcheck source=bench/observed_energyd.sh
source "$(dirname "${BASH_SOURCE[0]}")/observed_energyd.sh"
observed_args "$@"
if [[ -n "${OBS_ALLOCS:-}" ]]; then
  command -v perf >/dev/null || die "perf is not installed"
  LIBC="$(ldd "$ENERGYD" | awk '$1 == "libc.so.6" { print $3 }')"
  [[ -r "$LIBC" ]] || die "cannot find the libc $ENERGYD uses"
else
  command -v strace >/dev/null || die "strace is not installed"
fi

DIR="$(mktemp -d /var/tmp/energyd-syscalls-XXXXXX)"
PID=""
SIMPID=""
PROBES=()
cleanup() {
  for p in "${PROBES[@]}"; do perf probe -q -d "$p" 2>/dev/null || true; done
  [[ -n "$PID" ]] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
  if [[ -n "$SIMPID" ]]; then
    kill "$SIMPID" 2>/dev/null && wait "$SIMPID" 2>/dev/null
    mountpoint -q "$DIR/board" && fusermount3 -u -z "$DIR/board"
  fi
  rm -rf -- "$DIR"
}
trap cleanup EXIT

if [[ -n "${OBS_LIVE:-}" ]]; then
  mkdir "$DIR/board"
  "$SIM" run --board "$BOARD" --l4t "$L4T" --mount "$DIR/board" --control "$DIR/sim.ctl" --cpu-load 0 \
    >"$DIR/sim.log" 2>&1 &
  SIMPID=$!
  for _ in $(seq 150); do [[ -S "$DIR/sim.ctl" ]] && break; sleep 0.1; done
  [[ -S "$DIR/sim.ctl" ]] || die "energyd-sim run did not start: $(cat "$DIR/sim.log")"
else
  observed_static_tree "$DIR"
fi
observed_fast_monitors "$DIR"
observed_start "$DIR" "$DIR/s.sock"
TID=""
for t in /proc/"$PID"/task/*; do [[ "$(cat "$t/comm")" == sample ]] && TID="$(basename "$t")"; done
[[ -n "$TID" ]] || die "energyd has no 'sample' thread"

ticks() { observed_ticks "$DIR/s.sock"; }
if [[ -n "${OBS_ALLOCS:-}" ]]; then
  events=()
  for fn in malloc calloc realloc free; do
    perf probe -q -d "probe_libc:obs_$fn" 2>/dev/null || true  # one a killed run left
    perf probe -q -x "$LIBC" -a "obs_$fn=$fn" >/dev/null 2>&1 || die "perf probe cannot put a uprobe on $fn in $LIBC"
    PROBES+=("probe_libc:obs_$fn")
    events+=(-e "probe_libc:obs_$fn")
  done
  T0="$(ticks)"
  perf stat -x, "${events[@]}" -t "$TID" -o "$DIR/perf" -- sleep "$SECS" || die "perf stat failed"
  T1="$(ticks)"
  [[ -n "$T0" && -n "$T1" && "$T1" -gt "$T0" ]] || die "cannot read energyd's ticks (got '$T0' and '$T1')"
  echo "period ${PERIOD} ms, ${BOARD}${OBS_LIVE:+ (live)}, $((T1 - T0)) ticks in ${SECS} s: allocator calls per tick of the sample thread"
  awk -F, -v ticks="$((T1 - T0))" '$3 ~ /^probe_libc:obs_/ { name = $3; sub(/^probe_libc:obs_/, "", name)
    if ($1 !~ /^[0-9]+$/) { bad = 1; next }
    printf "  %-18s %6.2f\n", name, $1 / ticks; n++ }
    END { if (bad || n != 4) exit 1 }' "$DIR/perf" || die "perf stat counted no allocator calls: $(cat "$DIR/perf")"
  exit 0
fi
T0="$(ticks)"
timeout -s INT "$SECS" strace -c -qq -p "$TID" -o "$DIR/strace" || true
T1="$(ticks)"
[[ -n "$T0" && -n "$T1" && "$T1" -gt "$T0" ]] || die "cannot read energyd's ticks (got '$T0' and '$T1')"
[[ -s "$DIR/strace" ]] || die "strace wrote nothing"
echo "period ${PERIOD} ms, ${BOARD}${OBS_LIVE:+ (live)}, $((T1 - T0)) ticks in ${SECS} s: system calls per tick of the sample thread"
awk -v ticks="$((T1 - T0))" '
  $1 ~ /^[0-9.]+$/ && NF >= 5 && $NF != "total" { name = $NF; calls = $4; all += calls
                                printf "  %-18s %6.2f\n", name, calls / ticks }
  END { printf "  %-18s %6.2f\n", "all", all / ticks }' "$DIR/strace"
