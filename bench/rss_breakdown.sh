#!/usr/bin/env bash
# What energyd's RSS is made of (issue 16, docs/PERFORMANCE.md "What the
# RSS is made of"): starts energyd on a static simulated board, waits
# for it to settle, and prints its VmRSS and VmHWM, its smaps_rollup
# totals, the resident kB of each mapped file (the largest first) and of
# each anonymous mapping (heap arenas, thread stacks) on its own.
# Usage: bench/rss_breakdown.sh [--period-ms MS] [--settle S] ENERGYD ENERGYD_SIM [CONFIG]
#   --period-ms MS: energyd --sample-period-ms MS (1-60000; default: energyd's
#     own). Below 7 ms the hwmon update_interval files, where the board has
#     them, are set to 1 ms, which energyd requires of such a period (as
#     bench/observer_bench does).
#   --settle S: seconds between energyd's socket appearing and the reading
#     (1-3600, default 5: past start-up, the first commits and checkpoint; at
#     1 ms a sealed commit comes every 15 chunks of 600 sweeps, 9 s).
#   RSS_RING=0: the socket beside the state, not in /dev/shm (no sweep ring).
#   RSS_BOARD="BOARD L4T": the board (default "jetson-orin-nano 36"; e.g.
#     "jetson-tx2 32" for 12 IIO rails).
#   CONFIG: energyd --config FILE (e.g. read_group/clock_group as numbers,
#     as an installed daemon finds its groups in /etc/group).
set -euo pipefail
die() { echo "rss_breakdown: $*" >&2; exit 1; }
usage="usage: $0 [--period-ms MS] [--settle S] ENERGYD ENERGYD_SIM [CONFIG]"

# A whole number from FLAG's VALUE, between LO and HI.
whole() {
  local flag="$1" value="$2" lo="$3" hi="$4"
  [[ "$value" =~ ^[0-9]{1,9}$ ]] || die "$flag: '$value' is not a whole number"
  ((10#$value >= lo && 10#$value <= hi)) || die "$flag: $value is not between $lo and $hi"
  echo "$((10#$value))"
}

PERIOD="" SETTLE=5
while [[ $# -gt 0 && "$1" == --* ]]; do
  [[ $# -ge 2 ]] || die "$1 needs a value; $usage"
  case "$1" in
    --period-ms) PERIOD="$(whole "$1" "$2" 1 60000)" ;;
    --settle) SETTLE="$(whole "$1" "$2" 1 3600)" ;;
    *) die "unknown option '$1'; $usage" ;;
  esac
  shift 2
done
[[ $# -ge 2 && $# -le 3 ]] || die "$usage"
ENERGYD="$1" SIM="$2"
[[ -x "$ENERGYD" ]] || die "'$ENERGYD' is not an executable"
[[ -x "$SIM" ]] || die "'$SIM' is not an executable"
EXTRA_ARGS=()
if [[ $# -eq 3 ]]; then
  [[ -r "$3" ]] || die "cannot read config '$3'"
  EXTRA_ARGS=(--config "$3")
fi
[[ -n "$PERIOD" ]] && EXTRA_ARGS+=(--sample-period-ms "$PERIOD")
DIR="$(mktemp -d)"
# The socket's directory is energyd's runtime directory; on a tmpfs (/dev/shm
# here, /run/energyd when installed) energyd maps its sweep ring there, which
# counts in its RSS. RSS_RING=0 puts it beside the state (no ring).
RING="${RSS_RING:-1}"
[[ "$RING" == 0 || "$RING" == 1 ]] || die "RSS_RING must be 0 or 1, got '$RING'"
RUN_DIR="$DIR"
[[ "$RING" == 0 ]] || RUN_DIR="$(mktemp -d /dev/shm/energyd-rss-XXXXXX)"
PID=""
cleanup() {
  [[ -n "$PID" ]] && kill "$PID" 2>/dev/null
  wait 2>/dev/null || true
  rm -rf "$DIR"
  [[ "$RUN_DIR" == "$DIR" ]] || rm -rf "$RUN_DIR"
}
trap cleanup EXIT
read -r BOARD L4T <<<"${RSS_BOARD:-jetson-orin-nano 36}"
[[ -n "$BOARD" && -n "$L4T" ]] || die "RSS_BOARD must be \"BOARD L4T\", got '${RSS_BOARD:-}'"
"$SIM" create --board "$BOARD" --l4t "$L4T" --root "$DIR/board" >/dev/null || die "energyd-sim create --board $BOARD --l4t $L4T failed"
if [[ -n "$PERIOD" ]] && ((PERIOD < 7)); then
  found=0
  while IFS= read -r -d '' f; do
    echo 1 >"$f"
    found=1
  done < <(find "$DIR/board/sys/devices" -name update_interval -type f -print0)
  ((found)) || echo "rss_breakdown: no hwmon update_interval file to set (an IIO board's sensors have none)" >&2
fi
"$ENERGYD" "${EXTRA_ARGS[@]}" --root "$DIR/board" --state-dir "$DIR/state" --socket "$RUN_DIR/energyd.sock" \
  --log-level warn >"$DIR/energyd.log" 2>&1 &
PID=$!
for _ in $(seq 200); do [[ -S "$RUN_DIR/energyd.sock" ]] && break; sleep 0.1; done
[[ -S "$RUN_DIR/energyd.sock" ]] || die "energyd did not start: $(cat "$DIR/energyd.log")"
sleep "$SETTLE"
kill -0 "$PID" 2>/dev/null || die "energyd stopped: $(cat "$DIR/energyd.log")"
grep -E '^(VmRSS|VmHWM):' "/proc/$PID/status" || die "cannot read /proc/$PID/status"
grep -E '^(Rss|Pss|Anonymous):' "/proc/$PID/smaps_rollup" || die "cannot read /proc/$PID/smaps_rollup"
echo "resident kB by mapped file:"
awk '/^[0-9a-f]+-[0-9a-f]+ / {name = (NF >= 6 ? $6 : "[anonymous]")} /^Rss:/ {rss[name] += $2}
     END {for (n in rss) if (rss[n] > 0) printf "%8d %s\n", rss[n], n}' "/proc/$PID/smaps" | sort -rn
echo "resident kB of each anonymous mapping (size kB, address range):"
awk '/^[0-9a-f]+-[0-9a-f]+ / {range = $1; name = (NF >= 6 ? $6 : "[anonymous]")}
     /^Size:/ {size = $2}
     /^Rss:/ && $2 > 0 && name ~ /^\[(anonymous|heap|stack)\]$/ {printf "%8d %8d %s %s\n", $2, size, range, name}' \
  "/proc/$PID/smaps" | sort -rn
