#!/usr/bin/env bash
# Cross-builds energyd's release configuration for arm64 (aarch64) in the
# Debian 11 chroot of scripts/ci-bullseye.sh (issue 18: the binaries must run
# on JetPack 4.6's glibc 2.27), runs the `unit` tests under qemu-user against
# that Debian 11 arm64 root, and builds and checks the arm64 release .debs.
#
# On the host, this script hands over to scripts/ci-bullseye.sh with
# BULLSEYE_INNER=scripts/ci-arm64.sh: that makes or reuses the chroot, copies
# the source in, and runs this script inside it (ARM64_INSIDE=1); the .debs
# come back to $RELEASE_OUT (default build-release/). Everything below runs
# inside the chroot, as root.
#
# Installs (through scripts/install-deps.sh) crossbuild-essential-arm64,
# qemu-user-static and the :arm64 -dev packages, configures with
# cmake/toolchain-aarch64.cmake and -DENERGY_WERROR=ON, builds, checks with
# `file` that the binaries are aarch64 and runs `ctest -L unit`. Only label
# `unit`: binfmt_misc is not registered, so a test that spawns another arm64
# process (label `integration`) cannot run; ctest and gtest_discover_tests run
# each test binary through CMAKE_CROSSCOMPILING_EMULATOR instead.
#
# Environment:
#   ARM64_BUILD_DIR  build directory (default build-arm64/ in the repo root; a
#                    relative path is taken relative to the repo root)
#   ARM64_STAGE_DIR  where the arm64 libyaml-cpp-dev is unpacked (default
#                    /var/tmp/energyd-ci/arm64-stage; see below)
#   ARM64_RELEASE_OUT  where the arm64 .debs go (inside the chroot)
#   ARM64_INSIDE=1   set by ci-bullseye.sh: run here, do not hand over
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT
cd "$ROOT"
if [[ "${ARM64_INSIDE:-0}" != 1 ]]; then
  exec env BULLSEYE_INNER=scripts/ci-arm64.sh bash "$ROOT/scripts/ci-bullseye.sh"
fi
BUILD_DIR="${ARM64_BUILD_DIR:-build-arm64}"
readonly TOOLCHAIN="$ROOT/cmake/toolchain-aarch64.cmake"
STAGE="${ARM64_STAGE_DIR:-/var/tmp/energyd-ci/arm64-stage}"  # see libyaml-cpp-dev below

die() { echo "ci-arm64.sh: error: $*" >&2; exit 1; }
banner() { printf '\n== arm64 (cross, qemu-user): %s\n' "$*"; }

phase_start=$SECONDS
TIMINGS=()
phase_done() {
  local took=$((SECONDS - phase_start))
  TIMINGS+=("$(printf '%-22s %4d s' "$1" "$took")")
  echo "-- $1 took $took s"
  phase_start=$SECONDS
}

if [[ "$(id -u)" -eq 0 ]]; then
  SUDO=()
elif command -v sudo >/dev/null 2>&1; then
  SUDO=(sudo)
else
  die "not root and sudo is not available (needed for dpkg --add-architecture)"
fi

