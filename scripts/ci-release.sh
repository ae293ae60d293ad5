#!/usr/bin/env bash
# The release packages (issue 18) as a JetPack 4.6 user gets them: the amd64
# .debs that scripts/ci-bullseye.sh built with -DENERGY_RELEASE_STATIC=ON in
# Debian 11 (and, when present, the arm64 ones from scripts/ci-arm64.sh):
#   1. scripts/check-release.sh on every .deb: binaries need glibc <= 2.27
#      and libsystemd <= 237 only, Depends are satisfiable on Ubuntu 18.04;
#   2. scripts/ci-package.sh with PACKAGE_SUITE=bullseye and PACKAGE_DEBS: the
#      amd64 .debs installed in a fresh Debian 11 chroot (the oldest system
#      this machine can make), energyd driven on a simulated board, purged,
#      then booted under systemd-nspawn (systemd 247) and driven again.
#
# Environment:
#   RELEASE_OUT       where the .debs are (default build-release/)
#   RELEASE_CHROOT    the pristine Debian 11 chroot for step 2 (default
#                     /var/tmp/energyd-ci/bullseye-pkg)
# Needs root (as ci-package.sh does).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT
OUT="${RELEASE_OUT:-$ROOT/build-release}"
[[ "$OUT" == /* ]] || OUT="$ROOT/$OUT"

die() { echo "ci-release.sh: error: $*" >&2; exit 1; }
banner() { printf '\n== release: %s\n' "$*"; }

arch="$(dpkg --print-architecture)"
DEB="$(ls "$OUT"/energyd_*_"$arch".deb 2>/dev/null | head -n1 || true)"
SIM_DEB="$(ls "$OUT"/energyd-sim_*_"$arch".deb 2>/dev/null | head -n1 || true)"
[[ -f "$DEB" && -f "$SIM_DEB" ]] \
  || die "no energyd_*_$arch.deb and energyd-sim_*_$arch.deb in $OUT (scripts/ci-bullseye.sh makes them)"

banner "scripts/check-release.sh on $(cd "$OUT" && echo *.deb)"
bash "$ROOT/scripts/install-deps.sh" binutils dpkg-dev >/dev/null || die "installing binutils/dpkg-dev failed"
bash "$ROOT/scripts/check-release.sh" "$OUT"/*.deb || die "the release packages failed the check (see above)"

banner "install, use, purge and boot in a fresh Debian 11 (scripts/ci-package.sh)"
PACKAGE_SUITE=bullseye PACKAGE_DEBS="$DEB $SIM_DEB" BUILD_DIR="$OUT/package-test" \
  PACKAGE_CHROOT="${RELEASE_CHROOT:-/var/tmp/energyd-ci/bullseye-pkg}" \
  bash "$ROOT/scripts/ci-package.sh" || die "the release packages failed in Debian 11 (see above)"
banner "OK: release packages checked, installed, used, purged and booted on Debian 11"
