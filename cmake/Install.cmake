# Where `cmake --install` puts things (Debian/Ubuntu layout with
# -DCMAKE_INSTALL_PREFIX=/usr; a prefix such as /usr/local or a test
# directory keeps everything under it, except the config, which follows
# CMAKE_INSTALL_SYSCONFDIR as GNUInstallDirs sets it).
#
# systemd's directories come from its pkg-config file (package `systemd` on
# Debian 11/12 and Ubuntu), with the Debian paths as the fallback; each can be
# overridden with -DENERGY_SYSTEMD_UNITDIR=... and friends.

# A pkg-config directory is used only for the /usr prefix: under any other
# prefix the file goes to <prefix>/<fallback>. A non-empty cache value (-D)
# wins; empty means "work it out" (so a change of prefix is followed).
function(energy_system_dir var pc_module pc_variable fallback)
  set(${var} "" CACHE PATH "Install directory for ${pc_variable} (empty: from pkg-config ${pc_module} or the prefix)")
  if(${var})
    return()
  endif()
  set(dir "${CMAKE_INSTALL_PREFIX}/${fallback}")
  if(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
    pkg_get_variable(found ${pc_module} ${pc_variable})
    if(found)
      set(dir "${found}")
    endif()
  endif()
  set(${var} "${dir}" PARENT_SCOPE)
endfunction()

energy_system_dir(ENERGY_SYSTEMD_UNITDIR systemd systemdsystemunitdir lib/systemd/system)
energy_system_dir(ENERGY_SYSUSERSDIR systemd sysusersdir lib/sysusers.d)
energy_system_dir(ENERGY_TMPFILESDIR systemd tmpfilesdir lib/tmpfiles.d)
energy_system_dir(ENERGY_BASH_COMPLETIONDIR bash-completion completionsdir share/bash-completion/completions)

# The unit names /usr/sbin/energyd and /etc/energyd; other prefixes get their own paths.
file(READ ${PROJECT_SOURCE_DIR}/systemd/energyd.service unit_text)
string(REPLACE "/usr/sbin/energyd" "${CMAKE_INSTALL_FULL_SBINDIR}/energyd" unit_text "${unit_text}")
string(REPLACE "/etc/energyd/" "${CMAKE_INSTALL_FULL_SYSCONFDIR}/energyd/" unit_text "${unit_text}")
file(WRITE ${PROJECT_BINARY_DIR}/install/energyd.service "${unit_text}")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/systemd/energyd.service)

install(FILES ${PROJECT_BINARY_DIR}/install/energyd.service DESTINATION ${ENERGY_SYSTEMD_UNITDIR})
install(FILES systemd/energyd.sysusers DESTINATION ${ENERGY_SYSUSERSDIR} RENAME energyd.conf)
install(FILES systemd/energyd.tmpfiles DESTINATION ${ENERGY_TMPFILESDIR} RENAME energyd.conf)
install(FILES etc/energyd.yaml DESTINATION ${CMAKE_INSTALL_FULL_SYSCONFDIR}/energyd)
install(FILES completion/energyctl.bash DESTINATION ${ENERGY_BASH_COMPLETIONDIR} RENAME energyctl)
install(FILES completion/energyd.bash DESTINATION ${ENERGY_BASH_COMPLETIONDIR} RENAME energyd)
install(FILES docs/INSTALL.md docs/SECURITY.md docs/PROTOCOL.md README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})

# Man pages, gzip-compressed as Debian expects (-n: no name or time stamp, so
# builds are reproducible).
find_program(GZIP_EXECUTABLE gzip REQUIRED)
set(energy_man_pages energyd.8 energyctl.1 energyd.yaml.5)
set(energy_man_outputs)
foreach(page IN LISTS energy_man_pages)
  string(REGEX MATCH "[0-9]$" section "${page}")
  set(out ${PROJECT_BINARY_DIR}/man/${page}.gz)
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/man
    COMMAND ${GZIP_EXECUTABLE} -9n -c ${PROJECT_SOURCE_DIR}/docs/man/${page} > ${out}
    DEPENDS ${PROJECT_SOURCE_DIR}/docs/man/${page}
    COMMENT "Compressing man page ${page}")
  list(APPEND energy_man_outputs ${out})
  install(FILES ${out} DESTINATION ${CMAKE_INSTALL_MANDIR}/man${section})
endforeach()
add_custom_target(energy_man_pages ALL DEPENDS ${energy_man_outputs})

# energyd-exporter (exporter/): its unit (installed disabled: the package
# enables energyd.service only), man page and the fleet examples; component
# ENERGY_EXPORTER_COMPONENT (`energyd`; `exporter`, package energyd-exporter, in
# the release build).
if(TARGET energyd-exporter)
  file(READ ${PROJECT_SOURCE_DIR}/systemd/energyd-exporter.service exporter_unit)
  string(REPLACE "/usr/sbin/energyd-exporter" "${CMAKE_INSTALL_FULL_SBINDIR}/energyd-exporter" exporter_unit
                 "${exporter_unit}")
  file(WRITE ${PROJECT_BINARY_DIR}/install/energyd-exporter.service "${exporter_unit}")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/systemd/energyd-exporter.service)
  install(FILES ${PROJECT_BINARY_DIR}/install/energyd-exporter.service DESTINATION ${ENERGY_SYSTEMD_UNITDIR}
          COMPONENT ${ENERGY_EXPORTER_COMPONENT})

  find_program(GZIP_EXECUTABLE gzip REQUIRED)
  set(exporter_man ${PROJECT_BINARY_DIR}/man/energyd-exporter.8.gz)
  add_custom_command(OUTPUT ${exporter_man}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/man
    COMMAND ${GZIP_EXECUTABLE} -9n -c ${PROJECT_SOURCE_DIR}/docs/man/energyd-exporter.8 > ${exporter_man}
    DEPENDS ${PROJECT_SOURCE_DIR}/docs/man/energyd-exporter.8
    COMMENT "Compressing man page energyd-exporter.8")
  add_custom_target(energyd_exporter_man ALL DEPENDS ${exporter_man})
  install(FILES ${exporter_man} DESTINATION ${CMAKE_INSTALL_MANDIR}/man8 COMPONENT ${ENERGY_EXPORTER_COMPONENT})
  install(FILES ${PROJECT_SOURCE_DIR}/docs/FLEET.md DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT ${ENERGY_EXPORTER_COMPONENT})
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/etc/prometheus ${PROJECT_SOURCE_DIR}/etc/grafana
          DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples COMPONENT ${ENERGY_EXPORTER_COMPONENT})
endif()
