# A Debian package of iolab: `cpack -G DEB` in the build directory (README.md, "A Debian
# package"). It holds the same relocatable tree as `cmake --install`, under /usr: bin/iolab and
# bin/iolab-sandbox, lib/iolab/ (the counting shim), libexec/iolab/ (the demos), share/iolab/
# (lessons, schemas, the counter page header, the `iolab new` template), the man page and the
# bash completion. Dependencies: the shared libraries, found by dpkg-shlibdeps from the binaries
# themselves, and a C compiler with the C library's headers, which exercises and packs' own
# programs are built with.
set(CPACK_PACKAGE_NAME iolab)
set(CPACK_PACKAGE_VENDOR "iolab")
set(CPACK_PACKAGE_CONTACT "iolab maintainers <iolab@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "watch the kernel do I/O: lessons with live system-call counters")
set(CPACK_PACKAGE_DESCRIPTION
    "iolab teaches Linux I/O in the terminal: real servers and clients run in a sandbox while \
their system calls, CPU time, context switches and latency are counted live; exercises have the \
learner write that code themselves.")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES OFF) # the shim and the demos keep their symbols for strace -k and gdb
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION education)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "gcc | c-compiler, libc6-dev")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "curl, strace")
include(CPack)
