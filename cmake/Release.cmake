# The release build (-DENERGY_RELEASE_STATIC=ON, issue 18): one binary per
# architecture that runs on every JetPack from 4.6 (Ubuntu 18.04, glibc 2.27,
# systemd 237) to 7. Built on Debian 11 (glibc 2.31, g++ 10); see
# docs/INSTALL.md section 0 and scripts/check-release.sh, which checks
# the result.
#   - libstdc++ and libgcc: linked statically.
#   - yaml-cpp, sqlite3, libfuse3: their Debian 11 static archives (.a).
#   - spdlog and fmt (Debian 11 ships no .a): header-only.
#   - libsystemd0 stays dynamic: energyd uses sd_notify (LIBSYSTEMD_209) and
#     sd_event (LIBSYSTEMD_221) only, which systemd 237 has.
#   - glibc symbols newer than 2.27 that Debian 11's headers and archives
#     bind to are redirected to their old versions (or, for
#     pthread_cond_clockwait, to a 2.27 equivalent) by
#     packaging/release/glibc_compat.cpp
#     (linked with --wrap, so the static archives are covered too).
# Included after cmake/Dependencies.cmake and before the subdirectories.

# Path of the static archive lib<name>.a, searched in the default library
# directories and in the optional hint directories.
function(energy_static_archive out name)
  find_library(energy_static_${name} NAMES lib${name}.a HINTS ${ARGN})
  if(NOT energy_static_${name})
    message(FATAL_ERROR "ENERGY_RELEASE_STATIC: no lib${name}.a (install lib${name}-dev)")
  endif()
  set(${out} ${energy_static_${name}} PARENT_SCOPE)
endfunction()

# The yaml-cpp package's directory first: ci-arm64.sh unpacks the arm64
# libyaml-cpp-dev outside /usr (it is not Multi-Arch: same).
energy_static_archive(yaml_a yaml-cpp ${yaml-cpp_DIR}/../..)
energy_static_archive(sqlite_a sqlite3)

# energy_yaml is this project's own interface target (Dependencies.cmake).
set_property(TARGET energy_yaml PROPERTY INTERFACE_LINK_LIBRARIES ${yaml_a})
if(TARGET yaml-cpp)
  get_target_property(yaml_inc yaml-cpp INTERFACE_INCLUDE_DIRECTORIES)
  if(yaml_inc)
    set_property(TARGET energy_yaml PROPERTY INTERFACE_INCLUDE_DIRECTORIES ${yaml_inc})
  endif()
endif()

# sqlite3's static archive needs libdl, libm and pthreads (its .pc Libs.private).
set_property(TARGET PkgConfig::SQLITE3 PROPERTY INTERFACE_LINK_LIBRARIES
  ${sqlite_a} ${CMAKE_DL_LIBS} m Threads::Threads)

# spdlog header-only over header-only fmt; the shared libraries that the
# imported target still names are dropped by --as-needed (nothing refers to
# them), which scripts/check-release.sh verifies.
set_property(TARGET spdlog::spdlog PROPERTY INTERFACE_COMPILE_DEFINITIONS
  SPDLOG_HEADER_ONLY SPDLOG_FMT_EXTERNAL FMT_HEADER_ONLY=1)
set_property(TARGET spdlog::spdlog PROPERTY INTERFACE_LINK_LIBRARIES Threads::Threads)

# libfuse3 (energyd-sim): created here, GLOBAL, so sim/'s pkg_check_modules
# finds the target made and keeps it (FindPkgConfig creates it only once).
if(ENERGY_BUILD_SIM)
  pkg_check_modules(FUSE3 REQUIRED IMPORTED_TARGET GLOBAL fuse3>=3.10)
  energy_static_archive(fuse_a fuse3)
  set_property(TARGET PkgConfig::FUSE3 PROPERTY INTERFACE_LINK_LIBRARIES
    ${fuse_a} ${CMAKE_DL_LIBS} Threads::Threads)
endif()

# energyd-exporter needs libmicrohttpd, which cannot be linked statically
# (Debian's archive needs GnuTLS and its libraries): it stays dynamic and goes
# in a package of its own, energyd-exporter, whose Depends name the runtime
# package by both its names (libmicrohttpd12, libmicrohttpd12t64 on Ubuntu
# 24.04); cmake/Packaging.cmake, scripts/check-release.sh.
set(ENERGY_EXPORTER_COMPONENT exporter)

add_link_options(-static-libstdc++ -static-libgcc LINKER:--as-needed)

# Every function and object in a section of its own, and the sections no
# executable reaches left out at link: energyd's text falls from 5.45 to
# 4.67 MB (g++ 12, x86-64), and with it the pages a running daemon keeps
# resident (issue 16: 0.3-0.5 MB of RSS; docs/PERFORMANCE.md "Unused code
# out of the release build").
add_compile_options(-ffunction-sections -fdata-sections)
add_link_options(LINKER:--gc-sections)

# glibc symbols newer than 2.27 that the release binaries would otherwise
# need, each redirected to its old version by packaging/release/glibc_compat.cpp.
set(ENERGY_GLIBC_WRAPPED fcntl64 exp exp2 log log2 pow pthread_cond_clockwait)
add_library(energy_glibc_compat OBJECT ${PROJECT_SOURCE_DIR}/packaging/release/glibc_compat.cpp)

# Every executable target at or below dir (recursively), in out.
function(energy_executables_under dir out)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  set(found)
  foreach(t IN LISTS targets)
    get_target_property(type ${t} TYPE)
    if(type STREQUAL "EXECUTABLE")
      list(APPEND found ${t})
    endif()
  endforeach()
  foreach(sub IN LISTS subdirs)
    energy_executables_under(${sub} sub_found)
    list(APPEND found ${sub_found})
  endforeach()
  set(${out} ${found} PARENT_SCOPE)
endfunction()

# Called at the end of the top-level CMakeLists.txt, when every executable
# exists: links the compat object into each and wraps ENERGY_GLIBC_WRAPPED.
# (Executables only: an LD_PRELOAD test shim must keep glibc's own symbols.)
function(energy_release_executables)
  list(TRANSFORM ENERGY_GLIBC_WRAPPED PREPEND "--wrap=" OUTPUT_VARIABLE wraps)
  string(REPLACE ";" "," wraps "${wraps}")
  energy_executables_under(${PROJECT_SOURCE_DIR} exes)
  foreach(exe IN LISTS exes)
    set_property(TARGET ${exe} APPEND PROPERTY LINK_LIBRARIES energy_glibc_compat)
    set_property(TARGET ${exe} APPEND PROPERTY LINK_OPTIONS "LINKER:${wraps}")
  endforeach()
endfunction()
