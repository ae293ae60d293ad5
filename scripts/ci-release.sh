#!/usr/bin/env bash
# The release packages (issue 18) as a JetPack 4.6 user gets them. Uses the
# .debs that scripts/ci-bullseye.sh (amd64) and scripts/ci-arm64.sh (arm64)
# built with -DENERGY_RELEASE_STATIC=ON in Debian 11 and left in $RELEASE_OUT;
# builds nothing itself:
#   1. scripts/check-release.sh on all six .debs again, together (each leg
#      checked its own): binaries need glibc <= 2.27 and libsystemd <= 237
#      only (energyd-exporter also libmicrohttpd, with Ubuntu 18.04's
#      symbols), Depends are satisfiable on Ubuntu 18.04; a missing .deb fails;
#   2. scripts/ci-package.sh with PACKAGE_SUITE=bullseye and PACKAGE_DEBS: the
#      amd64 .debs installed in a fresh Debian 11 chroot (the oldest system
#      this machine can make), energyd driven on a simulated board by root, a
#      read-group member and another user, energyd-exporter serving /metrics,
#      purged; then the same root booted
#      under systemd-nspawn (systemd 247): the unit started by the postinst,
#      driven with `energyctl status`, restarted after kill -9, purged.
#
# Environment:
#   RELEASE_OUT      where the .debs are (default build-release/ in the repo
#                    root; a relative path is taken relative to it)
#   RELEASE_CHROOT   the pristine Debian 11 chroot for step 2 (default
#                    /var/tmp/energyd-ci/bullseye-pkg; made once by
#                    debootstrap, copied for every run)
#   BULLSEYE_CHROOT  scripts/ci-bullseye.sh's chroot (default
#                    /var/tmp/energyd-ci/bullseye): the pristine copy it made
#                    after debootstrap, $BULLSEYE_CHROOT.minbase, becomes the
#                    Debian 11 root of step 2 without a second debootstrap
#   PACKAGE_MIRROR, PACKAGE_FRESH  passed on to scripts/ci-package.sh
# Needs root (as ci-package.sh does).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT
OUT="${RELEASE_OUT:-$ROOT/build-release}"
[[ "$OUT" == /* ]] || OUT="$ROOT/$OUT"
readonly OUT

die() { echo "ci-release.sh: error: $*" >&2; exit 1; }
banner() { printf '\n== release: %s\n' "$*"; }

[[ "$(id -u)" -eq 0 ]] || die "must run as root (scripts/ci-package.sh: debootstrap, chroot, mount)"
[[ "$(dpkg --print-architecture)" == amd64 ]] \
  || die "the install test runs the amd64 .debs; this host is $(dpkg --print-architecture)"

# Exactly one of each: a stale .deb of another version would be ambiguous.
one_deb() {
  local matches
  mapfile -t matches < <(find "$OUT" -maxdepth 1 -name "$1" | sort)
  ((${#matches[@]} == 1)) \
    || die "expected one $1 in $OUT, found ${#matches[@]} (scripts/ci-bullseye.sh makes the amd64 ones, scripts/ci-arm64.sh the arm64 ones)"
  echo "${matches[0]}"
}
[[ -d "$OUT" ]] || die "$OUT does not exist (scripts/ci-bullseye.sh and scripts/ci-arm64.sh fill it)"
DEB="$(one_deb 'energyd_*_amd64.deb')"
SIM_DEB="$(one_deb 'energyd-sim_*_amd64.deb')"
ARM_DEB="$(one_deb 'energyd_*_arm64.deb')"
ARM_SIM_DEB="$(one_deb 'energyd-sim_*_arm64.deb')"
EXPORTER_DEB="$(one_deb 'energyd-exporter_*_amd64.deb')"
ARM_EXPORTER_DEB="$(one_deb 'energyd-exporter_*_arm64.deb')"

t0=$SECONDS
banner "scripts/check-release.sh on the amd64 and arm64 .debs"
# libmicrohttpd12: its symbols file dates the exporter's imports.
bash "$ROOT/scripts/install-deps.sh" binutils dpkg-dev libmicrohttpd12 >/dev/null \
  || die "installing binutils/dpkg-dev/libmicrohttpd12 failed"
bash "$ROOT/scripts/check-release.sh" "$DEB" "$SIM_DEB" "$EXPORTER_DEB" "$ARM_DEB" "$ARM_SIM_DEB" "$ARM_EXPORTER_DEB" \
  || die "the release packages failed the check (see above)"
echo "-- check-release took $((SECONDS - t0)) s"

banner "install, use, purge and boot the amd64 .debs in a fresh Debian 11 (scripts/ci-package.sh)"
PACKAGE_SUITE=bullseye PACKAGE_DEBS="$DEB $SIM_DEB $EXPORTER_DEB" BUILD_DIR="$OUT/package-test" \
  PACKAGE_CHROOT="${RELEASE_CHROOT:-/var/tmp/energyd-ci/bullseye-pkg}" \
  PACKAGE_SEED="${BULLSEYE_CHROOT:-/var/tmp/energyd-ci/bullseye}.minbase" \
  bash "$ROOT/scripts/ci-package.sh" || die "the release packages failed in Debian 11 (see above)"
banner "OK: release packages checked, installed, used, purged and booted on Debian 11 ($((SECONDS - t0)) s)"
