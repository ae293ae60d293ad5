#!/usr/bin/env bash
# The service as an administrator gets it (issue 7, QUALITY.md S1/S4):
#   1. scripts/check-unit.sh on systemd/energyd.service:
#      `systemd-analyze verify` clean, `security --offline=yes` exposure <= 1.5
#   2. the .deb packages from CPack (energyd, energyd-sim), with their
#      control data, file lists and Depends (dpkg-shlibdeps) checked
#   3. in a fresh Debian 12 chroot (Debian 11 with PACKAGE_SUITE=bullseye;
#      debootstrap --variant=minbase, made once and copied for every run): `apt-get install ./energyd_*.deb` (Depends
#      resolved from the mirror), the groups, files, enabled unit and man
#      pages checked, the installed unit verified again, energyd started on a
#      simulated board and driven with energyctl by root, a member of the
#      read group and another user; then `dpkg --purge` and a check that the
#      files, state, enablement and groups are gone.
#   4. the same root booted under systemd-nspawn (a real systemd as PID 1):
#      the package installed, the unit started by its postinst with the whole
#      sandbox, pointed at a simulated board by a drop-in and driven with
#      energyctl; no capabilities, watchdog armed, restart after kill -9,
#      `systemd-analyze security` on the live unit; purged; powered off.
#
# Environment:
#   BUILD_DIR        build directory to package from (default build/, reused
#                    from scripts/test.sh; reconfigured with the /usr prefix)
#   PACKAGE_CHROOT   pristine chroot (default /var/tmp/energyd-ci/bookworm-pkg;
#                    must be outside the source tree)
#   PACKAGE_MIRROR   Debian mirror (default http://deb.debian.org/debian)
#   PACKAGE_FRESH=1  re-create the pristine chroot
#   PACKAGE_SUITE    Debian release of the chroot (default bookworm; bullseye
#                    for the release packages, scripts/ci-release.sh)
#   PACKAGE_SEED     a pristine `debootstrap --variant=minbase $PACKAGE_SUITE`
#                    root, copied instead of running debootstrap when the
#                    pristine chroot has to be made (must be that release)
#   PACKAGE_DEBS     "ENERGYD_DEB SIM_DEB [EXPORTER_DEB]": test these prebuilt
#                    packages (the release build's; energyd-exporter is a
#                    package of its own there) instead of building them: steps 1-2 are
#                    skipped but for the file-list checks, and the Depends are
#                    left to scripts/check-release.sh. Systemd older than 250
#                    (bullseye's 247) has no `security --offline`, and its
#                    `verify` may only warn about directives it does not know
#                    (docs/SECURITY.md lists them per JetPack).
# Needs root (debootstrap, chroot, mount).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT
cd "$ROOT"
BUILD_DIR="${BUILD_DIR:-build}"
[[ "$BUILD_DIR" == /* ]] || BUILD_DIR="$ROOT/$BUILD_DIR"
BASE="${PACKAGE_CHROOT:-/var/tmp/energyd-ci/bookworm-pkg}"
MIRROR="${PACKAGE_MIRROR:-http://deb.debian.org/debian}"
SUITE="${PACKAGE_SUITE:-bookworm}"
readonly SUITE
case "$SUITE" in
  bookworm | bullseye) ;;
  *) echo "ci-package.sh: error: PACKAGE_SUITE must be bookworm or bullseye (got '$SUITE')" >&2; exit 1 ;;
esac
PREBUILT="${PACKAGE_DEBS:-}"
# A pristine minbase root of $SUITE to copy instead of running debootstrap
# (scripts/ci-bullseye.sh leaves one); ignored unless it is that release.
SEED="${PACKAGE_SEED:-}"
if [[ -n "$SEED" ]]; then
  declare -A SUITE_MAJOR=([bullseye]=11 [bookworm]=12)
  if ! grep -q "^${SUITE_MAJOR[$SUITE]}\." "$SEED/etc/debian_version" 2>/dev/null || [[ ! -x "$SEED/usr/bin/apt-get" ]]; then
    echo "ci-package.sh: PACKAGE_SEED $SEED is not a Debian ${SUITE_MAJOR[$SUITE]} root; running debootstrap instead"
    SEED=""
  fi
fi

die() { echo "ci-package.sh: error: $*" >&2; exit 1; }
banner() { printf '\n== package: %s\n' "$*"; }

phase_start=$SECONDS
TIMINGS=()
phase_done() {
  local took=$((SECONDS - phase_start))
  TIMINGS+=("$(printf '%-26s %4d s' "$1" "$took")")
  echo "-- $1 took $took s"
  phase_start=$SECONDS
}

[[ "$(id -u)" -eq 0 ]] || die "must run as root (debootstrap, chroot, mount)"
[[ "$BASE" == /?*/?* && "$BASE" != "$ROOT"/* ]] \
  || die "PACKAGE_CHROOT must be an absolute path outside the source tree (got '$BASE')"
WORK="$BASE.run"  # the copy each run installs into; removed at the end
readonly BASE WORK

# --- mounts under the work chroot: always undone --------------------------
mounts_under() {
  awk -v d="$WORK" '$5 == d || index($5, d "/") == 1 { print $5 }' /proc/self/mountinfo | sort -r
}
unmount_all() {
  local m
  for m in $(mounts_under); do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true; done
}
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  [[ -n "${DAEMON_STARTED:-}" ]] && in_work 'kill "$(cat /tmp/energyd.pid)" || true' >/dev/null 2>&1
  if [[ -n "${NSPAWN_PID:-}" ]] && kill -0 "$NSPAWN_PID" 2>/dev/null; then
    kill "$NSPAWN_PID" 2>/dev/null || true
    wait "$NSPAWN_PID" 2>/dev/null || true
  fi
  unmount_all
  [[ -z "$(mounts_under)" ]] && rm -rf --one-file-system -- "$WORK"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

in_work() {
  chroot "$WORK" /usr/bin/env -i HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin /bin/bash -euo pipefail -c "$1"
}

# --- 0. tools ---------------------------------------------------------------
banner "tools (systemd-analyze, man, dpkg-shlibdeps, debootstrap)"
bash "$ROOT/scripts/install-deps.sh" systemd systemd-container man-db dpkg-dev debootstrap \
  || die "installing the packaging tools failed"
phase_done "tools"

# --- 1. the unit --------------------------------------------------------------
if [[ -z "$PREBUILT" ]]; then
banner "configure $BUILD_DIR with CMAKE_INSTALL_PREFIX=/usr and build what is packaged"
cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_INSTALL_PREFIX=/usr >/dev/null || die "CMake configure failed"
cmake --build "$BUILD_DIR" -j "$(nproc)" --target energyd energyctl energyd-sim energy_man_pages \
  || die "building energyd, energyctl, energyd-sim or the man pages failed"
phase_done "build"

banner "systemd/energyd.service: verify and security"
bash "$ROOT/scripts/check-unit.sh" "$ROOT/systemd/energyd.service" "$BUILD_DIR/daemon/energyd" "$ROOT/docs/man" \
  || die "the unit failed systemd-analyze (see above)"
phase_done "unit check"

# --- 2. the packages -----------------------------------------------------------
banner "cpack -G DEB"
rm -f "$BUILD_DIR"/energyd*.deb
(cd "$BUILD_DIR" && cpack -G DEB >cpack.log 2>&1) || { tail -n 30 "$BUILD_DIR/cpack.log" >&2; die "cpack failed"; }
DEB="$(ls "$BUILD_DIR"/energyd_*.deb 2>/dev/null | head -n1)"
SIM_DEB="$(ls "$BUILD_DIR"/energyd-sim_*.deb 2>/dev/null | head -n1)"
[[ -f "$DEB" && -f "$SIM_DEB" ]] || die "cpack made no energyd_*.deb and energyd-sim_*.deb in $BUILD_DIR"
dpkg-deb --info "$DEB"
depends="$(dpkg-deb -f "$DEB" Depends)"
for need in libsystemd0 libsqlite3 libyaml-cpp systemd init-system-helpers; do
  [[ "$depends" == *"$need"* ]] || die "$DEB: Depends lacks $need (got: $depends)"
done
else
  read -r DEB SIM_DEB EXPORTER_DEB <<<"$PREBUILT"
  [[ -f "$DEB" && -f "$SIM_DEB" ]] || die "PACKAGE_DEBS must name two or three .deb files (got '$PREBUILT')"
  [[ -z "$EXPORTER_DEB" || -f "$EXPORTER_DEB" ]] || die "PACKAGE_DEBS: no such file $EXPORTER_DEB"
  mkdir -p "$BUILD_DIR"
  dpkg-deb --info "$DEB"
fi
control_files="$(dpkg-deb --ctrl-tarfile "$DEB" | tar -t)"
for f in postinst prerm postrm conffiles; do
  grep -Eqx "(\./)?$f" <<<"$control_files" || die "$DEB has no $f (control: $(echo $control_files))"
done
dpkg-deb --contents "$DEB" | awk '{ print $6 }' >"$BUILD_DIR/energyd.files"
for f in ./usr/sbin/energyd ./usr/bin/energyctl ./etc/energyd/energyd.yaml ./usr/lib/sysusers.d/energyd.conf \
  ./usr/lib/tmpfiles.d/energyd.conf ./usr/share/man/man8/energyd.8.gz ./usr/share/man/man1/energyctl.1.gz \
  ./usr/share/man/man5/energyd.yaml.5.gz ./usr/share/bash-completion/completions/energyctl; do
  grep -qx "$f" "$BUILD_DIR/energyd.files" || die "$DEB lacks $f"
done
grep -Eq '^\./(usr/)?lib/systemd/system/energyd\.service$' "$BUILD_DIR/energyd.files" || die "$DEB lacks the unit"
phase_done "cpack"

# --- 3. install, use, purge in a fresh Debian chroot --------------------------------
if [[ "${PACKAGE_FRESH:-0}" == 1 || ! -f "$BASE/.energyd-ci-complete" ]]; then
  rm -rf --one-file-system -- "$BASE"
  if [[ -n "$SEED" ]]; then
    banner "copying the pristine $SUITE root $SEED to $BASE (instead of debootstrap)"
    cp -ax -- "$SEED" "$BASE" || die "copying $SEED to $BASE failed"
  else
    banner "debootstrap --variant=minbase $SUITE $BASE"
    mkdir -p "$BASE"
    debootstrap --variant=minbase "$SUITE" "$BASE" "$MIRROR" >"$BASE.debootstrap.log" 2>&1 \
      || { tail -n 30 "$BASE.debootstrap.log" >&2; die "debootstrap failed (log: $BASE.debootstrap.log)"; }
  fi
  printf 'Acquire::Retries "3";\nAPT::Install-Recommends "false";\n' >"$BASE/etc/apt/apt.conf.d/90energyd-ci"
  echo "deb $MIRROR $SUITE main" >"$BASE/etc/apt/sources.list"
  touch "$BASE/.energyd-ci-complete"
  phase_done "debootstrap"
fi
unmount_all
rm -rf --one-file-system -- "$WORK"
cp -a "$BASE" "$WORK"
cp -L /etc/resolv.conf "$WORK/etc/resolv.conf"
mkdir -p "$WORK/proc" "$WORK/dev" "$WORK/tmp/debs"
mount -t proc proc "$WORK/proc"
mount --bind /dev "$WORK/dev"
if [[ "$SUITE" != bookworm ]]; then
  # systemd < 250's `systemd-analyze verify` needs the cgroup file system.
  mkdir -p "$WORK/sys"
  mount --rbind /sys "$WORK/sys"
  mount --make-rslave "$WORK/sys"
fi
cp "$DEB" "$SIM_DEB" ${EXPORTER_DEB:+"$EXPORTER_DEB"} "$WORK/tmp/debs/"
# energyd-exporter: in the energyd package, or a package of its own (release).
EXPORTER_PKG=""
[[ -n "${EXPORTER_DEB:-}" ]] && EXPORTER_PKG=energyd-exporter

banner "apt-get install ./energyd_*.deb ./energyd-sim_*.deb"
in_work 'apt-get -q update >/dev/null && apt-get -q -y install /tmp/debs/*.deb >/tmp/apt.log 2>&1 || { tail -n 40 /tmp/apt.log; exit 1; }' \
  || die "installing the packages in a fresh $SUITE failed"
phase_done "install"

banner "installed: groups, files, enablement, unit"
in_work '
  getent group energyd >/dev/null || { echo "group energyd missing"; exit 1; }
  getent group energyd-clock >/dev/null || { echo "group energyd-clock missing"; exit 1; }
  test -d /var/lib/energyd || { echo "/var/lib/energyd missing"; exit 1; }
  test -L /etc/systemd/system/multi-user.target.wants/energyd.service || { echo "energyd.service not enabled"; exit 1; }
  energyd --version && energyctl --help >/dev/null && energyd-sim --help >/dev/null
  if [ -x /usr/sbin/energyd-exporter ]; then
    energyd-exporter --help >/dev/null
    test -f /lib/systemd/system/energyd-exporter.service || { echo "energyd-exporter.service missing"; exit 1; }
    if systemctl is-enabled energyd-exporter >/dev/null 2>&1; then echo "energyd-exporter.service enabled"; exit 1; fi
  elif [ -n "'"$EXPORTER_PKG"'" ]; then
    echo "energyd-exporter not installed by its package"; exit 1
  fi
  out="$(SYSTEMD_COLORS=0 systemd-analyze verify --man=no /lib/systemd/system/energyd.service 2>&1)" \
    || { echo "installed unit: systemd-analyze verify failed: $out"; exit 1; }
  unknown="Unknown key name .* in section .Service., ignoring"
  echo "$out" | grep "$unknown" || true  # directives this systemd predates: ignored
  out="$(echo "$out" | grep -v "$unknown" || true)"
  [ -z "$out" ] || { echo "installed unit: $out"; exit 1; }
  if [ "$(systemd-analyze --version | sed -n "1s/^systemd \([0-9]*\).*/\1/p")" -ge 250 ]; then
    systemd-analyze security --offline=yes --threshold=15 /lib/systemd/system/energyd.service | tail -n1
  fi
' || die "the installed package is incomplete (see above)"

banner "energyd on a simulated board, driven by root, a read-group member and another user"
DAEMON_STARTED=1
in_work '
  useradd --no-create-home --groups energyd reader
  useradd --no-create-home other
  energyd-sim create --board jetson-orin-nano --l4t 36 --root /tmp/board >/dev/null
  energyd --config /etc/energyd/energyd.yaml --root /tmp/board >/tmp/energyd.log 2>&1 &
  echo $! >/tmp/energyd.pid
  for i in $(seq 100); do [ -S /run/energyd/energyd.sock ] && break; sleep 0.1; done
  [ -S /run/energyd/energyd.sock ] || { cat /tmp/energyd.log; exit 1; }
  stat -c "%a %U:%G %n" /run/energyd/energyd.sock
  energyctl status >/tmp/status.out
  head -n 5 /tmp/status.out
  as() { setpriv --reuid="$1" --regid="$1" --init-groups -- "${@:2}"; }
  as reader energyctl mark start pkgtest >/dev/null
  sleep 0.5
  as reader energyctl mark stop pkgtest >/tmp/stop.out
  tail -n 3 /tmp/stop.out
  if as other energyctl status >/tmp/other.out 2>&1; then echo "another user could read"; exit 1; fi
  cat /tmp/other.out
  if [ -x /usr/sbin/energyd-exporter ]; then
    # setpriv itself (not the `as` function, a subshell) so that $! is the
    # exporter; port 0: the chroot shares the host network, so any fixed
    # port may be taken there. The exporter logs the port it bound.
    setpriv --reuid=reader --regid=reader --init-groups -- energyd-exporter --listen 127.0.0.1:0 \
      >/tmp/exporter.log 2>&1 &
    exporter_pid=$!
    for i in $(seq 50); do grep -q "serving /metrics" /tmp/exporter.log && break; sleep 0.1; done
    port="$(sed -n "s/.*serving \/metrics on 127.0.0.1 port \([0-9]*\) .*/\1/p" /tmp/exporter.log)"
    [ -n "$port" ] && [ "$port" != 0 ] || { echo "energyd-exporter did not start:"; cat /tmp/exporter.log; exit 1; }
    exec 3<>"/dev/tcp/127.0.0.1/$port"
    printf "GET /metrics HTTP/1.0\r\nHost: localhost\r\n\r\n" >&3
    cat <&3 >/tmp/metrics.out
    exec 3<&-
    kill "$exporter_pid"
    wait "$exporter_pid" || true
    grep -q "^energyd_power_watts{" /tmp/metrics.out || { cat /tmp/exporter.log; head -n 20 /tmp/metrics.out; exit 1; }
    echo "energyd-exporter: $(grep -c "^energyd_" /tmp/metrics.out) samples at /metrics"
  fi
  kill "$(cat /tmp/energyd.pid)"
  for i in $(seq 100); do kill -0 "$(cat /tmp/energyd.pid)" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$(cat /tmp/energyd.pid)" 2>/dev/null; then echo "energyd did not stop on SIGTERM"; exit 1; fi
' || die "driving the installed energyd failed"
DAEMON_STARTED=
phase_done "use"

banner "dpkg --purge $EXPORTER_PKG energyd-sim energyd"
in_work "userdel reader; userdel other; dpkg --purge $EXPORTER_PKG energyd-sim energyd"
in_work '
  for f in /usr/sbin/energyd /usr/bin/energyctl /etc/energyd /var/lib/energyd /usr/lib/sysusers.d/energyd.conf \
           /usr/sbin/energyd-exporter /lib/systemd/system/energyd-exporter.service \
           /etc/systemd/system/multi-user.target.wants/energyd.service /usr/share/man/man8/energyd.8.gz; do
    if [ -e "$f" ] || [ -L "$f" ]; then echo "left after purge: $f"; exit 1; fi
  done
  for g in energyd energyd-clock; do
    if getent group "$g" >/dev/null; then echo "group $g left after purge"; exit 1; fi
  done
  echo "purged: no files, state, enablement or groups left"
' || die "purge left things behind (see above)"
phase_done "purge"

# --- 4. boot it under systemd-nspawn ----------------------------------------------
banner "systemd-nspawn --boot: the packaged unit under a real systemd"
unmount_all
cp "$DEB" "$SIM_DEB" ${EXPORTER_DEB:+"$EXPORTER_DEB"} "$WORK/root/"  # /tmp is a tmpfs once systemd runs
rm -f "$WORK/etc/resolv.conf" && cp -L /etc/resolv.conf "$WORK/etc/resolv.conf"
# --keep-unit --register=no: the host need not run systemd or machined.
timeout 600 systemd-nspawn -D "$WORK" --boot --register=no --keep-unit --console=read-only \
  --machine=energyd-ci >"$BUILD_DIR/nspawn.log" 2>&1 &
NSPAWN_PID=$!
# The container's PID 1 is the grandchild of systemd-nspawn.
init_pid=""
for _ in $(seq 300); do
  for child in $(pgrep -P "$NSPAWN_PID" || true); do init_pid="$(pgrep -x -P "$child" systemd || true)"; done
  [[ -n "$init_pid" ]] && break
  kill -0 "$NSPAWN_PID" 2>/dev/null || { tail -n 30 "$BUILD_DIR/nspawn.log" >&2; die "systemd-nspawn exited"; }
  sleep 0.1
done
[[ -n "$init_pid" ]] || die "no systemd inside the container after 30 s (log: $BUILD_DIR/nspawn.log)"
in_boot() {
  nsenter -t "$init_pid" -a /usr/bin/env -i HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
    PATH=/usr/sbin:/usr/bin:/sbin:/bin /bin/bash -euo pipefail -c "$1"
}
in_boot 'for i in $(seq 120); do
           s="$(systemctl is-system-running 2>/dev/null || true)"
           case "$s" in running | degraded) echo "container: $s"; exit 0 ;; esac
           sleep 0.5
         done; echo "container did not finish booting: $s"; exit 1' || die "the container did not boot"
