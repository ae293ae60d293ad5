#!/usr/bin/env bash
# Tests scripts/check-release.sh on small binaries and packages built here
# with the host compiler: each rule must reject what breaks it and pass what
# keeps it. The glibc-version cases need a host whose plain binaries need
# nothing newer than glibc 2.27 (Debian 11: __libc_start_main@GLIBC_2.2.5);
# on newer hosts (Debian 12 binds it to 2.34) they are skipped and the other
# cases run with the limit raised to the host's glibc.
# Usage: check_release_test.sh [CXX]   (every snippet is built as C++)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CHECK="$ROOT/scripts/check-release.sh"
CXX="${1:-c++}"
T="$(mktemp -d)"
trap 'rm -rf -- "$T"' EXIT
failures=0

# expect STATUS PATTERN FILE...: check-release.sh exits STATUS and prints PATTERN.
expect() {
  local want="$1" pattern="$2" rc=0
  shift 2
  "$CHECK" "$@" >"$T/out" 2>&1 || rc=$?
  if [[ "$rc" != "$want" ]] || ! grep -q -- "$pattern" "$T/out"; then
    echo "FAIL: check-release.sh $* -> exit $rc (wanted $want and '$pattern'):"
    sed 's/^/    /' "$T/out"
    failures=$((failures + 1))
  else
    echo "ok: $(basename "$1") -> exit $rc, '$pattern'"
  fi
}

printf '#include <stdio.h>\nint main(void) { puts("hi"); return 0; }\n' >"$T/plain.cpp"
"$CXX" -O1 -static-libstdc++ -static-libgcc -o "$T/plain" "$T/plain.cpp"
baseline="$(readelf -V -W "$T/plain" | sed -n 's/.*Name: GLIBC_\([0-9.]*\) .*/\1/p' | sort -V | tail -n1)"
if dpkg --compare-versions "$baseline" gt 2.27; then
  echo "skip: glibc-version cases (this host's glibc binds a plain main to GLIBC_$baseline)"
  export CHECK_RELEASE_GLIBC_MAX="$(getconf GNU_LIBC_VERSION | cut -d' ' -f2)"
  glibc_cases=0
else
  glibc_cases=1
fi
expect 0 "OK (1 file(s))" "$T/plain"

# log() got a new version in glibc 2.29 (GLIBC_2.29 on every architecture).
printf '#include <math.h>\nint main(int c, char **) { return (int)log((double)c + 1.5); }\n' >"$T/newlog.cpp"
"$CXX" -O1 -static-libstdc++ -static-libgcc -o "$T/newlog" "$T/newlog.cpp" -lm
((glibc_cases == 0)) || expect 1 "needs GLIBC_2.29 (> GLIBC_2.27): log@GLIBC_2.29" "$T/newlog"

printf '#include <string>\nint main(int c, char **) { return (int)std::to_string(c).size(); }\n' >"$T/cxx.cpp"
"$CXX" -O1 -o "$T/cxx" "$T/cxx.cpp"
expect 1 "needs libstdc++.so.6 dynamically" "$T/cxx"
"$CXX" -O1 -static-libstdc++ -static-libgcc -o "$T/cxx-static" "$T/cxx.cpp"
expect 0 "OK" "$T/cxx-static"

# .deb control data: versions Ubuntu 18.04 has, and a package it lacks.
make_deb() {  # make_deb NAME DEPENDS
  local d="$T/deb-$1"
  mkdir -p "$d/DEBIAN" "$d/usr/bin"
  cp "$T/plain" "$d/usr/bin/plain"
  printf 'Package: %s\nVersion: 1.0\nArchitecture: %s\nMaintainer: t <t@localhost>\nDepends: %s\nDescription: test\n' \
    "$1" "$(dpkg --print-architecture)" "$2" >"$d/DEBIAN/control"
  dpkg-deb --root-owner-group -b "$d" "$T/$1.deb" >/dev/null
}
make_deb good "libc6 (>= 2.17), systemd (>= 237), init-system-helpers (>= 1.51)"
expect 0 "Depends: libc6" "$T/good.deb"
make_deb newlibc "libc6 (>= 2.34)"
expect 1 "needs libc6 (>= 2.34); Ubuntu 18.04 has 2.27" "$T/newlibc.deb"
make_deb fuse3 "libc6 (>= 2.17), fuse3"
expect 1 "depends on fuse3, which is not in the Ubuntu 18.04 list" "$T/fuse3.deb"

((failures == 0)) || { echo "$failures case(s) failed"; exit 1; }
echo "all cases passed"
