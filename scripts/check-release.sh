#!/usr/bin/env bash
# Checks that release binaries and packages run on every JetPack from 4.6
# (Ubuntu 18.04) on (issue 18). Usage:
#   scripts/check-release.sh FILE...
# FILE is an ELF executable or a .deb; every ELF file inside a .deb is
# checked, and the .deb's control data too. For each ELF file (any
# architecture: readelf reads them all):
#   - DT_NEEDED only from ALLOWED_NEEDED (glibc's libraries, libsystemd.so.0);
#     the C++ runtime, spdlog, fmt, yaml-cpp, sqlite3 and fuse3 must be static;
#   - no version needed from glibc newer than GLIBC_MAX, none from libsystemd
#     newer than LIBSYSTEMD_MAX (readelf -V, the .gnu.version_r section; the
#     symbols are named from readelf --dyn-syms).
#   - energyd-exporter alone may also need libmicrohttpd.so.12 (it cannot be
#     linked statically); every MHD_ symbol it imports must be dated in
#     Debian's symbols file of libmicrohttpd12 (CHECK_RELEASE_MHD_SYMBOLS, by
#     default the one dpkg installed) at or before MHD_MAX, Ubuntu 18.04's
#     0.9.59. libmicrohttpd has no symbol versions, so this is the check.
# For each .deb: Depends and Pre-Depends name only packages that Ubuntu 18.04
# has, with versions it satisfies (UBUNTU_1804 below), or this project's own
# packages, and Architecture is amd64 or arm64.
# CHECK_RELEASE_GLIBC_MAX overrides 2.27 (tests/release/check_release_test.sh
# uses it on hosts whose glibc is newer, for the checks other than glibc's).
# Exit status 0 when everything passes, 1 when something does not (each
# finding printed), 2 on a usage error.
set -euo pipefail

readonly GLIBC_MAX="${CHECK_RELEASE_GLIBC_MAX:-2.27}"
readonly LIBSYSTEMD_MAX=237
ALLOWED_NEEDED=(libc.so.6 libm.so.6 libpthread.so.0 libdl.so.2 librt.so.1 libsystemd.so.0
  ld-linux-x86-64.so.2 ld-linux-aarch64.so.1)
# Ubuntu 18.04's libmicrohttpd12 is 0.9.59 (20.04: 0.9.66, 22.04: 0.9.75;
# 24.04 renamed the package libmicrohttpd12t64).
readonly MHD_MAX=0.9.59
OWN_PACKAGES=(energyd energyd-sim energyd-exporter)

# Ubuntu 18.04 (bionic, JetPack 4.6) package versions. libc6 2.27, systemd and
# libsystemd0 237, python3 3.6: the table in issue 18. The others from the
# bionic archive (packages.ubuntu.com/bionic): init-system-helpers 1.51,
# adduser 3.116, passwd/login 4.5, fuse 2.9.7 (bionic has no fuse3).
declare -A UBUNTU_1804=(
  [libc6]=2.27 [libsystemd0]=237 [systemd]=237 [python3]=3.6
  [init-system-helpers]=1.51 [adduser]=3.116 [passwd]=4.5 [login]=4.5 [fuse]=2.9.7
  [libmicrohttpd12]=$MHD_MAX
)

failures=0
fail() { echo "check-release.sh: FAIL: $*"; failures=$((failures + 1)); }
die() { echo "check-release.sh: error: $*" >&2; exit 2; }

# version_gt A B: A > B in dpkg's ordering.
version_gt() { dpkg --compare-versions "$1" gt "$2"; }

