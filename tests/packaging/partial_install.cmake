# A build where only the shared library was built (libbcast.a missing) must
# install nothing and say what is missing: no prefix with a library but no
# bcast.pc or CMake package. The archive is moved aside for the test and put
# back afterwards, whatever happens.
#   cmake -DBUILD_DIR=<bcast build> -DARCHIVE=<libbcast.a> -DWORK_DIR=<scratch> -P partial_install.cmake
cmake_minimum_required(VERSION 3.16)
set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
if(NOT EXISTS ${ARCHIVE})
  message(FATAL_ERROR "${ARCHIVE} does not exist: build bcast first")
endif()
file(RENAME ${ARCHIVE} ${ARCHIVE}.aside)
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
file(RENAME ${ARCHIVE}.aside ${ARCHIVE})

if(rc EQUAL 0)
  message(FATAL_ERROR "cmake --install succeeded without libbcast.a:\n${out}")
endif()
if(NOT err MATCHES "nothing was installed" OR NOT err MATCHES "libbcast\\.a")
  message(FATAL_ERROR "cmake --install failed without naming what is missing:\n${err}")
endif()
file(GLOB_RECURSE written LIST_DIRECTORIES false ${prefix}/*)
if(written)
  string(REPLACE ";" "\n  " written "${written}")
  message(FATAL_ERROR "cmake --install failed but wrote:\n  ${written}")
endif()
message(STATUS "partial build: cmake --install wrote nothing and said:\n${err}")
