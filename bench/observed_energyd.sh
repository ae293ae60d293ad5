# shellcheck shell=bash
# Sourced (not run) by bench/observer_syscalls.sh and bench/tick_instructions.sh,
# which observe one energyd on a simulated board over a window of ticks:
# their command line, the board's tree, energyd's arguments and its tick
# count. The sourcing script sets NAME (its name, for messages) first.
#
# Command line: ENERGYD_SIM SECONDS ENERGYD [PERIOD_MS] [CONFIG]; environment:
# OBS_BOARD ("board l4t", default "jetson-orin-nano 36"), ENERGYCTL (default:
# beside ENERGYD's build, ../cli/energyctl) and OBS_DB (a database energyd
# starts with, copied into its state directory: bench/aged_database makes
# one of a board that has kept a week of history).

die() { echo "$NAME: $*" >&2; exit 1; }

# Sets SIM SECS ENERGYD PERIOD CONFIG CTL BOARD L4T from the arguments and
# the environment, each checked where it enters.
observed_args() {
  [[ $# -ge 3 && $# -le 5 ]] || die "usage: $NAME ENERGYD_SIM SECONDS ENERGYD [PERIOD_MS] [CONFIG]"
  SIM="$1"; SECS="$2"; ENERGYD="$3"; PERIOD="${4:-100}"; CONFIG="${5:-}"
  [[ -x "$SIM" ]] || die "$SIM is not an executable"
  [[ -x "$ENERGYD" ]] || die "$ENERGYD is not an executable"
  [[ "$SECS" =~ ^[1-9][0-9]*$ ]] || die "SECONDS must be a whole number > 0, got '$SECS'"
  [[ "$PERIOD" =~ ^[1-9][0-9]*$ ]] || die "PERIOD_MS must be a whole number > 0, got '$PERIOD'"
  [[ -z "$CONFIG" || -r "$CONFIG" ]] || die "cannot read the config $CONFIG"
  CTL="${ENERGYCTL:-$(dirname "$ENERGYD")/../cli/energyctl}"
  [[ -x "$CTL" ]] || die "no energyctl at $CTL (set ENERGYCTL)"
  read -r BOARD L4T <<<"${OBS_BOARD:-jetson-orin-nano 36}"
  [[ -n "$BOARD" && -n "$L4T" ]] || die "OBS_BOARD must be \"board l4t\", got '${OBS_BOARD:-}'"
  [[ -z "${OBS_DB:-}" || -r "$OBS_DB" ]] || die "cannot read OBS_DB's database $OBS_DB"
}

# A static tree of BOARD at DIR/board (energyd-sim create).
observed_static_tree() {
  "$SIM" create --board "$BOARD" --l4t "$L4T" --root "$1/board" >/dev/null || die "energyd-sim create failed"
}

# Periods under 7 ms: the monitors' update_interval set to 1 ms, as energyd
# requires of such a period, in the tree at DIR/board.
observed_fast_monitors() {
  if ((PERIOD < 7)); then
    find "$1/board/sys/devices" -name update_interval -exec sh -c 'echo 1 > "$1"' _ {} \;
  fi
}

# energyd's arguments for the tree at DIR/board and the socket SOCKET, in
# the array ENERGYD_ARGS; OBS_DB's database, when given, in DIR/state.
observed_energyd_args() {
  if [[ -n "${OBS_DB:-}" ]]; then
    mkdir -p "$1/state"
    cp -- "$OBS_DB" "$1/state/energyd.db" || die "cannot copy $OBS_DB"
    [[ ! -e "$OBS_DB-marks" ]] || cp -- "$OBS_DB-marks" "$1/state/energyd.db-marks" || die "cannot copy $OBS_DB-marks"
  fi
  ENERGYD_ARGS=(--root "$1/board" --state-dir "$1/state" --socket "$2" --log-level warn --sample-period-ms "$PERIOD")
  [[ -z "$CONFIG" ]] || ENERGYD_ARGS+=(--config "$CONFIG")
}

# observed_start DIR SOCKET: starts ENERGYD on DIR/board (observed_energyd_args)
# with its log in DIR/log and waits 4 s, past start-up, the first commit and
# checkpoint. Sets PID; dies when energyd has exited by then.
observed_start() {
  observed_energyd_args "$1" "$2"
  "$ENERGYD" "${ENERGYD_ARGS[@]}" >"$1/log" 2>&1 &
  PID=$!
  sleep 4
  kill -0 "$PID" 2>/dev/null || die "energyd did not start: $(cat "$1/log")"
}

# The ticks energyd's status reports on SOCKET (empty when it does not answer).
observed_ticks() {
  "$CTL" --socket "$1" --json status 2>/dev/null | sed -n 's/.*"ticks": *\([0-9]*\).*/\1/p' | head -1
}
