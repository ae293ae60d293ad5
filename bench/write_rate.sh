#!/usr/bin/env bash
# What energyd writes and how often it wakes at its defaults (100 ms period,
# 1 s flush, 10 s checkpoint) on a simulated Orin Nano (3 rails): bytes per
# minute from /proc/PID/io write_bytes and wake-ups per second (voluntary +
# involuntary context switches), per thread and in all, over a window after
# it has settled. Used for issue 16's before/after figures (docs/PERFORMANCE.md).
#
# Usage: bench/write_rate.sh ENERGYD ENERGYD_SIM [WINDOW_SECONDS (default 60)]
# WRITE_RATE_BOARD="jetson-tx2 32" measures another board of the catalogue
# (energyd-sim create --board NAME --l4t VERSION; default "jetson-orin-nano 36").
# With the sweep tail (issue 16) the database is written once per five
# minutes: use a window of at least 330 s for a figure that includes it.
# Exits non-zero when energyd does not start or a counter cannot be read:
# a measurement never reads zero silently.
set -euo pipefail

die() { echo "write_rate.sh: $*" >&2; exit 1; }
[[ $# -ge 2 ]] || die "usage: write_rate.sh ENERGYD ENERGYD_SIM [WINDOW_SECONDS]"
ENERGYD="$1"; SIM="$2"; WINDOW="${3:-60}"
[[ -x "$ENERGYD" ]] || die "$ENERGYD is not an executable"
[[ -x "$SIM" ]] || die "$SIM is not an executable"
[[ "$WINDOW" =~ ^[1-9][0-9]*$ ]] || die "WINDOW_SECONDS must be a whole number > 0, got '$WINDOW'"

DIR="$(mktemp -d /var/tmp/energyd-write-rate-XXXXXX)"
PID=""
cleanup() { [[ -n "$PID" ]] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null; rm -rf -- "$DIR"; }
trap cleanup EXIT

read -r BOARD L4T <<<"${WRITE_RATE_BOARD:-jetson-orin-nano 36}"
[[ -n "$BOARD" && "$L4T" =~ ^[0-9]+$ ]] || die "WRITE_RATE_BOARD must be 'BOARD L4T', got '${WRITE_RATE_BOARD:-}'"
"$SIM" create --board "$BOARD" --l4t "$L4T" --root "$DIR/board" >/dev/null || die "energyd-sim create --board $BOARD --l4t $L4T failed"
"$ENERGYD" --root "$DIR/board" --state-dir "$DIR/state" --socket "$DIR/energyd.sock" --log-level warn \
  >"$DIR/energyd.log" 2>&1 &
PID=$!
for _ in $(seq 200); do [[ -S "$DIR/energyd.sock" ]] && break; sleep 0.1; done
[[ -S "$DIR/energyd.sock" ]] || die "energyd did not start: $(cat "$DIR/energyd.log")"
sleep 5  # past the first commits and checkpoint

write_bytes() {
  local v
  v="$(awk '/^write_bytes:/ {print $2}' "/proc/$PID/io")" || die "cannot read /proc/$PID/io"
  [[ -n "$v" ]] || die "no write_bytes in /proc/$PID/io"
  echo "$v"
}
# "tid:name switches" per thread (a thread's name may repeat; its id does not).
switches() {
  local t
  for t in /proc/"$PID"/task/*; do
    awk -v key="${t##*/}:$(tr -d ' ' <"$t/comm")" '/^(non)?voluntary_ctxt_switches:/ {n += $2} END {print key, n}' \
      "$t/status"
  done | sort
}

w0="$(write_bytes)"; s0="$(switches)"; t0="$(date +%s.%N)"
sleep "$WINDOW"
w1="$(write_bytes)"; s1="$(switches)"; t1="$(date +%s.%N)"
kill -0 "$PID" 2>/dev/null || die "energyd ended during the window: $(cat "$DIR/energyd.log")"

secs="$(echo "$t1 - $t0" | bc -l)"
echo "energyd: $ENERGYD"
echo "board: $BOARD (L4T $L4T)"
echo "window: $(printf %.1f "$secs") s"
printf 'written: %d bytes, %.0f bytes/min\n' "$((w1 - w0))" "$(echo "($w1 - $w0) * 60 / $secs" | bc -l)"
join <(echo "$s0") <(echo "$s1") | awk -v s="$secs" '
  {d = $3 - $2; total += d; printf "wake-ups/s %-16s %6.2f\n", $1, d / s}
  END {if (NR == 0) exit 1; printf "wake-ups/s %-16s %6.2f\n", "all", total / s}' ||
  die "no thread counters read"
