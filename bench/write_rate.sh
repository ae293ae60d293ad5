#!/usr/bin/env bash
# What energyd writes and how often it wakes at its defaults (100 ms period,
# 1 s flush, 10 s checkpoint) on a simulated Orin Nano (3 rails): bytes per
# minute from /proc/PID/io write_bytes (and wchar, what energyd handed to
# write(2), which does not depend on the kernel's writeback) and wake-ups per second (voluntary +
# involuntary context switches), per thread and in all, over a window after
# it has settled. Used for issue 16's before/after figures (docs/PERFORMANCE.md).
#
# Usage: bench/write_rate.sh ENERGYD ENERGYD_SIM [WINDOW_SECONDS (default 60)]
# WRITE_RATE_BOARD="jetson-tx2 32" measures another board of the catalogue
# (energyd-sim create --board NAME --l4t VERSION; default "jetson-orin-nano 36").
# With the sweep tail (issue 16) the database is written once per five
# minutes: use a window of at least 330 s for a figure that includes it.
# WRITE_RATE_TRACE=1 also says which files the written bytes went to: perf
# records the writeback:writeback_dirty_folio tracepoint in energyd's
# threads over the window (a page going from clean to dirty, which is when
# write_bytes counts it), and the pages are summed per file of the state
# directory at the window's start and end. Pages of no such file are split
# by their call stacks: a file's data pages (dirtied through
# block_commit_write) belong to a file replaced during the window (the
# sweep tail is replaced by a new file after each commit of closed chunks,
# and a new file may get an inode number the script never saw); the rest
# are the file system's own (inode tables, bitmaps, directories: the block
# device's pages), listed by the kernel function that dirtied them and the
# system call. It also counts the store thread's context switches that
# happened inside fsync/fdatasync (waits for the disk) and outside them.
# Needs perf and root.
# WRITE_RATE_CONFIG=FILE starts energyd with --config FILE.
# WRITE_RATE_DB=FILE starts energyd on a copy of that database (e.g. one
# bench/aged_database made: a board that has kept a week, whose retention
# passes move raw chunks into the 1 s tier in 30-minute batches; use a
# window of at least 1,800 s, and a database of 169 hours or more so that
# the backlog goes before the window). WRITE_RATE_SETTLE=SECONDS: the wait
# between the start and the window (default 5; with WRITE_RATE_DB, long
# enough for the first pass's backlog).
# Exits non-zero when energyd does not start or a counter cannot be read:
# a measurement never reads zero silently.
set -euo pipefail

