# Debian packages with CPack (`cpack -G DEB` in a build configured with
# -DCMAKE_INSTALL_PREFIX=/usr; scripts/ci-package.sh builds, installs and
# purges them in a fresh Debian chroot):
#   energyd      the daemon, energyctl, units, groups, config, man pages,
#                completion; maintainer scripts in packaging/deb/
#   energyd-sim  the board simulator (needs FUSE), for trying energyd without a board
#   energyd-exporter  the Prometheus exporter: release build only (below);
#                the distribution build puts it in `energyd`
# Depends come from dpkg-shlibdeps plus what the maintainer scripts run.
# Each description's first line is the package synopsis (no
# CPACK_PACKAGE_DESCRIPTION_SUMMARY, which CPack would put in front of both).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME energyd)
set(CPACK_PACKAGE_VENDOR "energyd")
set(CPACK_PACKAGE_CONTACT "energyd maintainers <energyd@localhost>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL energyd sim)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

set(CPACK_DEBIAN_ENERGYD_PACKAGE_NAME energyd)
set(CPACK_DEBIAN_ENERGYD_DESCRIPTION
  "energy measurement daemon for NVIDIA Jetson boards\nenergyd samples the board's power monitors (INA3221, INA238) through sysfs,\nstores the readings and serves energyctl: live power, marked runs with their\nenergy per rail, raw exports and clock pinning under leases.")
# systemd-sysusers/-tmpfiles and deb-systemd-helper/-invoke in the maintainer scripts.
set(CPACK_DEBIAN_ENERGYD_PACKAGE_DEPENDS "systemd (>= 245), init-system-helpers (>= 1.52)")
# energyctl draws plots (`sweep plot`, `plot RUN`) with gnuplot when it is
# installed; without it, it says to install gnuplot-nox.
set(CPACK_DEBIAN_ENERGYD_PACKAGE_RECOMMENDS "gnuplot-nox | gnuplot")
set(CPACK_DEBIAN_ENERGYD_PACKAGE_CONTROL_EXTRA
  ${PROJECT_SOURCE_DIR}/packaging/deb/postinst
  ${PROJECT_SOURCE_DIR}/packaging/deb/prerm
  ${PROJECT_SOURCE_DIR}/packaging/deb/postrm
  ${PROJECT_SOURCE_DIR}/packaging/deb/conffiles)

set(CPACK_DEBIAN_SIM_PACKAGE_NAME energyd-sim)
set(CPACK_DEBIAN_SIM_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_SIM_DESCRIPTION
  "simulated NVIDIA Jetson boards for energyd\nenergyd-sim builds the sysfs trees of every Jetson board and L4T release and\nserves them live over FUSE with a power model, for trying and testing energyd\nwithout hardware.")
set(CPACK_DEBIAN_SIM_PACKAGE_DEPENDS "fuse3")

# The release build (-DENERGY_RELEASE_STATIC=ON, issue 18) runs on JetPack 4.6
# to 7: its Depends are written out, at the versions Ubuntu 18.04 has
# (scripts/check-release.sh checks both the binaries and these fields); no
# dpkg-shlibdeps, which would state Debian 11's versions and does not work
# for the arm64 cross build. energyd-sim links libfuse3 statically; fuse3
# (absent from Ubuntu 18.04) only brings fusermount3 for mounting as a
# non-root user.
if(ENERGY_RELEASE_STATIC)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
  set(CPACK_DEBIAN_ENERGYD_PACKAGE_DEPENDS
    "libc6 (>= 2.27), libsystemd0 (>= 237), systemd (>= 237), init-system-helpers (>= 1.51)")
  set(CPACK_DEBIAN_SIM_PACKAGE_DEPENDS "libc6 (>= 2.27)")
  set(CPACK_DEBIAN_SIM_PACKAGE_RECOMMENDS "fuse3")
  # energyd-exporter links libmicrohttpd dynamically (cmake/Release.cmake):
  # its runtime package is libmicrohttpd12 up to Ubuntu 22.04 (0.9.59 on
  # 18.04) and libmicrohttpd12t64 on 24.04. check-release.sh dates every
  # MHD_ symbol the binary imports against Debian's symbols file, so
  # `>= 0.9.59` holds. energyd's own version: the unit joins its group.
  if(TARGET energyd-exporter)
    list(APPEND CPACK_COMPONENTS_ALL exporter)
    set(CPACK_DEBIAN_EXPORTER_PACKAGE_NAME energyd-exporter)
    set(CPACK_DEBIAN_EXPORTER_PACKAGE_SECTION admin)
    set(CPACK_DEBIAN_EXPORTER_DESCRIPTION
      "Prometheus exporter for energyd\nenergyd-exporter serves energyd's live power, joule counters and sampler\nhealth at http://127.0.0.1:9862/metrics for Prometheus (unit installed\ndisabled; docs/FLEET.md).")
    set(CPACK_DEBIAN_EXPORTER_PACKAGE_DEPENDS
      "energyd (= ${PROJECT_VERSION}), libc6 (>= 2.27), libmicrohttpd12 (>= 0.9.59) | libmicrohttpd12t64")
    set(CPACK_DEBIAN_EXPORTER_PACKAGE_CONTROL_EXTRA
      ${PROJECT_SOURCE_DIR}/packaging/deb/exporter/prerm
      ${PROJECT_SOURCE_DIR}/packaging/deb/exporter/postrm)
  endif()
  if(CMAKE_SYSTEM_PROCESSOR STREQUAL "aarch64")
    set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE arm64)
  endif()
endif()

include(CPack)
