#!/usr/bin/env bash
# Checks systemd/energyd-exporter.service as scripts/check-unit.sh checks
# energyd's: `systemd-analyze verify` clean and `systemd-analyze security
# --offline=yes` exposure <= 1.5 (energyd's own bound).
# Usage: check_exporter_unit.sh UNIT_FILE EXPORTER_BINARY
# Exit status: 0 pass, 1 fail, 77 skipped (systemd-analyze missing or < 250).
set -euo pipefail
(($# == 2)) || { echo "usage: check_exporter_unit.sh UNIT_FILE EXPORTER_BINARY" >&2; exit 1; }
command -v systemd-analyze >/dev/null 2>&1 || { echo "SKIPPED: no systemd-analyze"; exit 77; }
version="$(systemd-analyze --version | sed -n '1s/^systemd \([0-9]*\).*/\1/p')"
((version >= 250)) || { echo "SKIPPED: systemd $version has no security --offline"; exit 77; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
bin="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"
sed "s|^ExecStart=/usr/sbin/energyd-exporter|ExecStart=$bin|" "$1" >"$work/energyd-exporter.service"
grep -q "^ExecStart=$bin " "$work/energyd-exporter.service" || { echo "no ExecStart=/usr/sbin/energyd-exporter line in $1" >&2; exit 1; }
out="$(systemd-analyze verify --man=no "$work/energyd-exporter.service" 2>&1)" || { echo "$out" >&2; exit 1; }
[[ -z "$out" ]] || { echo "systemd-analyze verify: $out" >&2; exit 1; }
systemd-analyze security --offline=yes --threshold=15 "$work/energyd-exporter.service" | tail -n 1