die() { echo "write_rate.sh: $*" >&2; exit 1; }
[[ $# -ge 2 ]] || die "usage: write_rate.sh ENERGYD ENERGYD_SIM [WINDOW_SECONDS]"
ENERGYD="$1"; SIM="$2"; WINDOW="${3:-60}"
[[ -x "$ENERGYD" ]] || die "$ENERGYD is not an executable"
[[ -x "$SIM" ]] || die "$SIM is not an executable"
[[ "$WINDOW" =~ ^[1-9][0-9]*$ ]] || die "WINDOW_SECONDS must be a whole number > 0, got '$WINDOW'"

# WRITE_RATE_TMPDIR=DIR: where the state directory is made (default
# /var/tmp): a file system of its own, mounted with the options to compare
# (e.g. lazytime; docs/PERFORMANCE.md).
# WRITE_RATE_PAGE_FOLIOS=1: the state directory goes on a 1 GiB ext4 image
# made with the verity feature (no file is verity-protected) and
# loop-mounted for the run. write_bytes counts a dirtied page-cache folio
# whole, and ext4 caches files in large folios from Linux 6.16 on, except
# on file systems with that feature: there a 4 KiB write counts 4 KiB, as
# on every L4T kernel (4.9 to 6.8). The output always says what a 4 KiB
# write into a cached file counts on the state directory's file system.
PAGE_FOLIOS="${WRITE_RATE_PAGE_FOLIOS:-0}"
[[ "$PAGE_FOLIOS" == 0 || "$PAGE_FOLIOS" == 1 ]] || die "WRITE_RATE_PAGE_FOLIOS must be 0 or 1, got '$PAGE_FOLIOS'"
[[ "$PAGE_FOLIOS" == 0 || -z "${WRITE_RATE_TMPDIR:-}" ]] || die "WRITE_RATE_PAGE_FOLIOS=1 makes its own file system: leave WRITE_RATE_TMPDIR unset"
TMP_PARENT="${WRITE_RATE_TMPDIR:-/var/tmp}"
[[ -d "$TMP_PARENT" && -w "$TMP_PARENT" ]] || die "WRITE_RATE_TMPDIR '$TMP_PARENT' is not a writable directory"
IMAGE=""
MNT=""
DIR=""
RUN_DIR=""
PID=""
cleanup() {
  [[ -n "$PID" ]] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
  [[ -z "$DIR" ]] || rm -rf -- "$DIR"
  [[ -z "$RUN_DIR" || "$RUN_DIR" == "$DIR" ]] || rm -rf -- "$RUN_DIR"
  if [[ -n "$MNT" ]]; then
    umount -- "$MNT" && rmdir -- "$MNT" && rm -f -- "$IMAGE"
  fi
}
trap cleanup EXIT
if [[ "$PAGE_FOLIOS" == 1 ]]; then
  command -v mkfs.ext4 >/dev/null || die "WRITE_RATE_PAGE_FOLIOS=1 needs mkfs.ext4"
  IMAGE="$(mktemp /var/tmp/energyd-write-rate-XXXXXX.ext4)"
  MNT="$(mktemp -d /var/tmp/energyd-write-rate-mnt-XXXXXX)"
  if ! { truncate -s 1G "$IMAGE" && mkfs.ext4 -q -F -O verity "$IMAGE" && mount -o loop "$IMAGE" "$MNT"; }; then
    rm -f -- "$IMAGE"
    rmdir -- "$MNT"
    MNT=""
    die "cannot make and mount an ext4 image with the verity feature (needs root)"
  fi
  TMP_PARENT="$MNT"
fi
DIR="$(mktemp -d "$TMP_PARENT/energyd-write-rate-XXXXXX")"
# The socket's directory is energyd's runtime directory, where it keeps the
# sweep ring when that is a tmpfs (/run/energyd under systemd): /dev/shm by
# default, as installed; WRITE_RATE_RING=0 puts it on the state's disk
# (no ring: the tail is written every flush interval, as before the ring).
RING="${WRITE_RATE_RING:-1}"
[[ "$RING" == 0 || "$RING" == 1 ]] || die "WRITE_RATE_RING must be 0 or 1, got '$RING'"
RUN_DIR="$DIR"
[[ "$RING" == 0 ]] || RUN_DIR="$(mktemp -d /dev/shm/energyd-write-rate-XXXXXX)"

read -r BOARD L4T <<<"${WRITE_RATE_BOARD:-jetson-orin-nano 36}"
[[ -n "$BOARD" && "$L4T" =~ ^[0-9]+$ ]] || die "WRITE_RATE_BOARD must be 'BOARD L4T', got '${WRITE_RATE_BOARD:-}'"
"$SIM" create --board "$BOARD" --l4t "$L4T" --root "$DIR/board" >/dev/null || die "energyd-sim create --board $BOARD --l4t $L4T failed"
TRACE="${WRITE_RATE_TRACE:-0}"
[[ "$TRACE" == 0 || "$TRACE" == 1 ]] || die "WRITE_RATE_TRACE must be 0 or 1, got '$TRACE'"
[[ "$TRACE" == 0 ]] || command -v perf >/dev/null || die "WRITE_RATE_TRACE=1 needs perf"
SETTLE="${WRITE_RATE_SETTLE:-5}"
[[ "$SETTLE" =~ ^[0-9]+$ ]] || die "WRITE_RATE_SETTLE must be a whole number of seconds, got '$SETTLE'"
if [[ -n "${WRITE_RATE_DB:-}" ]]; then
  [[ -f "$WRITE_RATE_DB" && -r "$WRITE_RATE_DB" ]] || die "WRITE_RATE_DB: cannot read '$WRITE_RATE_DB'"
  mkdir -p "$DIR/state"
  cp -- "$WRITE_RATE_DB" "$DIR/state/energyd.db" || die "cannot copy $WRITE_RATE_DB"
  [[ ! -e "$WRITE_RATE_DB-marks" ]] || cp -- "$WRITE_RATE_DB-marks" "$DIR/state/energyd.db-marks" ||
    die "cannot copy $WRITE_RATE_DB-marks"
fi
# What write_bytes counts for a 4 KiB write into a file of this file
# system that is cached whole (written in one 1 MiB write and synced):
# 4096 where the page cache holds it in 4 KiB folios, more where in larger.
FOLIO_BYTES="$(python3 - "$DIR/folio-probe" <<'PY'
import os, sys
def write_bytes():
    with open("/proc/self/io") as f:
        return next(int(l.split()[1]) for l in f if l.startswith("write_bytes:"))
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
os.write(fd, b"\1" * (1 << 20))
os.fsync(fd)
before = write_bytes()
os.pwrite(fd, b"\2" * 4096, 1 << 19)
print(write_bytes() - before)
os.close(fd)
os.unlink(sys.argv[1])
PY
)" || die "cannot measure what write_bytes counts for a 4 KiB write in $DIR"
CONFIG_ARGS=()
if [[ -n "${WRITE_RATE_CONFIG:-}" ]]; then
  [[ -r "$WRITE_RATE_CONFIG" ]] || die "WRITE_RATE_CONFIG: cannot read '$WRITE_RATE_CONFIG'"
  CONFIG_ARGS=(--config "$WRITE_RATE_CONFIG")
fi
"$ENERGYD" "${CONFIG_ARGS[@]}" --root "$DIR/board" --state-dir "$DIR/state" --socket "$RUN_DIR/energyd.sock" \
  --log-level warn >"$DIR/energyd.log" 2>&1 &
PID=$!
for _ in $(seq 200); do [[ -S "$RUN_DIR/energyd.sock" ]] && break; sleep 0.1; done
[[ -S "$RUN_DIR/energyd.sock" ]] || die "energyd did not start: $(cat "$DIR/energyd.log")"
sleep "$SETTLE"  # past the first commits and checkpoint (and a database's backlog)

# A counter of /proc/PID/io: write_bytes (what reached the block layer:
# pages dirtied, counted again when a page written back is dirtied again, so
# it depends on how often the kernel writes back) or wchar (what energyd
# handed to write(2) and pwrite(2), whatever the kernel does with it).
io_counter() {
  local v
  v="$(awk -v key="$1:" '$1 == key {print $2}' "/proc/$PID/io")" || die "cannot read /proc/$PID/io"
  [[ -n "$v" ]] || die "no $1 in /proc/$PID/io"
  echo "$v"
}
write_bytes() { io_counter write_bytes; }
# "tid:name switches" per thread (a thread's name may repeat; its id does not).
switches() {
  local t
  for t in /proc/"$PID"/task/*; do
    awk -v key="${t##*/}:$(tr -d ' ' <"$t/comm")" '/^(non)?voluntary_ctxt_switches:/ {n += $2} END {print key, n}' \
      "$t/status"
  done | sort
}

