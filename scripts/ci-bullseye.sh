#!/usr/bin/env bash
# Builds energyd and runs ALL its tests inside a Debian 11 (bullseye) chroot,
# with bullseye's own compiler and libraries (g++ 10, cmake 3.18, spdlog 1.8,
# yaml-cpp 0.6, sqlite 3.34, systemd 247, gtest 1.10, nlohmann-json 3.9).
#
# The chroot is made once with `debootstrap --variant=minbase bullseye` from
# deb.debian.org and reused while complete. Each run copies the work tree
# (without .git and build*/) into it, runs scripts/install-deps.sh there (the
# one package list), configures with -DENERGY_WERROR=ON and the release
# configuration (-DENERGY_RELEASE_STATIC=ON, cmake/Release.cmake, issue 18),
# builds and runs ctest: every test runs on the release binaries. Then cpack
# makes the amd64 release .debs from that same build, scripts/check-release.sh
# checks every binary in them (glibc <= 2.27, libsystemd <= 237, no C++ or
# third-party shared library) and their Depends (Ubuntu 18.04's versions),
# and they are copied to $RELEASE_OUT for scripts/ci-release.sh.
#
# With BULLSEYE_INNER=SCRIPT (scripts/ci-arm64.sh sets it), steps 3-5 are
# replaced by running SCRIPT inside the chroot (ARM64_INSIDE=1); the arm64
# .debs it leaves in the chroot are copied to $RELEASE_OUT.
#
# Environment:
#   RELEASE_OUT      where the release .debs go (default build-release/ in
#                    the repo root; a relative path is taken relative to it)
#   BULLSEYE_CHROOT  chroot directory (default /var/tmp/energyd-ci/bullseye;
#                    must be outside the source tree)
#   BULLSEYE_MIRROR  Debian mirror (default http://deb.debian.org/debian)
#   BULLSEYE_FRESH=1 delete and re-create the chroot first (and its pristine
#                    copy $BULLSEYE_CHROOT.minbase, made after each debootstrap)
# Needs root (re-runs itself through sudo otherwise).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT
CHROOT="${BULLSEYE_CHROOT:-/var/tmp/energyd-ci/bullseye}"
MIRROR="${BULLSEYE_MIRROR:-http://deb.debian.org/debian}"
readonly SUITE=bullseye
readonly SRC_IN=/src/energyd      # source copy, inside the chroot
readonly BUILD_IN=/build/energyd  # build directory, inside the chroot

die() { echo "ci-bullseye.sh: error: $*" >&2; exit 1; }
TAG="bullseye"
banner() { printf '\n== %s: %s\n' "$TAG" "$*"; }

if [[ "$(id -u)" -ne 0 ]]; then
  command -v sudo >/dev/null 2>&1 || die "must run as root (debootstrap, chroot, mount) and sudo is missing"
  exec sudo --preserve-env=BULLSEYE_INNER,RELEASE_OUT,BULLSEYE_CHROOT,BULLSEYE_MIRROR,BULLSEYE_FRESH,CI bash "$0" "$@"
fi

