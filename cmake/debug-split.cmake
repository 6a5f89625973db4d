# Run after each demo is linked (sandbox/demos/CMakeLists.txt): copies the demo's debug
# information into DEBUG_ROOT/.build-id/xx/yyyy.debug, named by the build ID the linker wrote
# into the binary, the layout libdw searches by build ID. The package's stripped binary keeps
# its build ID (an allocated note), so libdw finds the file by that ID alone, under any directory
# of its search path (app/metrics/siteline.c adds the tree's own lib/iolab/debug).
# The file is gzip-compressed, which libdw reads as it is: a debug file is an ELF file, and
# outside /usr/lib/debug (which Debian keeps for -dbgsym packages) lintian would judge it as a
# program; compressed, it is data.
# The file a previous build of the same program left (another build ID) is removed, so that the
# package holds one per demo: RECORD names it.
# Arguments: -DEXE=binary -DDEBUG_ROOT=dir -DRECORD=file -DREADELF=readelf -DOBJCOPY=objcopy
#            -DGZIP=gzip
execute_process(COMMAND ${READELF} -n ${EXE} OUTPUT_VARIABLE notes RESULT_VARIABLE rc)
string(REGEX MATCH "Build ID: ([0-9a-f][0-9a-f])([0-9a-f]+)" _ "${notes}")
if(NOT rc EQUAL 0 OR NOT CMAKE_MATCH_2)
  # A linker without --build-id (GNU ld and lld on Debian add it by default): the build tree
  # still has its lines, only a stripped install would not.
  message(WARNING "${EXE} has no build ID: a stripped install will show its calls without lines.")
  return()
endif()
set(dir ${DEBUG_ROOT}/.build-id/${CMAKE_MATCH_1})
set(debug ${dir}/${CMAKE_MATCH_2}.debug)
if(EXISTS ${RECORD})
  file(READ ${RECORD} old)
  if(NOT old STREQUAL debug)
    file(REMOVE ${old})
  endif()
endif()
file(MAKE_DIRECTORY ${dir})
execute_process(COMMAND ${OBJCOPY} --only-keep-debug ${EXE} ${RECORD}.elf RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "objcopy --only-keep-debug ${EXE} failed.")
endif()
execute_process(COMMAND ${GZIP} -9nc ${RECORD}.elf OUTPUT_FILE ${debug} RESULT_VARIABLE rc)
file(REMOVE ${RECORD}.elf)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gzip of ${EXE}'s debug information failed.")
endif()
file(WRITE ${RECORD} ${debug})
