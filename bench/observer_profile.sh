#!/usr/bin/env bash
# Where energyd's CPU a tick goes beyond the floor of its features, by
# kernel and user space (issue 16; docs/PERFORMANCE.md "Kernel or user
# space"). Starts ENERGYD on a static simulated tree (energyd-sim create),
# lets it settle 4 s, then runs bench/observer_floor with --timerfd --rearm
# on the files energyd reads every tick (its rails' *_input files and the
# clock domains' cur_freq, scaling_cur_freq and rate files, taken from
# /proc/PID/fd) beside it, and samples both with `perf record -e cpu-clock`
# (one sample every PROFILE_US microseconds on CPU, default 5) for SECONDS
# in the same window.
#
# Prints, for each of energyd's threads that was sampled, for energyd in
# all and for the floor: the samples in the kernel and in user space, as
# microseconds a tick (samples x PROFILE_US / ticks, where ticks = SECONDS x
# 1000 / PERIOD_MS for both), then the user-space functions of the `sample`
# thread that took at least 0.5% of its samples. Sampling every few
# microseconds inflates both processes' time (each sample interrupts the
# thread, and on a virtual machine leaves its caches and TLB colder), so
# compare the two processes' columns with each other, not with
# observer_bench's figures.
#
# Usage: bench/observer_profile.sh ENERGYD_SIM SECONDS ENERGYD [PERIOD_MS] [CONFIG]
#   OBS_BOARD="jetson-tx2 32" measures another board (default "jetson-orin-nano 36").
#   PROFILE_US: the sampling interval in microseconds of CPU time (1-1000, default 5).
#   PROFILE_KEEP=DIR copies both perf.data files there.
# Needs perf and permission to profile (root, or perf_event_paranoid <= 1).
# Exits non-zero when energyd or the floor does not start, or perf fails.
set -euo pipefail

NAME=observer_profile.sh
# shellcheck source=bench/observed_energyd.sh
source "$(dirname "${BASH_SOURCE[0]}")/observed_energyd.sh"
observed_args "$@"
US="${PROFILE_US:-5}"
[[ "$US" =~ ^[1-9][0-9]*$ && "$US" -le 1000 ]] || die "PROFILE_US must be a whole number 1-1000, got '$US'"
command -v perf >/dev/null || die "perf is not installed (Debian: linux-perf)"
FLOOR="${OBS_FLOOR:-$(dirname "$ENERGYD")/../bench/observer_floor}"
[[ -x "$FLOOR" ]] || die "no observer_floor at $FLOOR (set OBS_FLOOR, or build with -DENERGY_BUILD_BENCH=ON)"

DIR="$(mktemp -d /var/tmp/energyd-profile-XXXXXX)"
PID=""
FPID=""
cleanup() {
  [[ -n "$FPID" ]] && kill "$FPID" 2>/dev/null && wait "$FPID" 2>/dev/null
  [[ -n "$PID" ]] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
  rm -rf -- "$DIR"
}
trap cleanup EXIT

observed_static_tree "$DIR"
observed_fast_monitors "$DIR"
observed_start "$DIR" "$DIR/s.sock"

