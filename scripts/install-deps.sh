#!/usr/bin/env bash
# Installs, with apt-get, every Debian package needed to build and test energyd
# natively on Debian 12 (bookworm) or Debian 11 (bullseye). Idempotent: when
# everything is already installed it returns at once without touching apt.
#
# Usage: scripts/install-deps.sh [EXTRA_PACKAGE...]
#   Extra package names (e.g. "libfmt-dev:arm64") are installed together with
#   the base list; scripts/ci-arm64.sh uses this for the cross toolchain.
# Never removes a package: if apt would remove one (e.g. a -dev package that is
# not Multi-Arch: same), it stops with an error instead.
# Runs as root directly, otherwise through sudo.
set -euo pipefail

# The one list of packages needed to build and test natively (systemd: its
# systemd-analyze checks the unit in CTest systemd_unit_check; prometheus:
# the server and promtool for the fleet test, tests/fleet).
PACKAGES=(
  build-essential cmake pkg-config
  libsystemd-dev libspdlog-dev libyaml-cpp-dev nlohmann-json3-dev
  libsqlite3-dev sqlite3
  libgtest-dev libgmock-dev libbenchmark-dev
  libfuse3-dev fuse3
  python3
  systemd
  libmicrohttpd-dev prometheus
)
# energyctl's plots: gnuplot runs in CTest plot_render_test (label render),
# which decodes the PNGs with zlib.
PACKAGES+=(gnuplot-nox zlib1g-dev)
# pip install of clients/python in CTest python_client_py36 (issue 18).
PACKAGES+=(python3-pip python3-setuptools python3-wheel)
# The sampling thread's instructions per tick, under callgrind, in CTest
# tick_instructions_bounded (bench/tick_instructions.sh; issue 16).
PACKAGES+=(valgrind)
PACKAGES+=("$@")

die() { echo "install-deps.sh: error: $*" >&2; exit 1; }

command -v dpkg-query >/dev/null 2>&1 || die "dpkg-query not found: this script supports Debian 11/12 only"
command -v apt-get >/dev/null 2>&1 || die "apt-get not found: this script supports Debian 11/12 only"
NATIVE_ARCH="$(dpkg --print-architecture)"

# "name" means the native (or arch-independent) package, as it does for apt;
# "name:arch" means that architecture's package.
is_installed() {
  local pkg="$1" status arch
  if [[ "$pkg" == *:* ]]; then
    [[ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$pkg" 2>/dev/null || true)" == ii* ]]
    return
  fi
  while IFS='|' read -r status arch; do
    if [[ "$status" == ii* && ( "$arch" == "$NATIVE_ARCH" || "$arch" == all ) ]]; then
      return 0
    fi
  done < <(dpkg-query -W -f='${db:Status-Abbrev}|${Architecture}\n' "$pkg" 2>/dev/null || true)
  return 1
}

missing=()
for pkg in "${PACKAGES[@]}"; do
  is_installed "$pkg" || missing+=("$pkg")
done

if ((${#missing[@]} == 0)); then
  echo "install-deps.sh: all ${#PACKAGES[@]} packages already installed"
  exit 0
fi

if [[ "$(id -u)" -eq 0 ]]; then
  SUDO=()
elif command -v sudo >/dev/null 2>&1; then
  SUDO=(sudo)
else
  die "not root and sudo is not available; cannot install: ${missing[*]}"
fi
apt_get() {
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q \
    -o Acquire::Retries=3 -o DPkg::Lock::Timeout=300 -o Dpkg::Use-Pty=0 "$@"
}

echo "install-deps.sh: installing ${#missing[@]} missing package(s): ${missing[*]}"
start=$SECONDS
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
# apt's own messages go to a log that is shown only when something fails.
if ! apt_get update >"$log" 2>&1; then
  cat "$log" >&2
  die "'apt-get update' failed (is deb.debian.org reachable?)"
fi
# Dry run first: refuse anything that would remove an installed package.
if ! apt_get -s -y --no-install-recommends install "${missing[@]}" >"$log" 2>&1; then
  cat "$log" >&2
  die "apt-get cannot install: ${missing[*]}"
fi
if grep -q '^Remv ' "$log"; then
  grep '^Remv ' "$log" >&2
  die "installing '${missing[*]}' would remove the packages above; refusing (not Multi-Arch co-installable?)"
fi
if ! apt_get -y --no-install-recommends install "${missing[@]}" >"$log" 2>&1; then
  cat "$log" >&2
  die "'apt-get install' failed for: ${missing[*]}"
fi

# Verify that apt really installed everything that was missing.
for pkg in "${missing[@]}"; do
  is_installed "$pkg" || die "package '$pkg' is still not installed after apt-get"
done
echo "install-deps.sh: done in $((SECONDS - start)) s"
