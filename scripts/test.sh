#!/usr/bin/env bash
# Runs all of energyd's tests natively: installs the build dependencies
# (scripts/install-deps.sh), configures a build directory with warnings as
# errors, builds with every core and runs every CTest test.
#
# Usage: scripts/test.sh [EXTRA_CMAKE_ARG...]
# Environment:
#   BUILD_DIR   build directory (default: build/ in the repo root; a relative
#               path is taken relative to the repo root)
#   CTEST_ARGS  extra arguments for ctest, split on spaces (e.g. "-L unit")
#   ENERGY_DEBUG_INFO  0: build without -g (RelWithDebInfo's -O2 and NDEBUG
#               kept), which compiles faster; .ci/run sets it, as the
#               bullseye and arm64 legs already build without -g.
# Exits non-zero if any step or any test fails, or if no test was found.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BUILD_DIR="${BUILD_DIR:-build}"
CTEST_ARGS="${CTEST_ARGS:-}"
DEBUG_INFO_ARGS=()
case "${ENERGY_DEBUG_INFO:-1}" in
  1) DEBUG_INFO_ARGS=(-DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g -DNDEBUG") ;;
  0) DEBUG_INFO_ARGS=(-DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG") ;;
  *) echo "test.sh: error: ENERGY_DEBUG_INFO must be 0 or 1, got '${ENERGY_DEBUG_INFO}'" >&2; exit 2 ;;
esac

die() { echo "test.sh: error: $*" >&2; exit 1; }
banner() { printf '\n== test.sh: %s\n' "$*"; }

step_start=$SECONDS
step_done() { echo "-- $1 took $((SECONDS - step_start)) s"; step_start=$SECONDS; }

banner "installing dependencies"
bash "$ROOT/scripts/install-deps.sh" || die "scripts/install-deps.sh failed"
step_done "dependencies"

# A cache left by a build of another checkout cannot be reused: start afresh.
if [[ -f "$BUILD_DIR/CMakeCache.txt" ]]; then
  cached_src="$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$BUILD_DIR/CMakeCache.txt")"
  if [[ "$cached_src" != "$ROOT" ]]; then
    echo "test.sh: $BUILD_DIR was configured for '$cached_src', not '$ROOT'; removing it"
    rm -rf -- "$BUILD_DIR"
  fi
fi

banner "configuring $BUILD_DIR ($(c++ --version | head -n1), $(cmake --version | head -n1))"
cmake -S "$ROOT" -B "$BUILD_DIR" \
  -DENERGY_WERROR=ON -DENERGY_BUILD_TESTS=ON -DENERGY_BUILD_BENCH=ON "${DEBUG_INFO_ARGS[@]}" "$@" \
  || die "CMake configure failed (build dir: $BUILD_DIR)"
step_done "configure"

banner "building with -j$(nproc)"
cmake --build "$BUILD_DIR" -j "$(nproc)" || die "build failed (build dir: $BUILD_DIR)"
step_done "build"

banner "running all tests (ctest -j2)"
# shellcheck disable=SC2086  # CTEST_ARGS is split on purpose
(cd "$BUILD_DIR" && ctest --output-on-failure -j2 --no-tests=error --timeout 900 $CTEST_ARGS) \
  || die "ctest reported failures (see above; logs in $BUILD_DIR/Testing/Temporary/LastTest.log)"
step_done "ctest"

banner "OK: all tests passed"