check_needed() {
  local elf="$1" lib ok allowed
  while read -r lib; do
    ok=0
    for allowed in "${ALLOWED_NEEDED[@]}"; do [[ "$lib" == "$allowed" ]] && ok=1; done
    if [[ "$lib" == libmicrohttpd.so.12 && "$(basename "$elf")" == energyd-exporter ]]; then
      check_mhd_symbols "$elf"
      ok=1
    fi
    ((ok)) || fail "$elf needs $lib dynamically (only glibc and libsystemd.so.0 may be)"
  done < <(readelf -d -W "$elf" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
}

# The symbols file that dates libmicrohttpd's symbols (Debian's, from dpkg).
mhd_symbols_file() {
  local f="${CHECK_RELEASE_MHD_SYMBOLS:-}"
  [[ -n "$f" ]] || f="$(ls /var/lib/dpkg/info/libmicrohttpd12*.symbols 2>/dev/null | head -n1)"
  echo "$f"
}

# Every MHD_ symbol elf imports, dated at or before MHD_MAX.
check_mhd_symbols() {
  local elf="$1" file sym since n=0 newest=0
  file="$(mhd_symbols_file)"
  [[ -r "$file" ]] || { fail "$elf: no libmicrohttpd12 symbols file to date its MHD_ symbols (install libmicrohttpd12)"; return; }
  while read -r sym; do
    since="$(awk -v s="$sym@Base" '$1 == s { print $2 }' "$file")"
    if [[ -z "$since" ]]; then
      fail "$elf imports $sym, which $file does not list"
    elif version_gt "$since" "$MHD_MAX"; then
      fail "$elf imports $sym, new in libmicrohttpd $since (Ubuntu 18.04 has $MHD_MAX)"
    fi
    n=$((n + 1))
    [[ -n "$since" ]] && version_gt "$since" "$newest" && newest="$since"
  done < <(readelf --dyn-syms -W "$elf" | awk '$7 == "UND" && $8 ~ /^MHD_/ { sub(/@.*/, "", $8); print $8 }' | sort -u)
  echo "checked $elf: $n libmicrohttpd symbols, the newest from $newest (Ubuntu 18.04 has $MHD_MAX)"
  return 0
}

# Symbols of elf that need version ver (for the message).
symbols_of() { readelf --dyn-syms -W "$1" | awk -v v="@$2" 'index($8, v) { print $8 }' | sort -u | tr '\n' ' '; }

check_versions() {
  local elf="$1" ver num
  while read -r ver; do
    case "$ver" in
      GLIBC_2.*) num="${ver#GLIBC_}"; version_gt "$num" "$GLIBC_MAX" \
        && fail "$elf needs $ver (> GLIBC_$GLIBC_MAX): $(symbols_of "$elf" "$ver")" ;;
      LIBSYSTEMD_*) num="${ver#LIBSYSTEMD_}"; version_gt "$num" "$LIBSYSTEMD_MAX" \
        && fail "$elf needs $ver (> LIBSYSTEMD_$LIBSYSTEMD_MAX): $(symbols_of "$elf" "$ver")" ;;
      GLIBC_PRIVATE) fail "$elf needs GLIBC_PRIVATE: $(symbols_of "$elf" "$ver")" ;;
    esac
  done < <(readelf -V -W "$elf" | sed -n 's/.*Name: \([A-Z_]*[0-9.]*[A-Z]*\) .*/\1/p' | sort -u)
  return 0
}

check_elf() {
  local elf="$1" newest
  check_needed "$elf"
  check_versions "$elf"
  newest="$(readelf -V -W "$elf" | sed -n 's/.*Name: GLIBC_\([0-9.]*\) .*/\1/p' | sort -V | tail -n1)"
  echo "checked $elf: needs $(readelf -d -W "$elf" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')(newest glibc version ${newest:-none})"
}

# One "name (op version)" or "name" relation against UBUNTU_1804.
check_relation() {
  local deb="$1" rel="$2" name op ver have
  name="$(sed -E 's/^ *([^ (:]+).*/\1/' <<<"$rel")"
  local own
  for own in "${OWN_PACKAGES[@]}"; do [[ "$name" == "$own" ]] && return 0; done
  have="${UBUNTU_1804[$name]:-}"
  [[ -n "$have" ]] || { fail "$deb depends on $name, which is not in the Ubuntu 18.04 list"; return; }
  local re='\( *([<>=]+) *([^ )]+) *\)'
  [[ "$rel" =~ $re ]] || return 0
  op="${BASH_REMATCH[1]}"; ver="${BASH_REMATCH[2]}"
  case "$op" in
    '>=' | '>>' | '=') version_gt "$ver" "$have" && fail "$deb needs $name ($op $ver); Ubuntu 18.04 has $have" ;;
  esac
  return 0
}

check_deb_control() {
  local deb="$1" field alt arch
  arch="$(dpkg-deb -f "$deb" Architecture)"
  [[ "$arch" == amd64 || "$arch" == arm64 ]] || fail "$deb: Architecture $arch (expected amd64 or arm64)"
  for field in Pre-Depends Depends; do
    while read -r alt; do
      [[ -n "$alt" ]] && check_relation "$deb" "${alt%%|*}"  # the first alternative must exist
    done < <(dpkg-deb -f "$deb" "$field" | tr ',' '\n')
  done
  echo "checked $deb: Architecture $arch, Depends: $(dpkg-deb -f "$deb" Depends)"
}

check_deb() {
  local deb="$1" dir f
  dir="$(mktemp -d)"
  dpkg-deb -x "$deb" "$dir"
  check_deb_control "$deb"
  local found=0
  while IFS= read -r -d '' f; do
    [[ "$(head -c4 "$f" | od -An -c | tr -d ' ')" == 177ELF ]] || continue
    check_elf "$f"
    found=$((found + 1))
  done < <(find "$dir" -type f -print0)
  ((found > 0)) || fail "$deb holds no ELF file"
  rm -rf -- "$dir"
}

(($# > 0)) || die "usage: check-release.sh FILE... (ELF executables or .deb packages)"
command -v readelf >/dev/null || die "readelf (binutils) is missing"
for f in "$@"; do
  [[ -f "$f" ]] || die "no such file: $f"
  case "$f" in
    *.deb) check_deb "$f" ;;
    *) check_elf "$f" ;;
  esac
done
if ((failures > 0)); then
  echo "check-release.sh: $failures finding(s)"
  exit 1
fi
echo "check-release.sh: OK ($# file(s))"
