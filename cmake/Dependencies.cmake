# Every third-party dependency comes from a Debian package, found here once.
# Versions that must work: Debian 11 (spdlog 1.8, yaml-cpp 0.6, sqlite 3.34,
# systemd 247) and Debian 12.
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)

pkg_check_modules(SQLITE3 REQUIRED IMPORTED_TARGET sqlite3>=3.31)
pkg_check_modules(LIBSYSTEMD REQUIRED IMPORTED_TARGET libsystemd>=241)
find_package(yaml-cpp REQUIRED)
find_package(nlohmann_json 3.9 REQUIRED)
find_package(spdlog REQUIRED)

# yaml-cpp 0.6 (Debian 11) and 0.7 (Debian 12) export the plain target
# `yaml-cpp`; 0.8 exports `yaml-cpp::yaml-cpp`. 0.6 also sets
# YAML_CPP_INCLUDE_DIR to a relative "include", which must not be used.
if(NOT TARGET energy_yaml)
  add_library(energy_yaml INTERFACE)
  if(TARGET yaml-cpp::yaml-cpp)
    target_link_libraries(energy_yaml INTERFACE yaml-cpp::yaml-cpp)
  else()
    target_link_libraries(energy_yaml INTERFACE yaml-cpp)
    if(YAML_CPP_INCLUDE_DIR AND IS_ABSOLUTE "${YAML_CPP_INCLUDE_DIR}")
      target_include_directories(energy_yaml INTERFACE ${YAML_CPP_INCLUDE_DIR})
    endif()
  endif()
endif()

# googletest's own config (gtest, gtest_main, gmock, gmock_main) where it
# exists; CMake's FindGTest on Debian 11 (CMake 3.18) has no gmock target.
if(ENERGY_BUILD_TESTS)
  find_package(GTest CONFIG QUIET)
  if(NOT GTest_FOUND)
    find_package(GTest REQUIRED)
  endif()
endif()
if(ENERGY_BUILD_BENCH)
  find_package(benchmark REQUIRED)
endif()
