# Layering check run by ctest (tests/CMakeLists.txt, test `layering`): for
# each probe target, a one-line source including one public header of a
# libenergy module and linked exactly as a consumer (energyctl_lib,
# energysim) is linked, build it and compare with the rule: a header of a
# module the consumer may use must compile, any other must fail because the
# header is not found. A consumer linked to all of `energy` fails here.
#
# Inputs (-D): BUILD_DIR, PROBES (list of TARGET=module=yes|no).
set(failures "")
foreach(probe IN LISTS PROBES)
  string(REPLACE "=" ";" parts "${probe}")
  list(GET parts 0 target)
  list(GET parts 1 header)
  list(GET parts 2 allowed)
  execute_process(
    COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target ${target}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(allowed STREQUAL "yes" AND NOT rc EQUAL 0)
    string(APPEND failures "${target}: energy/${header} should compile, build failed:\n${out}\n")
  elseif(allowed STREQUAL "no" AND rc EQUAL 0)
    string(APPEND failures "${target}: energy/${header} compiled; the consumer must not see it\n")
  elseif(allowed STREQUAL "no" AND NOT out MATCHES "energy/${header}")
    string(APPEND failures "${target}: failed, but not on energy/${header}:\n${out}\n")
  else()
    message(STATUS "${target}: energy/${header} ${allowed} as expected")
  endif()
endforeach()
if(failures)
  message(FATAL_ERROR "layering rule broken:\n${failures}")
endif()
