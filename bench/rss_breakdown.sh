#!/usr/bin/env bash
# What energyd's RSS is made of (issue 16, docs/PERFORMANCE.md "What the
# RSS is made of"): starts energyd at its defaults on a static simulated
# board, waits for it to settle, and prints its smaps_rollup totals and the
# resident kB of each mapped file (the largest first).
# Usage: bench/rss_breakdown.sh ENERGYD ENERGYD_SIM [CONFIG]
#   CONFIG: energyd --config FILE (e.g. read_group/clock_group as numbers,
#   as an installed daemon finds its groups in /etc/group).
set -euo pipefail
die() { echo "rss_breakdown: $*" >&2; exit 1; }
[[ $# -ge 2 && $# -le 3 ]] || die "usage: $0 ENERGYD ENERGYD_SIM [CONFIG]"
ENERGYD="$1" SIM="$2"
[[ -x "$ENERGYD" ]] || die "'$ENERGYD' is not an executable"
[[ -x "$SIM" ]] || die "'$SIM' is not an executable"
CONFIG_ARGS=()
if [[ $# -eq 3 ]]; then
  [[ -r "$3" ]] || die "cannot read config '$3'"
  CONFIG_ARGS=(--config "$3")
fi
DIR="$(mktemp -d)"
PID=""
cleanup() { [[ -n "$PID" ]] && kill "$PID" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$DIR"; }
trap cleanup EXIT
"$SIM" create --board jetson-orin-nano --l4t 36 --root "$DIR/board" >/dev/null || die "energyd-sim create failed"
"$ENERGYD" "${CONFIG_ARGS[@]}" --root "$DIR/board" --state-dir "$DIR/state" --socket "$DIR/energyd.sock" \
  --log-level warn >"$DIR/energyd.log" 2>&1 &
PID=$!
for _ in $(seq 200); do [[ -S "$DIR/energyd.sock" ]] && break; sleep 0.1; done
[[ -S "$DIR/energyd.sock" ]] || die "energyd did not start: $(cat "$DIR/energyd.log")"
sleep 5  # past start-up, the first commits and checkpoint
grep -E '^(Rss|Pss|Anonymous):' "/proc/$PID/smaps_rollup" || die "cannot read /proc/$PID/smaps_rollup"
echo "resident kB by mapping:"
awk '/^[0-9a-f]+-[0-9a-f]+ / {name = (NF >= 6 ? $6 : "[anonymous]")} /^Rss:/ {rss[name] += $2}
     END {for (n in rss) if (rss[n] > 0) printf "%8d %s\n", rss[n], n}' "/proc/$PID/smaps" | sort -rn
