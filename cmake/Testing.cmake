# energy_add_gtest(NAME <name> SOURCES <files...> [LIBS <targets...>] [LABELS <labels...>])
# One GoogleTest executable registered with CTest. Label `unit` marks tests that
# run anywhere, including under qemu-user in the arm64 cross build; label
# `integration` marks tests that start processes (daemon, CLI, simulator).
include(GoogleTest)
function(energy_add_gtest)
  cmake_parse_arguments(T "" "NAME" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${T_NAME} ${T_SOURCES})
  target_link_libraries(${T_NAME} PRIVATE ${T_LIBS} GTest::gtest GTest::gtest_main
                        energy_warnings Threads::Threads)
  # The test's own sources only (the libraries under test keep the build
  # type's flags): ENERGY_TEST_CXX_FLAGS, -Og by default, compiles the
  # GoogleTest sources in about two thirds of -O2's time (docs/HACKING.md).
  target_compile_options(${T_NAME} PRIVATE ${ENERGY_TEST_CXX_FLAGS})
  if(NOT T_LABELS)
    set(T_LABELS unit)
  endif()
  if(CMAKE_CROSSCOMPILING)
    # Under qemu-user (the arm64 leg) one CTest test per executable: starting
    # qemu once per GoogleTest case, and once more to list them, was most of
    # the leg's test time; the same tests run, in one process per executable.
    add_test(NAME ${T_NAME} COMMAND ${T_NAME})
    set_tests_properties(${T_NAME} PROPERTIES LABELS "${T_LABELS}" TIMEOUT 900)
    return()
  endif()
  gtest_discover_tests(${T_NAME}
    PROPERTIES LABELS "${T_LABELS}"
    DISCOVERY_TIMEOUT 120
    DISCOVERY_MODE PRE_TEST)
endfunction()