# "inode name" of the state directory's files (before and after: the sweep
# tail is replaced by a new file at each commit of closed chunks).
state_files() { stat -c '%i %n' "$DIR"/state/* | sed "s|$DIR/state/||"; }

# Pages dirtied per file over the window, from perf's record.
pages_per_file() {
  perf script -i "$DIR/wb.data" -F event,trace 2>/dev/null | sed -nE 's/.*writeback_dirty_folio:.* ino=([0-9]+) .*/\1/p' |
    sort | uniq -c | awk -v files="$1" '
      BEGIN {n = split(files, l, "\n"); for (i = 1; i <= n; i++) {split(l[i], f, " "); name[f[1]] = name[f[1]] (name[f[1]] ? "," : "") f[2]}}
      {k = ($2 in name) ? name[$2] : "not named at the ends"; pages[k] += $1; total += $1}
      END {for (k in pages) printf "pages dirtied %-30s %6d (%d bytes)\n", k, pages[k], pages[k] * 4096
           printf "pages dirtied %-30s %6d (%d bytes)\n", "all", total, total * 4096}' | sort -k3
}

# The pages of no state file known at the window's ends, by cause: for
# each, its first kernel frame that is not the dirtying itself, and its
# system call; block_commit_write is a file's data (a replaced file).
metadata_causes() {
  perf script -i "$DIR/wb.data" -F event,trace,ip,sym 2>/dev/null | awk -v files="$1" '
    BEGIN {n = split(files, l, "\n"); for (i = 1; i <= n; i++) {split(l[i], f, " "); known[f[1]] = 1}}
    /^ *[a-z_]+:[a-z_0-9]+:/ {if (key != "") count[key]++; key = ""; meta = 0; cause = ""; call = ""
                               if ($0 ~ /writeback_dirty_folio:/ && match($0, / ino=[0-9]+ /))
                                 meta = !(substr($0, RSTART + 5, RLENGTH - 6) in known)
                               next}
    meta && NF >= 2 {sym = $2; sub(/\+.*/, "", sym)
                     if (cause == "" && sym !~ /dirty|ext4_handle|mark_iloc|jbd2/) cause = sym
                     if (call == "" && sym ~ /^__(x64|do)_sys_/) call = sym
                     key = cause " via " (call == "" ? "no system call" : call)}
    END {if (key != "") count[key]++
         for (k in count) {
           if (k ~ /^block_commit_write /) replaced += count[k]; else metadata += count[k]
           printf "%s pages %6d %s\n", k ~ /^block_commit_write / ? "replaced-file" : "metadata", count[k], k
         }
         printf "pages dirtied %-30s %6d (%d bytes)\n", "files replaced in the window", replaced, replaced * 4096
         printf "pages dirtied %-30s %6d (%d bytes)\n", "file system metadata", metadata, metadata * 4096}' |
    sort -k1,1 -k3,3rn
}