[[ "$STAGE" == /?*/?* && "$STAGE" != "$ROOT"/* ]] \
  || die "ARM64_STAGE_DIR must be an absolute path outside the source tree (got '$STAGE')"
[[ "$(dpkg --print-architecture)" == amd64 ]] \
  || die "this script cross-builds from an amd64 host; this one is $(dpkg --print-architecture)"

# --- 1. toolchain, emulator and arm64 libraries -------------------------------
banner "installing the cross toolchain and :arm64 libraries"
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  echo "ci-arm64.sh: dpkg --add-architecture arm64"
  "${SUDO[@]}" dpkg --add-architecture arm64 || die "dpkg --add-architecture arm64 failed"
fi
ARM64_PACKAGES=(
  crossbuild-essential-arm64 qemu-user-static file libc6:arm64
  libsystemd-dev:arm64 libspdlog-dev:arm64 libfmt-dev:arm64
  libsqlite3-dev:arm64 libgtest-dev:arm64 libgmock-dev:arm64 libfuse3-dev:arm64 libmicrohttpd-dev:arm64
  nlohmann-json3-dev
)

# libyaml-cpp-dev is not Multi-Arch: same (Debian 12): the :arm64 one would
# replace the amd64 one that native builds need. Unless it is installed already
# (a machine used only for cross builds), its arm64 .deb (and the runtime
# library's, for the file the CMake package points at) is unpacked into
# $STAGE, and find_package(yaml-cpp) is pointed there; the runtime library
# itself (libyaml-cpp0.N, Multi-Arch: same) is installed for qemu to load.
YAML_CMAKE_ARGS=()
if [[ "$(dpkg-query -W -f='${db:Status-Abbrev}' libyaml-cpp-dev:arm64 2>/dev/null || true)" != ii* ]]; then
  yaml_candidate() { apt-cache policy libyaml-cpp-dev:arm64 2>/dev/null | awk '/Candidate:/ { print $2 }'; }
  yaml_ver="$(yaml_candidate)"
  if [[ -z "$yaml_ver" || "$yaml_ver" == "(none)" ]]; then
    "${SUDO[@]}" apt-get -q -o Acquire::Retries=3 update >/dev/null || die "'apt-get update' failed"
    yaml_ver="$(yaml_candidate)"
  fi
  [[ -n "$yaml_ver" && "$yaml_ver" != "(none)" ]] || die "apt knows no libyaml-cpp-dev:arm64"
  if [[ "$(cat "$STAGE/.staged" 2>/dev/null || true)" != "libyaml-cpp-dev:arm64=$yaml_ver "* ]]; then
    echo "ci-arm64.sh: unpacking libyaml-cpp-dev:arm64 $yaml_ver into $STAGE"
    dl="$(mktemp -d)"
    chmod 755 "$dl"
    (cd "$dl" && apt-get -q -o Acquire::Retries=3 download "libyaml-cpp-dev:arm64=$yaml_ver" >/dev/null 2>&1) \
      || die "apt-get download libyaml-cpp-dev:arm64=$yaml_ver failed"
    dev_deb="$(ls "$dl"/libyaml-cpp-dev_*_arm64.deb)"
    yaml_runtime="$(dpkg-deb -f "$dev_deb" Depends | tr ',' '\n' | sed -n 's/^ *\(libyaml-cpp0[^ ]*\).*/\1/p' | head -n1)"
    [[ -n "$yaml_runtime" ]] || die "cannot tell libyaml-cpp-dev:arm64's runtime package from its Depends"
    (cd "$dl" && apt-get -q -o Acquire::Retries=3 download "$yaml_runtime:arm64=$yaml_ver" >/dev/null 2>&1) \
      || die "apt-get download $yaml_runtime:arm64=$yaml_ver failed"
    rm -rf -- "$STAGE"
    mkdir -p "$STAGE"
    for deb in "$dl"/*.deb; do dpkg-deb -x "$deb" "$STAGE"; done
    rm -rf -- "$dl"
    echo "libyaml-cpp-dev:arm64=$yaml_ver $yaml_runtime" >"$STAGE/.staged"
  fi
  yaml_runtime="$(cut -d' ' -f2 "$STAGE/.staged")"
  ARM64_PACKAGES+=("$yaml_runtime:arm64")
  yaml_dir="$STAGE/usr/lib/aarch64-linux-gnu/cmake/yaml-cpp"
  [[ -d "$yaml_dir" ]] || die "no CMake package in the unpacked libyaml-cpp-dev:arm64 ($yaml_dir)"
  YAML_CMAKE_ARGS=(-Dyaml-cpp_DIR="$yaml_dir")
fi

bash "$ROOT/scripts/install-deps.sh" "${ARM64_PACKAGES[@]}" \
  || die "installing the arm64 cross toolchain/libraries failed (scripts/install-deps.sh ${ARM64_PACKAGES[*]})"
command -v qemu-aarch64-static >/dev/null || die "qemu-aarch64-static not found after installing qemu-user-static"
[[ -e /lib/ld-linux-aarch64.so.1 ]] \
  || die "/lib/ld-linux-aarch64.so.1 missing (libc6:arm64, which qemu runs the tests with)"
phase_done "install"

# --- 2. configure --------------------------------------------------------------
# A cache from a native build, or from another checkout, cannot be reused.
if [[ -f "$BUILD_DIR/CMakeCache.txt" ]]; then
  cached_src="$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$BUILD_DIR/CMakeCache.txt")"
  cached_cxx="$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$BUILD_DIR/CMakeCache.txt")"
  if [[ "$cached_src" != "$ROOT" || "$cached_cxx" != *aarch64-linux-gnu-g++* ]]; then
    echo "ci-arm64.sh: $BUILD_DIR holds another configuration (source '$cached_src', compiler '$cached_cxx'); removing it"
    rm -rf -- "$BUILD_DIR"
  fi
fi

banner "configure $BUILD_DIR ($(aarch64-linux-gnu-g++ --version | head -n1))"
cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_TOOLCHAIN_FILE="$TOOLCHAIN" \
  -DENERGY_WERROR=ON -DENERGY_BUILD_TESTS=ON -DENERGY_RELEASE_STATIC=ON -DCMAKE_INSTALL_PREFIX=/usr \
  "${YAML_CMAKE_ARGS[@]}" \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG" \
  || die "CMake configure failed for the arm64 cross build (toolchain: $TOOLCHAIN)"
# Nothing may have been found in the amd64 library directories.
if grep -E '^[^#/].*=.*(/usr)?/lib/x86_64-linux-gnu/[^;]*\.(so|a)' "$BUILD_DIR/CMakeCache.txt"; then
  die "the arm64 configuration picked up amd64 libraries (see above, $BUILD_DIR/CMakeCache.txt)"
fi
phase_done "configure"

# --- 3. build --------------------------------------------------------------------
banner "build (-j$(nproc), -Werror)"
cmake --build "$BUILD_DIR" -j "$(nproc)" || die "arm64 cross build failed (build dir: $BUILD_DIR)"
phase_done "build"

# --- 4. the binaries really are aarch64 -----------------------------------------
banner "checking the produced binaries with file(1)"
mapfile -t elves < <(find "$BUILD_DIR" -path '*/CMakeFiles' -prune -o -type f \
  \( -perm -u+x -o -name '*.so' -o -name '*.so.*' \) -print | sort)
checked=0
for f in "${elves[@]}"; do
  desc="$(file -b "$f")"
  [[ "$desc" == ELF* ]] || continue
  echo "$f: $desc"
  [[ "$desc" == *"ARM aarch64"* ]] || die "$f is not an aarch64 binary"
  checked=$((checked + 1))
done
if ((checked == 0)); then
  # No executable yet: check the objects that went into the static libraries.
  mapfile -t objs < <(find "$BUILD_DIR" -name '*.o' | sort)
  ((${#objs[@]} > 0)) || die "the arm64 build produced no binary to check"
  for f in "${objs[@]}"; do
    desc="$(file -b "$f")"
    echo "$f: $desc"
    [[ "$desc" == *"ARM aarch64"* ]] || die "$f is not an aarch64 object"
    checked=$((checked + 1))
  done
fi
echo "ci-arm64.sh: $checked file(s) checked, all aarch64"
phase_done "file check"

# --- 5. unit tests under qemu-user ----------------------------------------------------
banner "ctest -L unit (through qemu-aarch64-static -L /)"
(cd "$BUILD_DIR" && ctest -L unit --output-on-failure -j2 --no-tests=error --timeout 900) \
  || die "arm64 unit tests failed under qemu (log: $BUILD_DIR/Testing/Temporary/LastTest.log)"
phase_done "ctest -L unit"

# --- 6. the arm64 release packages ---------------------------------------------------
banner "cpack -G DEB and scripts/check-release.sh"
rm -f "$BUILD_DIR"/energyd*.deb
(cd "$BUILD_DIR" && cpack -G DEB >cpack.log 2>&1) || { tail -n 30 "$BUILD_DIR/cpack.log" >&2; die "cpack failed"; }
bash "$ROOT/scripts/check-release.sh" "$BUILD_DIR"/energyd_*_arm64.deb "$BUILD_DIR"/energyd-sim_*_arm64.deb \
  "$BUILD_DIR"/energyd-exporter_*_arm64.deb \
  || die "the arm64 release packages failed scripts/check-release.sh (see above)"
if [[ -n "${ARM64_RELEASE_OUT:-}" ]]; then
  mkdir -p "$ARM64_RELEASE_OUT"
  cp "$BUILD_DIR"/energyd*_arm64.deb "$ARM64_RELEASE_OUT/"
fi
phase_done "packages"

banner "OK: arm64 release build, unit tests and packages passed"
printf '   %s\n' "${TIMINGS[@]}"
