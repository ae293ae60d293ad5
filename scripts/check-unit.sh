#!/usr/bin/env bash
# Checks systemd/energyd.service with systemd's own tools (QUALITY.md S4):
#   systemd-analyze verify                       (no warnings)
#   systemd-analyze security --offline=yes --threshold=15   (exposure <= 1.5)
# The unit is checked as installed: ExecStart points at a real energyd binary
# and the man pages named in Documentation= are found through MANPATH.
#
# Usage: scripts/check-unit.sh UNIT_FILE ENERGYD_BINARY [MAN_SOURCE_DIR]
#   UNIT_FILE       the unit to check (systemd/energyd.service or an installed copy)
#   ENERGYD_BINARY  the energyd executable ExecStart should run
#   MAN_SOURCE_DIR  directory with energyd.8, energyctl.1, energyd.yaml.5 (optional:
#                   without it, or without man(1), Documentation= is not checked)
# Exit status: 0 pass, 1 fail, 77 skipped (systemd-analyze missing or older than
# 250, e.g. Debian 11's 247, which has no --offline).
set -euo pipefail

die() { echo "check-unit.sh: error: $*" >&2; exit 1; }
skip() { echo "check-unit.sh: SKIPPED: $*"; exit 77; }

(($# >= 2)) || die "usage: check-unit.sh UNIT_FILE ENERGYD_BINARY [MAN_SOURCE_DIR]"
UNIT="$1"
BIN="$2"
MAN_SRC="${3:-}"
readonly THRESHOLD=15  # systemd-analyze's scale is 0..100; 15 is the 1.5 shown

[[ -f "$UNIT" ]] || die "no unit file at '$UNIT'"
[[ -x "$BIN" ]] || die "'$BIN' is not an executable energyd"
command -v systemd-analyze >/dev/null 2>&1 || skip "systemd-analyze not installed (package systemd)"
version="$(systemd-analyze --version | sed -n '1s/^systemd \([0-9]*\).*/\1/p')"
[[ -n "$version" ]] || die "cannot tell the systemd version from 'systemd-analyze --version'"
((version >= 250)) || skip "systemd $version is too old: 'security --offline' needs 250 or later"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
sed "s|^ExecStart=[^ ]*energyd|ExecStart=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")|" "$UNIT" >"$work/energyd.service"
grep -q "^ExecStart=/.*energyd --config" "$work/energyd.service" || die "no 'ExecStart=... energyd --config' line in $UNIT"

man_args=(--man=no)
if [[ -n "$MAN_SRC" ]] && command -v man >/dev/null 2>&1; then
  for page in energyd.8 energyctl.1 energyd.yaml.5; do
    mkdir -p "$work/man/man${page##*.}"
    cp "$MAN_SRC/$page" "$work/man/man${page##*.}/$page"
  done
  man_args=(--man=yes)
  export MANPATH="$work/man"
else
  echo "check-unit.sh: not checking Documentation= (no man page directory given, or man(1) missing)"
fi

echo "== systemd-analyze verify (systemd $version)"
# verify prints problems but does not always fail on them: any output is a failure.
out="$(systemd-analyze verify "${man_args[@]}" "$work/energyd.service" 2>&1)" || die "verify failed: $out"
[[ -z "$out" ]] || die "systemd-analyze verify reported: $out"
echo "clean"

echo "== systemd-analyze security --offline=yes --threshold=$THRESHOLD"
if ! report="$(systemd-analyze security --offline=yes --threshold="$THRESHOLD" "$work/energyd.service" 2>&1)"; then
  echo "$report" | grep -v '✓' >&2
  die "exposure above 1.5 (threshold $THRESHOLD)"
fi
echo "$report" | grep -E '✗|Overall exposure' || true
echo "check-unit.sh: OK"
