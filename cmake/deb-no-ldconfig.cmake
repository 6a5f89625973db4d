# Run by cpack after it has built the .deb (CPACK_POST_BUILD_SCRIPTS, cmake/packaging.cmake).
#
# CPack gives a package a postinst and a postrm that run ldconfig whenever it holds a shared
# object under /usr/lib or one directory below it, without asking whether the loader ever looks
# there. The counting shim, /usr/lib/iolab/libiolab-count.so, is private: only LD_PRELOAD with
# its full path loads it, and ldconfig never indexes /usr/lib/iolab. lintian warns about both
# scripts (maintscript-calls-ldconfig: Debian wants a trigger rather than a call, and this
# package needs neither). CPack has no switch for them, so this takes them out of the finished
# package again: exactly CPack's generated text, nothing else, so that a postinst or postrm of
# our own would stay.
find_program(IOLAB_DPKG_DEB dpkg-deb REQUIRED)
set(iolab_ldconfig_only_postinst
    "#!/bin/sh\n\nset -e\n\nif [ \"$1\" = \"configure\" ]; then\n\tldconfig\nfi\n")
set(iolab_ldconfig_only_postrm
    "#!/bin/sh\n\nset -e\n\nif [ \"$1\" = \"remove\" ]; then\n\tldconfig\nfi\n")
foreach(deb IN LISTS CPACK_PACKAGE_FILES)
  if(NOT deb MATCHES "\\.deb$")
    continue()
  endif()
  set(tree "${deb}.tree")
  file(REMOVE_RECURSE "${tree}")
  execute_process(COMMAND ${IOLAB_DPKG_DEB} --raw-extract "${deb}" "${tree}"
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "dpkg-deb --raw-extract ${deb} failed (${rc}).")
  endif()
  set(changed FALSE)
  foreach(script postinst postrm)
    set(path "${tree}/DEBIAN/${script}")
    if(EXISTS "${path}")
      file(READ "${path}" text)
      if(text STREQUAL "${iolab_ldconfig_only_${script}}")
        file(REMOVE "${path}")
        set(changed TRUE)
      endif()
    endif()
  endforeach()
  if(changed)
    execute_process(COMMAND ${IOLAB_DPKG_DEB} --root-owner-group --build "${tree}" "${deb}"
                    RESULT_VARIABLE rc OUTPUT_QUIET)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "dpkg-deb --build ${deb} failed (${rc}).")
    endif()
  endif()
  file(REMOVE_RECURSE "${tree}")
endforeach()
