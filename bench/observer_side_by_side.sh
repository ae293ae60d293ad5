#!/usr/bin/env bash
# Several energyd builds side by side, each on its own simulated board (a
# static tree from energyd-sim create) at the default 100 ms period, measured
# over the same window: on-CPU time per tick of the `sample` thread and of
# all threads (first field of /proc/PID/task/*/schedstat) and wake-ups per
# second (voluntary + involuntary context switches). Running the builds at
# the same time is what resolves a change of 10-20 % on a shared machine,
# where the same build's figure moves by half between runs (issue 16,
# docs/PERFORMANCE.md "The context poll off the every-tick path").
#
# Usage: bench/observer_side_by_side.sh ENERGYD_SIM SECONDS NAME=ENERGYD[:CONFIG]...
#   NAME=ENERGYD:CONFIG starts that build with --config CONFIG.
#   OBS_BOARD="jetson-tx2 32" measures another board (default "jetson-orin-nano 36").
# Exits non-zero when a build does not start or a counter cannot be read.
set -euo pipefail

die() { echo "observer_side_by_side.sh: $*" >&2; exit 1; }
[[ $# -ge 3 ]] || die "usage: observer_side_by_side.sh ENERGYD_SIM SECONDS NAME=ENERGYD[:CONFIG]..."
SIM="$1"; SECS="$2"; shift 2
[[ -x "$SIM" ]] || die "$SIM is not an executable"
[[ "$SECS" =~ ^[1-9][0-9]*$ ]] || die "SECONDS must be a whole number > 0, got '$SECS'"
read -r BOARD L4T <<<"${OBS_BOARD:-jetson-orin-nano 36}"
[[ -n "$BOARD" && "$L4T" =~ ^[0-9]+$ ]] || die "OBS_BOARD must be 'BOARD L4T', got '${OBS_BOARD:-}'"
readonly TICKS_PER_SECOND=10  # energyd's default 100 ms period

declare -A PIDS DIRS
cleanup() {
  for n in "${!PIDS[@]}"; do kill "${PIDS[$n]}" 2>/dev/null || true; done
  wait 2>/dev/null || true
  for n in "${!DIRS[@]}"; do rm -rf -- "${DIRS[$n]}"; done
}
trap cleanup EXIT

for spec in "$@"; do
  [[ "$spec" == *=* ]] || die "'$spec' is not NAME=ENERGYD[:CONFIG]"
  name="${spec%%=*}"; rest="${spec#*=}"; energyd="${rest%%:*}"; config=""
  [[ "$rest" == *:* ]] && config="${rest#*:}"
  [[ -x "$energyd" ]] || die "$name: $energyd is not an executable"
  [[ -z "$config" || -r "$config" ]] || die "$name: cannot read the config $config"
  dir="$(mktemp -d /var/tmp/energyd-side-XXXXXX)"; DIRS[$name]="$dir"
  "$SIM" create --board "$BOARD" --l4t "$L4T" --root "$dir/board" >/dev/null || die "energyd-sim create failed"
  args=(); [[ -n "$config" ]] && args=(--config "$config")
  "$energyd" "${args[@]}" --root "$dir/board" --state-dir "$dir/state" --socket "$dir/s.sock" --log-level warn \
    >"$dir/log" 2>&1 &
  PIDS[$name]=$!
done
sleep 4  # past the first commit and checkpoint

# One line per thread: tid, name, on-CPU ns, context switches.
snapshot() {
  local t
  for t in /proc/"$1"/task/*; do
    printf '%s %s %s %s\n' "$(basename "$t")" "$(cat "$t/comm")" "$(cut -d' ' -f1 "$t/schedstat")" \
      "$(awk '/ctxt_switches/ {s += $2} END {print s}' "$t/status")"
  done
}
for n in "${!PIDS[@]}"; do
  kill -0 "${PIDS[$n]}" 2>/dev/null || die "$n did not start: $(cat "${DIRS[$n]}/log")"
  snapshot "${PIDS[$n]}" >"${DIRS[$n]}/a" || die "$n: cannot read /proc"
done
sleep "$SECS"
for n in "${!PIDS[@]}"; do snapshot "${PIDS[$n]}" >"${DIRS[$n]}/b" || die "$n: cannot read /proc"; done

for n in $(printf '%s\n' "${!PIDS[@]}" | sort); do
  join <(sort "${DIRS[$n]}/a") <(sort "${DIRS[$n]}/b") | awk -v s="$SECS" -v n="$n" -v tps="$TICKS_PER_SECOND" '
    { ns = $6 - $3; cs = $7 - $4; total += ns; switches += cs
      if ($2 == "sample") sample = ns
      if (cs > 0) who = who sprintf(" %s:%.2f", $2, cs / s) }
    END { ticks = s * tps
          printf "%-12s sample %7.1f us/tick  all %7.1f us/tick  wake-ups/s %.2f (%s )\n",
                 n, sample / 1000 / ticks, total / 1000 / ticks, switches / s, who }'
done