# The files a tick reads: the rails' and, on a static tree (whose residency
# counters do not advance, so energyd polls every domain), each clock
# domain's current frequency.
mapfile -t FILES < <(for fd in /proc/"$PID"/fd/*; do readlink "$fd" || true; done |
  grep -E '/(in|curr|in_[a-z]+[0-9]+)_?[0-9]*_input$|/(scaling_)?cur_freq$|/clk/[^/]+/rate$' | sort -u)
((${#FILES[@]} > 0)) || die "energyd has none of its rail or clock files open"

TICKS=$((SECS * 1000 / PERIOD))
((TICKS > 0)) || die "SECONDS x 1000 / PERIOD_MS must be at least one tick"
# The floor runs about 3 s longer than perf: 1 s before it and some after.
"$FLOOR" --timerfd --rearm "$((PERIOD * 1000))" "$((TICKS + 3 * 1000 / PERIOD + 2))" "${FILES[@]}" \
  >"$DIR/floor.out" 2>&1 &
FPID=$!
sleep 1
kill -0 "$FPID" 2>/dev/null || die "observer_floor did not start: $(cat "$DIR/floor.out")"

PERIOD_NS=$((US * 1000))
perf record -q -e cpu-clock -c "$PERIOD_NS" -p "$FPID" -o "$DIR/floor.data" -- sleep "$SECS" \
  >"$DIR/perf-floor.log" 2>&1 &
PERF_FLOOR=$!
perf record -q -e cpu-clock -c "$PERIOD_NS" -p "$PID" -o "$DIR/energyd.data" -- sleep "$SECS" \
  >"$DIR/perf-energyd.log" 2>&1 || die "perf record failed on energyd: $(cat "$DIR/perf-energyd.log")"
wait "$PERF_FLOOR" || die "perf record failed on the floor: $(cat "$DIR/perf-floor.log")"
if [[ -n "${PROFILE_KEEP:-}" ]]; then
  mkdir -p "$PROFILE_KEEP" || die "cannot make $PROFILE_KEEP"
  cp "$DIR/energyd.data" "$DIR/floor.data" "$PROFILE_KEEP/" || die "cannot copy the profiles to $PROFILE_KEEP"
fi

# comm, kernel or user, samples.
split() {
  perf report -i "$1" --sort comm,dso --stdio -F comm,dso,sample 2>/dev/null |
    awk '!/^#/ && NF >= 3 { where = ($2 == "[kernel.kallsyms]" || $2 ~ /^\[guest/) ? "kernel" : "user"
           n[$1 " " where] += $NF }
         END { for (k in n) print k, n[k] }'
}
split "$DIR/energyd.data" >"$DIR/energyd.split"
split "$DIR/floor.data" >"$DIR/floor.split"
[[ -s "$DIR/energyd.split" && -s "$DIR/floor.split" ]] || die "perf report found no samples"

echo "period ${PERIOD} ms, ${BOARD}, ${SECS} s (${TICKS} ticks), a sample every ${US} us on CPU;" \
  "the floor reads ${#FILES[@]} files a tick"
echo "us a tick (inflated by the sampling)   kernel     user    all"
awk -v us="$US" -v ticks="$TICKS" '
  { e[$1 " " $2] += $3; t[$1] = 1 }
  END { for (c in t) printf "  energyd %-28s %7.1f %8.1f %6.1f\n", c, e[c " kernel"] * us / ticks,
          e[c " user"] * us / ticks, (e[c " kernel"] + e[c " user"]) * us / ticks }' "$DIR/energyd.split" | sort
awk -v us="$US" -v ticks="$TICKS" '
  FILENAME == ARGV[2] { f[$2] += $3; next }
  { all[$2] += $3 }
  END {
    printf "  %-36s %7.1f %8.1f %6.1f\n", "energyd, all threads", all["kernel"] * us / ticks,
      all["user"] * us / ticks, (all["kernel"] + all["user"]) * us / ticks
    printf "  %-36s %7.1f %8.1f %6.1f\n", "the floor of its features", f["kernel"] * us / ticks,
      f["user"] * us / ticks, (f["kernel"] + f["user"]) * us / ticks
    if (f["kernel"] > 0 && f["user"] > 0)
      printf "  energyd / floor: kernel %.2f, user %.2f, all %.2f\n", all["kernel"] / f["kernel"],
        all["user"] / f["user"], (all["kernel"] + all["user"]) / (f["kernel"] + f["user"])
  }' "$DIR/energyd.split" "$DIR/floor.split"
echo "the sample thread's user-space functions (share of its samples, at least 0.5%)"
perf report -i "$DIR/energyd.data" --comms sample --sort dso,sym --stdio 2>/dev/null |
  awk '!/^#/ && NF >= 4 && $2 != "[kernel.kallsyms]" { p = $1; sub(/%/, "", p); if (p + 0 >= 0.5) print "  " $0 }'
