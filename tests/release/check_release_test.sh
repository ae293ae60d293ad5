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

# libmicrohttpd: energyd-exporter alone may need it, with symbols Ubuntu
# 18.04's 0.9.59 has (dated by Debian's symbols file).
if echo '#include <microhttpd.h>' | "$CXX" -fsyntax-only -x c++ - 2>/dev/null; then
  mkdir -p "$T/old" "$T/new"
  printf '#include <microhttpd.h>\nint main(int c, char **) { MHD_stop_daemon(MHD_start_daemon(0, (unsigned short)c, nullptr, nullptr, nullptr, nullptr, MHD_OPTION_END)); return 0; }\n' >"$T/mhd-old.cpp"
  "$CXX" -O1 -static-libstdc++ -static-libgcc -o "$T/old/energyd-exporter" "$T/mhd-old.cpp" -lmicrohttpd
  expect 0 "2 libmicrohttpd symbols, the newest from 0.9.50" "$T/old/energyd-exporter"
  cp "$T/old/energyd-exporter" "$T/old/energyctl"
  expect 1 "needs libmicrohttpd.so.12 dynamically" "$T/old/energyctl"
  CHECK_RELEASE_MHD_SYMBOLS="$T/none.symbols" expect 1 "no libmicrohttpd12 symbols file" "$T/old/energyd-exporter"
  printf '#include <microhttpd.h>\nstatic char b[4];\nint main(void) { MHD_destroy_response(MHD_create_response_from_buffer_with_free_callback(4, b, nullptr)); return 0; }\n' >"$T/mhd-new.cpp"
  "$CXX" -O1 -static-libstdc++ -static-libgcc -o "$T/new/energyd-exporter" "$T/mhd-new.cpp" -lmicrohttpd
  expect 1 "MHD_create_response_from_buffer_with_free_callback, new in libmicrohttpd 0.9.61" "$T/new/energyd-exporter"
else
  echo "skip: libmicrohttpd cases (no microhttpd.h; Debian: libmicrohttpd-dev)"
fi

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
make_deb exporter "energyd (= 1.0), libc6 (>= 2.27), libmicrohttpd12 (>= 0.9.59) | libmicrohttpd12t64"
expect 0 "Depends: energyd (= 1.0)" "$T/exporter.deb"
make_deb newmhd "libmicrohttpd12 (>= 0.9.66) | libmicrohttpd12t64"
expect 1 "needs libmicrohttpd12 (>= 0.9.66); Ubuntu 18.04 has 0.9.59" "$T/newmhd.deb"

((failures == 0)) || { echo "$failures case(s) failed"; exit 1; }
echo "all cases passed"
