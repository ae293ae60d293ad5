#!/usr/bin/env bash
# The project's style, checked with the versions Debian 12 ships
# (clang-format-14, clang-tidy-14; docs/HACKING.md):
#   format: every tracked C/C++ file must be as .clang-format formats it;
#   tidy:   every C++ source changed since the commit in .ci/lint-base, and
#           for each changed header one source that includes it, must give
#           no .clang-tidy finding (every finding is an error here).
# clang-tidy costs about 10 s per file, so it runs on what changed, not on the
# whole tree; .ci/lint-base moves forward to a commit whose lint leg passed in
# CI (what changed up to it was checked then), or to one that
# `scripts/ci-lint.sh --all` found clean.
#
# Usage: scripts/ci-lint.sh [--fix | --all]
#   --fix  rewrite the files clang-format would change, then check
#   --all  clang-tidy on every source in the build, not only the changed ones
# Environment: LINT_BUILD_DIR  where CMake writes compile_commands.json
#   (default build-lint/ in the repo root; only configured, never built).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT
cd "$ROOT"
BUILD_DIR="${LINT_BUILD_DIR:-build-lint}"
[[ "$BUILD_DIR" == /* ]] || BUILD_DIR="$ROOT/$BUILD_DIR"
readonly BUILD_DIR

die() { echo "ci-lint.sh: error: $*" >&2; exit 1; }
banner() { printf '\n== lint: %s\n' "$*"; }

mode=check
case "${1:-}" in
  "") ;;
  --fix) mode=fix ;;
  --all) mode=all ;;
  *) die "unknown argument '$1' (usage: scripts/ci-lint.sh [--fix | --all])" ;;
esac
(($# <= 1)) || die "at most one argument, got $#"

banner "installing clang-format-14 and clang-tidy-14"
bash "$ROOT/scripts/install-deps.sh" clang-format-14 clang-tidy-14 || die "scripts/install-deps.sh failed"

mapfile -t sources < <(git ls-files -- '*.cpp' '*.h' '*.cc' '*.hpp')
((${#sources[@]})) || die "git ls-files found no C/C++ file (not a git checkout?)"

banner "clang-format-14 on ${#sources[@]} files"
if [[ "$mode" == fix ]]; then
  clang-format-14 -i -- "${sources[@]}"
fi
unformatted=()
for f in "${sources[@]}"; do
  clang-format-14 --dry-run --Werror -- "$f" >/dev/null 2>&1 || unformatted+=("$f")
done
if ((${#unformatted[@]})); then
  printf '  not formatted: %s\n' "${unformatted[@]}" >&2
  clang-format-14 --dry-run -- "${unformatted[0]}" 2>&1 | head -n 20 >&2 || true
  die "${#unformatted[@]} file(s) differ from .clang-format; 'scripts/ci-lint.sh --fix' rewrites them"
fi
echo "  all ${#sources[@]} files formatted"

banner "configuring $BUILD_DIR for compile_commands.json"
# One entry per source (no unity batches): clang-tidy reads each source alone,
# which also finds a source that compiles only after another in its batch.
cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DENERGY_BUILD_TESTS=ON \
  -DENERGY_BUILD_BENCH=ON -DCMAKE_UNITY_BUILD=OFF >/dev/null || die "CMake configure failed"
DB="$BUILD_DIR/compile_commands.json"
[[ -f "$DB" ]] || die "$DB was not written"
mapfile -t compiled < <(python3 -c '
import json, os, sys
root, build = sys.argv[2], os.path.relpath(sys.argv[3], sys.argv[2])
for e in json.load(open(sys.argv[1])):
    f = os.path.relpath(os.path.join(e["directory"], e["file"]), root)
    if not f.startswith(("..", build + "/")): print(f)
' "$DB" "$ROOT" "$BUILD_DIR" | sort -u)

# What changed since .ci/lint-base, decided here (not in a subshell, so that
# a bad base fails the script). A shallow clone has no history to tell: it is
# said, and clang-tidy checks nothing.
BASE=""
if [[ "$mode" != all ]]; then
  BASE="$(tr -d '[:space:]' <"$ROOT/.ci/lint-base")"
  if ! git cat-file -e "$BASE^{commit}" 2>/dev/null; then
    [[ "$(git rev-parse --is-shallow-repository)" == true ]] || die ".ci/lint-base names '$BASE', which is not a commit here"
    echo "ci-lint.sh: warning: shallow clone without $BASE; clang-tidy cannot tell what changed and checks nothing" >&2
    BASE=""
    mode=none
  fi
fi

# The sources to check: the changed ones that are compiled, and for a changed
# header the first compiled source that includes it by name.
pick_sources() {
  local changed f name user
  case "$mode" in
    all) printf '%s\n' "${compiled[@]}"; return ;;
    none) return ;;
  esac
  mapfile -t changed < <(git diff --name-only --diff-filter=d "$BASE" HEAD -- '*.cpp' '*.h')
  for f in "${changed[@]}"; do
    if [[ "$f" == *.cpp ]]; then
      [[ " ${compiled[*]} " == *" $f "* ]] && echo "$f"
      continue
    fi
    name="$(basename "$f")"
    for user in "${compiled[@]}"; do
      if grep -q -E "#include [\"<](energy/|energysim/)?$name[\">]" "$ROOT/$user"; then
        echo "$user"
        break
      fi
    done
  done | sort -u
}
mapfile -t to_check < <(pick_sources)

if ((${#to_check[@]} == 0)); then
  banner "clang-tidy-14: no C++ source to check (changed since ${BASE:-?})"
  exit 0
fi
banner "clang-tidy-14 on ${#to_check[@]} source(s), every finding an error"
jobs="$(nproc)"
printf '%s\n' "${to_check[@]}" \
  | xargs -P "$jobs" -I{} sh -c 'clang-tidy-14 -p "$1" --quiet --warnings-as-errors="*" "$2" >"$1/tidy-$(echo "$2" | tr / _).log" 2>&1 || { echo "FAIL $2"; cat "$1/tidy-$(echo "$2" | tr / _).log"; }' _ "$BUILD_DIR" {} \
  | tee "$BUILD_DIR/tidy-failures.log"
# -a: clang-tidy's output may hold bytes that make grep call the log binary
# (and count nothing).
failures="$(grep -a -c '^FAIL ' "$BUILD_DIR/tidy-failures.log" || true)"
((failures == 0)) || die "clang-tidy-14 found problems in $failures of ${#to_check[@]} source(s) (above)"
echo "  clang-tidy-14: ${#to_check[@]} source(s) clean"