# --- sanity checks on the chroot path: it gets rm -rf'ed when incomplete ----
[[ "$CHROOT" == /* ]] || die "BULLSEYE_CHROOT must be an absolute path (got '$CHROOT')"
mkdir -p "$(dirname "$CHROOT")"
CHROOT="$(cd "$(dirname "$CHROOT")" && pwd -P)/$(basename "$CHROOT")"
readonly CHROOT
case "$CHROOT/" in
  / | /bin/ | /boot/ | /dev/ | /etc/ | /home/ | /lib/ | /proc/ | /root/ | /run/ | /sys/ | /tmp/ | /usr/ | /var/ | /var/tmp/)
    die "refusing to use '$CHROOT' as chroot directory" ;;
  "$ROOT"/*) die "the chroot ($CHROOT) must be outside the source tree ($ROOT)" ;;
esac
readonly STAMP="$CHROOT/.energyd-ci-complete"

# --- mounts: always undone on exit ------------------------------------------
# Mount points at or below $CHROOT, deepest first.
mounts_under() {
  awk -v d="$CHROOT" '$5 == d || index($5, d "/") == 1 { print $5 }' /proc/self/mountinfo | sort -r
}
unmount_all() {
  local m
  for m in $(mounts_under); do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || echo "ci-bullseye.sh: warning: could not unmount $m" >&2
  done
}
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  unmount_all
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mount_chroot() {
  mkdir -p "$CHROOT/proc" "$CHROOT/sys" "$CHROOT/dev"
  mount -t proc proc "$CHROOT/proc"
  mount -t sysfs sysfs "$CHROOT/sys"
  mount --bind /dev "$CHROOT/dev"
  mount --make-rslave "$CHROOT/dev"
  mkdir -p "$CHROOT/dev/pts" "$CHROOT/dev/shm"
  mount --bind /dev/pts "$CHROOT/dev/pts"
  if mountpoint -q /dev/shm; then mount --bind /dev/shm "$CHROOT/dev/shm"; fi
}

# Runs a bash command inside the chroot with a clean environment.
in_chroot() {
  chroot "$CHROOT" /usr/bin/env -i \
    HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" CI="${CI:-}" \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    DEBIAN_FRONTEND=noninteractive \
    /bin/bash -euo pipefail -c "$1"
}

phase_start=$SECONDS
TIMINGS=()
phase_done() {
  local took=$((SECONDS - phase_start))
  TIMINGS+=("$(printf '%-22s %4d s' "$1" "$took")")
  echo "-- $1 took $took s"
  phase_start=$SECONDS
}

# Stale mounts from an interrupted run must go before anything is deleted.
unmount_all
[[ -z "$(mounts_under)" ]] || die "something is still mounted under $CHROOT; unmount it by hand"

# --- 1. the chroot -----------------------------------------------------------
chroot_complete() {
  [[ -f "$STAMP" && -x "$CHROOT/usr/bin/apt-get" && -x "$CHROOT/bin/bash" ]] \
    && grep -q '^11\.' "$CHROOT/etc/debian_version" 2>/dev/null
}
if [[ "${BULLSEYE_FRESH:-0}" == 1 ]] || ! chroot_complete; then
  if [[ -e "$CHROOT" ]]; then
    banner "removing old or incomplete chroot $CHROOT"
    rm -rf --one-file-system -- "$CHROOT"
  fi
  if ! command -v debootstrap >/dev/null 2>&1; then
    banner "installing debootstrap on the host"
    bash "$ROOT/scripts/install-deps.sh" debootstrap || die "could not install debootstrap on the host"
  fi
  banner "debootstrap --variant=minbase $SUITE $CHROOT $MIRROR"
  mkdir -p "$CHROOT"
  log="$(dirname "$CHROOT")/debootstrap-$SUITE.log"
  if ! debootstrap --variant=minbase "$SUITE" "$CHROOT" "$MIRROR" >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    [[ -f "$CHROOT/debootstrap/debootstrap.log" ]] && tail -n 40 "$CHROOT/debootstrap/debootstrap.log" >&2
    unmount_all
    die "debootstrap of $SUITE failed (full log: $log)"
  fi
  # A pristine copy (nothing installed, nothing configured) for the install
  # test of the release packages: scripts/ci-release.sh hands it to
  # scripts/ci-package.sh as PACKAGE_SEED, which saves a second debootstrap.
  unmount_all
  rm -rf --one-file-system -- "$CHROOT.minbase"
  cp -ax -- "$CHROOT" "$CHROOT.minbase" || die "copying the fresh chroot to $CHROOT.minbase failed"
  # Chroot housekeeping: no services started by package scripts; apt retries.
  printf '#!/bin/sh\nexit 101\n' >"$CHROOT/usr/sbin/policy-rc.d"
  chmod 755 "$CHROOT/usr/sbin/policy-rc.d"
  cat >"$CHROOT/etc/apt/apt.conf.d/90energyd-ci" <<'APT'
Acquire::Retries "3";
Acquire::Check-Valid-Until "false";
APT::Install-Recommends "false";
APT
  echo "deb $MIRROR $SUITE main" >"$CHROOT/etc/apt/sources.list"
  touch "$STAMP"
  phase_done "debootstrap"
else
  banner "reusing complete chroot $CHROOT (Debian $(cat "$CHROOT/etc/debian_version"))"
fi
cp -L /etc/resolv.conf "$CHROOT/etc/resolv.conf"

mount_chroot

# --- 2. the source -----------------------------------------------------------
banner "copying $ROOT to $CHROOT$SRC_IN (without .git, build*/)"
rm -rf --one-file-system -- "${CHROOT:?}$SRC_IN" "${CHROOT:?}$BUILD_IN"
mkdir -p "$CHROOT$SRC_IN" "$CHROOT$BUILD_IN"
shopt -s dotglob nullglob
entries=()
for e in "$ROOT"/*; do
  name="$(basename "$e")"
  if [[ -d "$e" && ( "$name" == build* || "$name" == .git || "$name" == .cache ) ]]; then
    continue
  fi
  entries+=("$e")
done
shopt -u dotglob nullglob
((${#entries[@]} > 0)) || die "nothing to copy from $ROOT"
cp -a -- "${entries[@]}" "$CHROOT$SRC_IN/" || die "copying the source into the chroot failed"
phase_done "copy source"

RELEASE_OUT="${RELEASE_OUT:-$ROOT/build-release}"
[[ "$RELEASE_OUT" == /* ]] || RELEASE_OUT="$ROOT/$RELEASE_OUT"
readonly RELEASE_OUT
if [[ -n "${BULLSEYE_INNER:-}" ]]; then
  [[ -f "$ROOT/$BULLSEYE_INNER" ]] || die "BULLSEYE_INNER: no such script $ROOT/$BULLSEYE_INNER"
  TAG="bullseye ($BULLSEYE_INNER)"
  banner "bash $BULLSEYE_INNER inside the chroot"
  # From scratch, as on a fresh CI machine (the chroot outlives the run).
  in_chroot "rm -rf /build/release-arm64 /build/energyd-arm64 && ARM64_INSIDE=1 ARM64_BUILD_DIR=/build/energyd-arm64 \
    ARM64_STAGE_DIR=/var/tmp/energyd-ci/arm64-stage ARM64_RELEASE_OUT=/build/release-arm64 \
    bash $SRC_IN/$BULLSEYE_INNER" || die "$BULLSEYE_INNER failed inside the bullseye chroot"
  shopt -s nullglob
  arm64_debs=("$CHROOT"/build/release-arm64/energyd*_arm64.deb)
  shopt -u nullglob
  ((${#arm64_debs[@]} == 3)) || die "$BULLSEYE_INNER left ${#arm64_debs[@]} arm64 .deb(s) in $CHROOT/build/release-arm64, not 3"
  mkdir -p "$RELEASE_OUT"
  rm -f "$RELEASE_OUT"/energyd*_arm64.deb
  cp "${arm64_debs[@]}" "$RELEASE_OUT/"
  echo "ci-bullseye.sh: arm64 release packages in $RELEASE_OUT: $(cd "$RELEASE_OUT" && echo energyd*_arm64.deb)"
  exit 0
fi

# --- 3. build dependencies, from the project's own list ----------------------
banner "scripts/install-deps.sh inside the chroot"
in_chroot "bash $SRC_IN/scripts/install-deps.sh" || die "scripts/install-deps.sh failed inside the bullseye chroot"
phase_done "install-deps"

gxx_major="$(in_chroot 'g++ -dumpversion' | cut -d. -f1)" || die "g++ does not run inside the chroot"
TAG="bullseye (g++ $gxx_major)"
banner "toolchain and library versions"
in_chroot "g++ --version | head -n1; cmake --version | head -n1
  dpkg-query -W -f='  \${Package} \${Version}\n' libspdlog-dev libyaml-cpp-dev libsqlite3-dev \
    libsystemd-dev libgtest-dev nlohmann-json3-dev libfuse3-dev python3"
[[ "$gxx_major" == 10 ]] || die "expected bullseye's g++ 10 in the chroot, found g++ $gxx_major"

# --- 4. configure, build, test -------------------------------------------------
banner "configure (cmake -DENERGY_WERROR=ON -DENERGY_RELEASE_STATIC=ON)"
# No debug info (-g): the leg proves g++ 10 builds and passes at -O2; debug
# info would cost a third of its compile time (and the release .debs carry
# no debug info either: cpack installs the binaries as built).
in_chroot "cmake -S $SRC_IN -B $BUILD_IN -DENERGY_WERROR=ON -DENERGY_BUILD_TESTS=ON -DENERGY_BUILD_BENCH=ON \
  -DENERGY_RELEASE_STATIC=ON -DCMAKE_INSTALL_PREFIX=/usr \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO='-O2 -DNDEBUG' -DCMAKE_C_FLAGS_RELWITHDEBINFO='-O2 -DNDEBUG'" \
  || die "CMake configure failed in the bullseye chroot"
phase_done "configure"

banner "build (-j$(nproc))"
in_chroot "cmake --build $BUILD_IN -j $(nproc)" || die "build failed in the bullseye chroot (g++ $gxx_major)"
phase_done "build"

banner "ctest (all labels, -j2)"
in_chroot "cd $BUILD_IN && ctest --output-on-failure -j2 --no-tests=error --timeout 900 -LE fleet" \
  || die "ctest reported failures in the bullseye chroot (log: $CHROOT$BUILD_IN/Testing/Temporary/LastTest.log)"
phase_done "ctest"

# --- 5. the release packages, from the build just tested -------------------------
banner "cpack -G DEB and scripts/check-release.sh"
in_chroot "cd $BUILD_IN && rm -f energyd*.deb && { cpack -G DEB >cpack.log 2>&1 || { tail -n 30 cpack.log; exit 1; }; }" \
  || die "cpack failed in the bullseye chroot ($CHROOT$BUILD_IN/cpack.log)"
shopt -s nullglob
debs=("$CHROOT$BUILD_IN"/energyd_*_amd64.deb "$CHROOT$BUILD_IN"/energyd-sim_*_amd64.deb
  "$CHROOT$BUILD_IN"/energyd-exporter_*_amd64.deb)
shopt -u nullglob
((${#debs[@]} == 3)) || die "cpack made ${#debs[@]} of energyd_*, energyd-sim_* and energyd-exporter_*_amd64.deb in $CHROOT$BUILD_IN"
in_chroot "bash $SRC_IN/scripts/check-release.sh ${debs[*]#"$CHROOT"}" \
  || die "the release packages failed scripts/check-release.sh (see above)"
mkdir -p "$RELEASE_OUT"
rm -f "$RELEASE_OUT"/energyd*_amd64.deb
cp "${debs[@]}" "$RELEASE_OUT/"
echo "ci-bullseye.sh: release packages in $RELEASE_OUT: $(cd "$RELEASE_OUT" && echo energyd*_amd64.deb)"
phase_done "release packages"

banner "OK: all tests passed on the release build; its packages built and checked"
printf '   %s\n' "${TIMINGS[@]}"
