#!/usr/bin/env bash
# Instructions per tick of energyd's threads: the user-space work a tick
# costs, as a count that does not spread from run to run as CPU time does on
# a shared machine (docs/PERFORMANCE.md "Instructions per tick"). Starts
# ENERGYD under valgrind's callgrind on a static simulated tree (energyd-sim
# create), with its socket in a tmpfs so the sweep ring is on, as installed;
# lets it settle, zeroes the counts, waits SECONDS, and divides each thread's
# instructions by the ticks energyd's status reports over the same window
# (read just before and after it, so a tick either way: under 1% at the
# default 30 s and 100 ms).
# System calls and the kernel's work are not counted here
# (bench/observer_syscalls.sh counts the calls).
#
# Usage: bench/tick_instructions.sh ENERGYD_SIM SECONDS ENERGYD [PERIOD_MS] [CONFIG]
#   PERIOD_MS: the sampling period (default 100); CONFIG: passed as --config.
#   OBS_BOARD="jetson-tx2 32" measures another board (default "jetson-orin-nano 36").
#   ENERGYCTL: the energyctl to read the ticks with (default: beside ENERGYD's
#   build, ../cli/energyctl).
#   TICK_MAX_SAMPLE=N: exit 1 when the `sample` thread takes more than N
#   instructions a tick (the ctest's regression bound).
#   TICK_KEEP=1 keeps the run's directory (callgrind's dumps, energyd's log).
#   TICK_SETTLE=S: seconds between energyd's 20th tick and the window
#   (default 2; with OBS_DB, long enough for the first retention pass).
# Prints one line per thread that ran in the window ("sample 5123 Ir/tick"),
# then "ticks N". Exits non-zero when energyd does not start or a count is
# missing.
set -euo pipefail

NAME=tick_instructions.sh
# shellcheck source=bench/observed_energyd.sh
source "$(dirname "${BASH_SOURCE[0]}")/observed_energyd.sh"
observed_args "$@"
[[ -z "${TICK_MAX_SAMPLE:-}" || "$TICK_MAX_SAMPLE" =~ ^[1-9][0-9]*$ ]] ||
  die "TICK_MAX_SAMPLE must be a whole number > 0, got '$TICK_MAX_SAMPLE'"
SETTLE="${TICK_SETTLE:-2}"
[[ "$SETTLE" =~ ^[0-9]+$ ]] || die "TICK_SETTLE must be a whole number of seconds, got '$SETTLE'"
command -v valgrind >/dev/null || die "valgrind is not installed"
command -v callgrind_control >/dev/null || die "callgrind_control is not installed (package valgrind)"

DIR="$(mktemp -d /var/tmp/energyd-instr-XXXXXX)"
SOCKDIR="$(mktemp -d /dev/shm/energyd-instr-XXXXXX)"  # a tmpfs: energyd keeps its sweep ring beside the socket
PID=""
cleanup() {
  [[ -n "$PID" ]] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
  if [[ -n "${TICK_KEEP:-}" ]]; then echo "kept $DIR" >&2; else rm -rf -- "$DIR"; fi
  rm -rf -- "$SOCKDIR"
}
trap cleanup EXIT

observed_static_tree "$DIR"
observed_fast_monitors "$DIR"
observed_energyd_args "$DIR" "$SOCKDIR/s.sock"
valgrind -q --tool=callgrind --separate-threads=yes --callgrind-out-file="$DIR/cg.out" \
  "$ENERGYD" "${ENERGYD_ARGS[@]}" >"$DIR/log" 2>&1 &
PID=$!

ticks() { observed_ticks "$SOCKDIR/s.sock"; }
T0=""
for _ in $(seq 120); do  # valgrind starts energyd about 30 times slower
  kill -0 "$PID" 2>/dev/null || die "energyd did not start under valgrind: $(tail -n 20 "$DIR/log")"
  T0="$(ticks || true)"
  [[ -n "$T0" && "$T0" -gt 20 ]] && break
  sleep 0.5
done
[[ -n "$T0" && "$T0" -gt 20 ]] || die "energyd took no 20 ticks within 60 s under valgrind"
sleep "$SETTLE"  # past the first checkpoint's work (and with OBS_DB the first retention pass's)
# The status calls that read the ticks stay outside the counted window
# (energyd's main and store threads answer them); the window's edges are
# each within a tick of the reads.
T0="$(ticks)"
callgrind_control -z "$PID" >/dev/null 2>&1 || die "callgrind_control -z failed"
sleep "$SECS"
callgrind_control -d "$PID" >/dev/null 2>&1 || die "callgrind_control -d failed"
T1="$(ticks)"
[[ -n "$T0" && -n "$T1" && "$T1" -gt "$T0" ]] || die "cannot read energyd's ticks (got '$T0' and '$T1')"
N=$((T1 - T0))

# One dump file per thread (cg.out.1-NN); a thread is named by the loop it
# runs. A read that blocks past the stall limit (valgrind slows energyd
# about 30 times) hands sampling to a new thread: the sample threads' counts
# are summed, and the line says how many there were.
declare -A total=() threads=()
order=()
for f in "$DIR"/cg.out.*-[0-9]*; do
  [[ -f "$f" ]] || continue
  ir="$(sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$f" | head -1)"
  [[ -n "$ir" ]] || die "no summary line in $f"
  name=""
  grep -q 'Sampler::loop' "$f" && name=sample
  [[ -z "$name" ]] && grep -q 'StorageWriter::loop' "$f" && name=store
  [[ -z "$name" ]] && grep -q 'Sampler::watch' "$f" && name=sample-watch
  [[ -z "$name" ]] && name="thread-${f##*-}"
  ((ir > 0)) || continue
  [[ -n "${total[$name]:-}" ]] || order+=("$name")
  total[$name]=$((${total[$name]:-0} + ir))
  threads[$name]=$((${threads[$name]:-0} + 1))
done
for name in "${order[@]}"; do
  extra=""
  ((threads[$name] > 1)) && extra=" (${threads[$name]} threads)"
  echo "$name $((total[$name] / N)) Ir/tick$extra"
done
echo "ticks $N"
[[ -n "${total[sample]:-}" ]] || die "no count for the sample thread (no dump names Sampler::loop)"
if [[ -n "${TICK_MAX_SAMPLE:-}" ]] && ((total[sample] / N > TICK_MAX_SAMPLE)); then
  die "the sample thread took $((total[sample] / N)) instructions a tick, more than TICK_MAX_SAMPLE=$TICK_MAX_SAMPLE"
fi
