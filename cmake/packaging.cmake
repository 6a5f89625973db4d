# A Debian package of iolab: `cpack -G DEB` in the build directory (README.md, "A Debian
# package"). It holds the same relocatable tree as `cmake --install`, under /usr: bin/iolab and
# bin/iolab-sandbox, lib/iolab/ (the counting shim), libexec/iolab/ (the demos), share/iolab/
# (lessons, schemas, the counter page header, the `iolab new` template), the man page and the
# bash completion. Dependencies: the shared libraries, found by dpkg-shlibdeps from the binaries
# themselves, a C compiler with the C library's headers, which exercises and packs' own programs
# are built with, and sensible-utils, whose sensible-editor opens a learner's file. lintian finds
# neither an error nor a warning in it: binaries stripped and hardened (CMakeLists.txt), a
# compressed man page for each program (assets/CMakeLists.txt), a copyright file naming the MIT
# licence (LICENSE) and a changelog under share/doc/iolab, a maintainer with a real mail domain,
# and no ldconfig call for the private shim (deb-no-ldconfig.cmake).
set(CPACK_PACKAGE_NAME iolab)
set(CPACK_PACKAGE_VENDOR "iolab")
# The project's maintainers, as its history names them; a distributor sets their own.
set(IOLAB_MAINTAINER "iolab maintainers <maintainers@users.noreply.a-seed-49b0b952.example>"
    CACHE STRING "The Debian package's Maintainer: Name <address>")
set(CPACK_PACKAGE_CONTACT "${IOLAB_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "watch the kernel do I/O: lessons with live system-call counters")
set(CPACK_PACKAGE_DESCRIPTION
    "iolab teaches Linux I/O in the terminal: real servers and clients run in a\n\
sandbox while their system calls, CPU time, context switches and latency are\n\
counted live; exercises have the learner write that code themselves.")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# Stripped, as Debian requires: the shim's exported calls stay in its dynamic symbol table, which
# is what strace -k and gdb name them by.
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION education)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "gcc | c-compiler, libc6-dev, sensible-utils")

# share/doc/iolab: the copyright file and the changelog (gzip -n, as the man page), written at
# configure time from the project's version and maintainer. The copyright file is in Debian's
# machine-readable form (DEP-5): every file is under the MIT licence of LICENSE at the root, the
# code and the built-in pack alike; DEP-5 calls that licence "Expat", and its text is LICENSE's
# own, so the two cannot disagree.
set(IOLAB_DEB_DOC ${CMAKE_BINARY_DIR}/debian-doc)
string(TIMESTAMP IOLAB_DEB_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/LICENSE)
file(READ ${CMAKE_SOURCE_DIR}/LICENSE IOLAB_LICENSE)
string(REGEX MATCH "Copyright \\(c\\) ([^\n]+)" _ "${IOLAB_LICENSE}")
set(IOLAB_COPYRIGHT "${CMAKE_MATCH_1}")
string(FIND "${IOLAB_LICENSE}" "Permission is hereby granted" IOLAB_LICENSE_START)
if(NOT IOLAB_COPYRIGHT OR IOLAB_LICENSE_START LESS 0)
  message(FATAL_ERROR "LICENSE is not the MIT licence this package's copyright file describes.")
endif()
string(SUBSTRING "${IOLAB_LICENSE}" ${IOLAB_LICENSE_START} -1 IOLAB_LICENSE)
string(STRIP "${IOLAB_LICENSE}" IOLAB_LICENSE)
# DEP-5 continuation lines: each indented by one space, an empty one written as " .".
string(REPLACE "\n\n" "\n.\n" IOLAB_LICENSE "${IOLAB_LICENSE}")
string(REPLACE "\n" "\n " IOLAB_LICENSE "${IOLAB_LICENSE}")
file(WRITE ${IOLAB_DEB_DOC}/copyright
     "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"
     "Upstream-Name: iolab\n"
     "Upstream-Contact: ${IOLAB_MAINTAINER}\n\n"
     "Files: *\n"
     "Copyright: ${IOLAB_COPYRIGHT}\n"
     "License: Expat\n"
     "Comment: The MIT licence, as LICENSE at the root of the source tree states it; it covers\n"
     " the code and the built-in lesson pack (share/iolab/lessons).\n\n"
     "License: Expat\n"
     " ${IOLAB_LICENSE}\n")
file(WRITE ${IOLAB_DEB_DOC}/changelog
     "iolab (${PROJECT_VERSION}) unstable; urgency=medium\n\n"
     "  * iolab ${PROJECT_VERSION}, packaged from its source tree by cpack.\n\n"
     " -- ${IOLAB_MAINTAINER}  ${IOLAB_DEB_DATE}\n")
add_custom_command(OUTPUT ${IOLAB_DEB_DOC}/changelog.gz
                   COMMAND ${IOLAB_GZIP} -9nc ${IOLAB_DEB_DOC}/changelog > ${IOLAB_DEB_DOC}/changelog.gz
                   DEPENDS ${IOLAB_DEB_DOC}/changelog VERBATIM)
add_custom_target(iolab_deb_doc ALL DEPENDS ${IOLAB_DEB_DOC}/changelog.gz)
install(FILES ${IOLAB_DEB_DOC}/copyright ${IOLAB_DEB_DOC}/changelog.gz
        DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/iolab)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "curl, strace")

# No postinst or postrm: the ldconfig calls CPack writes for a library under /usr/lib are
# removed after it has built the package, as the shim is private (cmake/deb-no-ldconfig.cmake).
set(CPACK_POST_BUILD_SCRIPTS ${CMAKE_CURRENT_LIST_DIR}/deb-no-ldconfig.cmake)

# No lintian override: the shim is built without _FORTIFY_SOURCE because it defines read(),
# recv() and the other counted calls, and their __*_chk variants, itself (glibc's fortified
# headers would turn the functions it exports into inline wrappers around others), but it calls
# no function glibc fortifies, so lintian's hardening-no-fortify-functions does not arise and an
# override would itself be reported, as unused. Every other binary is fortified.
include(CPack)
