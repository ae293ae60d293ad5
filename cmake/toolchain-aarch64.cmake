# Cross toolchain for arm64 (aarch64) on a Debian 12 amd64 host with Debian
# multiarch: crossbuild-essential-arm64 provides aarch64-linux-gnu-gcc/g++ and
# the cross libc in /usr/aarch64-linux-gnu; the project's libraries come from
# the :arm64 -dev packages in /usr/lib/aarch64-linux-gnu (headers are shared in
# /usr/include). Test binaries run through qemu-user (binfmt_misc is not needed).
#
#   cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64.cmake
# scripts/ci-arm64.sh installs everything this file expects. One exception:
# libyaml-cpp-dev is not Multi-Arch: same on Debian 12, so :arm64 cannot be
# installed beside the amd64 one; ci-arm64.sh unpacks it elsewhere and passes
# -Dyaml-cpp_DIR=<there>/usr/lib/aarch64-linux-gnu/cmake/yaml-cpp.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(ENERGY_CROSS_TRIPLE aarch64-linux-gnu)
set(CMAKE_C_COMPILER ${ENERGY_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${ENERGY_CROSS_TRIPLE}-g++)
# Multiarch: find_library/find_package look in <prefix>/lib/aarch64-linux-gnu
# and <prefix>/lib/aarch64-linux-gnu/cmake, never in the amd64 directories.
set(CMAKE_LIBRARY_ARCHITECTURE ${ENERGY_CROSS_TRIPLE})

# The cross libc lives in /usr/aarch64-linux-gnu; everything else is multiarch
# under /usr. Search the cross root first and then the host prefixes (BOTH):
# with CMAKE_LIBRARY_ARCHITECTURE set, the host prefixes only ever yield
# /usr/lib/aarch64-linux-gnu (libraries, CMake package files), /usr/include
# (arch-independent headers) and /usr/share (e.g. nlohmann_json's config).
# Programs (pkg-config, python3, qemu) are always the host's.
set(CMAKE_FIND_ROOT_PATH /usr/${ENERGY_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
set(CMAKE_IGNORE_PATH /usr/lib/x86_64-linux-gnu /lib/x86_64-linux-gnu
                      /usr/lib/x86_64-linux-gnu/cmake)

# pkg_check_modules: only arm64 .pc files (plus arch-independent ones). The
# toolchain file is read again for every configure, so this holds on re-runs.
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/${ENERGY_CROSS_TRIPLE}/pkgconfig:/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "")

# Run target binaries (ctest, gtest_discover_tests, custom commands) through
# qemu-user with the cross libc's loader.
# -L / uses the multiarch libc6:arm64 (same version as the libraries linked
# against). The cross toolchain's /usr/aarch64-linux-gnu loader is a different
# libc build, and mixing the two makes pthread_create hang under qemu.
set(CMAKE_CROSSCOMPILING_EMULATOR "qemu-aarch64-static;-L;/")
