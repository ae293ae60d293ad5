# Compiler settings as INTERFACE targets: every project target links
# energy_warnings; nothing sets flags globally.
add_library(energy_warnings INTERFACE)
target_compile_options(energy_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast
  -Wcast-align -Wunused -Woverloaded-virtual -Wconversion -Wsign-conversion
  -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough)
if(ENERGY_WERROR)
  target_compile_options(energy_warnings INTERFACE -Werror)
endif()
# Unity builds (CMAKE_UNITY_BUILD=ON, as CI builds: docs/HACKING.md) include
# each source into a batch file, so g++ takes a class a source defines for
# its header's declaration (e.g. ContextSummary::State) as one defined in a
# header and warns when it holds a type of the source's anonymous namespace.
# Every source is still one translation unit in the default build, which
# keeps the warning for the headers themselves.
if(CMAKE_UNITY_BUILD AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  target_compile_options(energy_warnings INTERFACE -Wno-subobject-linkage)
endif()

# Sanitizers apply to every target (libraries included), so they are the one
# global setting. -fno-sanitize-recover=all: a UBSan finding aborts the
# process (a test or fuzz run fails) instead of printing and going on.
if(ENERGY_FUZZ)
  # libFuzzer targets (fuzz/): every library is instrumented for coverage;
  # only the fuzz executables link libFuzzer's main (-fsanitize=fuzzer).
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "ENERGY_FUZZ needs clang (libFuzzer), e.g. -DCMAKE_CXX_COMPILER=clang++-14; "
                        "got ${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER}")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=all)
  add_link_options(-fsanitize=address,undefined)
elseif(ENERGY_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=all)
  add_link_options(-fsanitize=address,undefined)
  # g++ 12's instrumentation makes -Wmaybe-uninitialized report std::regex's
  # own code (bits/regex_automaton.h); the uninstrumented builds keep the warning.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    add_compile_options(-Wno-maybe-uninitialized)
  endif()
endif()
