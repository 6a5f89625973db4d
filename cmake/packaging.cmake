# A Debian package of iolab: `cpack -G DEB` in the build directory (README.md, "A Debian
# package"). It holds the same relocatable tree as `cmake --install`, under /usr: bin/iolab and
# bin/iolab-sandbox, lib/iolab/ (the counting shim), libexec/iolab/ (the demos), share/iolab/
# (lessons, schemas, the counter page header, the `iolab new` template), the man page and the
# bash completion. Dependencies: the shared libraries, found by dpkg-shlibdeps from the binaries
# themselves, a C compiler with the C library's headers, which exercises and packs' own programs
# are built with, and sensible-utils, whose sensible-editor opens a learner's file. lintian finds
# no error in it: binaries stripped, the man page compressed (assets/CMakeLists.txt), a copyright
# file and a changelog under share/doc/iolab, a maintainer with a real mail domain.
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
# configure time from the project's version and maintainer.
set(IOLAB_DEB_DOC ${CMAKE_BINARY_DIR}/debian-doc)
string(TIMESTAMP IOLAB_DEB_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)
string(TIMESTAMP IOLAB_DEB_YEAR "%Y" UTC)
file(WRITE ${IOLAB_DEB_DOC}/copyright
     "iolab ${PROJECT_VERSION}\n\n"
     "Copyright (C) ${IOLAB_DEB_YEAR} ${IOLAB_MAINTAINER}\n\n"
     "License: the iolab sources do not state a licence yet. Until they do, ask the\n"
     "maintainers before you redistribute this package.\n")
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
include(CPack)