phase_done "boot"

in_boot '
  apt-get -q -y install /root/energyd*.deb >/root/apt.log 2>&1 || { tail -n 30 /root/apt.log; exit 1; }
  systemctl is-enabled energyd
  systemctl is-active energyd || { journalctl -u energyd --no-pager | tail -n 20; exit 1; }
  mkdir -p /etc/systemd/system/energyd.service.d
  printf "[Service]\nExecStart=\nExecStart=/usr/sbin/energyd --config /etc/energyd/energyd.yaml --root /srv/board\n" \
    >/etc/systemd/system/energyd.service.d/simulated-board.conf
  energyd-sim create --board jetson-orin-nano --l4t 36 --root /srv/board >/dev/null
  systemctl daemon-reload
  systemctl restart energyd
  systemctl show energyd -p StatusText -p WatchdogUSec -p Restart -p RestartUSec
  pid="$(systemctl show -p MainPID --value energyd)"
  grep -q "^CapEff:[[:space:]]*0*$" "/proc/$pid/status" || { grep Cap "/proc/$pid/status"; echo "energyd has capabilities"; exit 1; }
  energyctl status >/root/status.out && head -n 2 /root/status.out
  useradd --no-create-home --groups energyd reader
  useradd --no-create-home other
  as() { setpriv --reuid="$1" --regid="$1" --init-groups -- "${@:2}"; }
  as reader energyctl mark start boot-test >/dev/null
  sleep 0.5
  as reader energyctl mark stop boot-test >/root/stop.out && tail -n 2 /root/stop.out
  if as other energyctl status >/root/other.out 2>&1; then echo "another user could read"; exit 1; fi
  kill -9 "$pid"
  for i in $(seq 100); do
    [ "$(systemctl show -p NRestarts --value energyd)" -ge 1 ] && systemctl is-active -q energyd && break
    sleep 0.2
  done
  echo "after kill -9: NRestarts=$(systemctl show -p NRestarts --value energyd), $(systemctl is-active energyd)"
  [ "$(systemctl show -p NRestarts --value energyd)" -ge 1 ] || { echo "not restarted"; exit 1; }
  for i in $(seq 100); do energyctl status >/dev/null 2>&1 && break; sleep 0.1; done
  energyctl status >/dev/null
  systemd-analyze security energyd | tail -n 1
  systemctl start energyd-exporter
  for i in $(seq 50); do (: >/dev/tcp/127.0.0.1/9862) 2>/dev/null && break; sleep 0.1; done
  exec 3<>/dev/tcp/127.0.0.1/9862
  printf "GET /metrics HTTP/1.0\r\nHost: localhost\r\n\r\n" >&3
  cat <&3 >/root/metrics.out
  exec 3<&-
  grep -q "^energyd_power_watts{" /root/metrics.out \
    || { journalctl -u energyd-exporter --no-pager | tail -n 20; head -n 20 /root/metrics.out; exit 1; }
  echo "energyd-exporter.service: $(grep -c "^energyd_" /root/metrics.out) samples at /metrics"
  systemctl stop energyd-exporter
  userdel reader; userdel other
  rm -rf /etc/systemd/system/energyd.service.d /srv/board
  apt-get -q -y purge '"$EXPORTER_PKG"' energyd-sim energyd >/root/purge.log 2>&1 || { tail -n 20 /root/purge.log; exit 1; }
  if systemctl cat energyd >/dev/null 2>&1; then echo "unit still known after purge"; exit 1; fi
  if getent group energyd >/dev/null || getent group energyd-clock >/dev/null; then echo "groups left"; exit 1; fi
  if [ -e /var/lib/energyd ] || [ -e /run/energyd ]; then echo "state left"; exit 1; fi
  echo "booted: installed, started by postinst, driven, restarted after kill -9, purged"
' || { journalctl_tail="$(in_boot 'journalctl -u energyd --no-pager | tail -n 30' 2>&1 || true)"
       echo "$journalctl_tail" >&2; die "the packaged unit under systemd-nspawn failed (see above)"; }
in_boot 'systemctl poweroff' >/dev/null 2>&1 || true
for _ in $(seq 300); do kill -0 "$NSPAWN_PID" 2>/dev/null || break; sleep 0.1; done
kill "$NSPAWN_PID" 2>/dev/null || true
wait "$NSPAWN_PID" 2>/dev/null || true
NSPAWN_PID=
phase_done "nspawn boot test"

banner "OK: unit checked, packages built, installed, used and purged, booted under systemd"
printf '   %s\n' "${TIMINGS[@]}"
