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

if(ENERGY_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