# The store thread's switches inside and outside fsync/fdatasync.
store_switches() {
  perf script -i "$DIR/wb.data" -F comm,event 2>/dev/null | awk '
    $1 != "store" {next}
    /sys_enter_f(data)?sync/ {inside = 1; syncs++}
    /sys_exit_f(data)?sync/ {inside = 0}
    /sched_switch/ {if (inside) in_sync++; else out++}
    END {if (out + in_sync == 0) exit 1
         printf "store thread: %d switches in %d fsync/fdatasync calls, %d outside them\n", in_sync, syncs, out}' ||
    die "perf recorded no switch of the store thread"
}

files0="$(state_files)"
w0="$(write_bytes)"; c0="$(io_counter wchar)"; s0="$(switches)"; t0="$(date +%s.%N)"
if [[ "$TRACE" == 1 ]]; then
  perf record -q -g -e writeback:writeback_dirty_folio -e sched:sched_switch -e 'syscalls:sys_*_fdatasync' \
    -e 'syscalls:sys_*_fsync' -p "$PID" -o "$DIR/wb.data" -- sleep "$WINDOW" >/dev/null 2>&1 ||
    die "perf record failed"
else
  sleep "$WINDOW"
fi
w1="$(write_bytes)"; c1="$(io_counter wchar)"; s1="$(switches)"; t1="$(date +%s.%N)"
kill -0 "$PID" 2>/dev/null || die "energyd ended during the window: $(cat "$DIR/energyd.log")"

secs="$(echo "$t1 - $t0" | bc -l)"
echo "energyd: $ENERGYD"
echo "board: $BOARD (L4T $L4T)"
echo "sweep ring: $([[ "$RING" == 1 ]] && echo "on ($RUN_DIR)" || echo off)"
echo "window: $(printf %.1f "$secs") s"
[[ -z "${WRITE_RATE_DB:-}" ]] || echo "database: a copy of $WRITE_RATE_DB"
echo "state directory: $DIR ($(findmnt -no FSTYPE,OPTIONS -T "$DIR" || echo "file system unknown")$(
  [[ -z "$IMAGE" ]] || echo ", an ext4 image with the verity feature"))"
echo "kernel: $(uname -r); write_bytes of a 4 KiB write into a cached file here: $FOLIO_BYTES bytes"
printf 'written: %d bytes, %.0f bytes/min\n' "$((w1 - w0))" "$(echo "($w1 - $w0) * 60 / $secs" | bc -l)"
printf 'handed to write(2): %d bytes, %.0f bytes/min\n' "$((c1 - c0))" "$(echo "($c1 - $c0) * 60 / $secs" | bc -l)"
join <(echo "$s0") <(echo "$s1") | awk -v s="$secs" '
  {d = $3 - $2; total += d; printf "wake-ups/s %-16s %6.2f\n", $1, d / s}
  END {if (NR == 0) exit 1; printf "wake-ups/s %-16s %6.2f\n", "all", total / s}' ||
  die "no thread counters read"
if [[ "$TRACE" == 1 ]]; then
  per_file="$(pages_per_file "$(printf '%s\n%s\n' "$files0" "$(state_files)" | sort -u)")"
  [[ -n "$per_file" ]] || die "perf recorded no dirtied page"
  echo "$per_file"
  metadata_causes "$(printf '%s\n%s\n' "$files0" "$(state_files)" | sort -u)"
  store_switches
fi
