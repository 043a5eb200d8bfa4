# Installs the build tree into a scratch prefix, then builds and runs
# consumer/, a C project outside the repository, five ways: CMake package
# (shared, static), pkg-config bcast (shared), bcast-static, and bcast
# --static on a prefix holding only the archive. Static binaries must need
# nothing but libc, libm, libpthread and the loader, and run with nothing on
# LD_LIBRARY_PATH; the installed package files must not mention Highway.
#   cmake -DSOURCE_DIR=<bcast source> -DBUILD_DIR=<bcast build> -DWORK_DIR=<scratch> -DCONSUMER_DIR=<consumer/>
#         -DGENERATOR=<generator> -DC_COMPILER=<cc> -DSOVERSION=<major> [-DCONFIG=<config>] -P install_and_consume.cmake
cmake_minimum_required(VERSION 3.16)
foreach(v SOURCE_DIR BUILD_DIR WORK_DIR CONSUMER_DIR GENERATOR C_COMPILER SOVERSION)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "install_and_consume.cmake: -D${v}=... is required")
  endif()
endforeach()

# Runs a command; stops the test with its output if it fails.
function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "${what} failed (${rc}):\n  ${cmd}\n${out}\n${err}")
  endif()
  set(RUN_OUTPUT "${out}" PARENT_SCOPE)
endfunction()

# Runs a consumer binary; it must print its "ok" line. A static one runs
# with no LD_LIBRARY_PATH at all.
function(run_consumer what exe)
  if(what MATCHES "static")
    run("${what}: running" ${CMAKE_COMMAND} -E env --unset=LD_LIBRARY_PATH ${exe})
  else()
    run("${what}: running" ${CMAKE_COMMAND} -E env "LD_LIBRARY_PATH=${LIBDIR}" ${exe})
  endif()
  if(NOT RUN_OUTPUT MATCHES "\\[5, 3, 4, 1\\] ok")
    message(FATAL_ERROR "${what}: unexpected output:\n${RUN_OUTPUT}")
  endif()
  message(STATUS "${what}: ${RUN_OUTPUT}")
endfunction()

# NEEDED entries of an ELF file, to tell a shared link from a static one.
function(needed_libs exe out_var)
  run("readelf" readelf -d ${exe})
  set(${out_var} "${RUN_OUTPUT}" PARENT_SCOPE)
endfunction()

# A statically linked consumer needs only libc, libm, libpthread and the loader.
function(check_standalone what exe)
  needed_libs(${exe} needed)
  string(REGEX MATCHALL "\\[[^]]+\\]" libs "${needed}")
  foreach(l IN LISTS libs)
    if(NOT l MATCHES "^\\[(libc\\.so\\.6|libm\\.so\\.6|libpthread\\.so\\.0|ld-linux[-a-z0-9_.]*\\.so\\.[0-9])\\]$")
      message(FATAL_ERROR "${what}: the static consumer needs ${l}:\n${needed}")
    endif()
  endforeach()
  file(SIZE ${exe} size)
  message(STATUS "${what}: needs only ${libs}; ${size} bytes")
endfunction()

set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
set(config_args)
if(CONFIG)
  set(config_args --config ${CONFIG})
endif()
run("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} ${config_args})

file(GLOB_RECURSE pc_files ${prefix}/*/bcast.pc)
file(GLOB_RECURSE config_files ${prefix}/*/bcastConfig.cmake)
file(GLOB_RECURSE shared_libs ${prefix}/*/libbcast.so)
if(NOT pc_files OR NOT config_files OR NOT shared_libs)
  message(FATAL_ERROR "install is missing bcast.pc, bcastConfig.cmake or libbcast.so under ${prefix}")
endif()
# Highway is private: nothing a user's build reads may name it.
file(GLOB_RECURSE package_files ${prefix}/*.pc ${prefix}/*/cmake/bcast/*.cmake)
foreach(f IN LISTS package_files)
  file(READ ${f} text)
  if(text MATCHES "hwy|HWY_|find_dependency")
    message(FATAL_ERROR "${f} names Highway or looks for a dependency:\n${text}")
  endif()
endforeach()
list(GET pc_files 0 pc_file)
get_filename_component(pc_dir ${pc_file} DIRECTORY)
list(GET shared_libs 0 shared_lib)
get_filename_component(LIBDIR ${shared_lib} DIRECTORY)
# Every public header, hand-written or generated, is installed.
file(GLOB headers RELATIVE ${SOURCE_DIR}/include/bcast ${SOURCE_DIR}/include/bcast/*.h)
foreach(h ${headers} version.h)
  if(NOT EXISTS ${prefix}/include/bcast/${h})
    message(FATAL_ERROR "install is missing include/bcast/${h}: add it to the headers' "
                        "install(FILES ...) in the top-level CMakeLists.txt")
  endif()
endforeach()

# 1, 2: CMake package, shared and static.
foreach(kind shared static)
  set(bdir ${WORK_DIR}/cmake-${kind})
  if(kind STREQUAL "static")
    set(static ON)
  else()
    set(static OFF)
  endif()
  run("cmake ${kind}: configure" ${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${bdir} -G ${GENERATOR}
      -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_PREFIX_PATH=${prefix} -DCONSUMER_STATIC=${static}
      -DCMAKE_BUILD_TYPE=Release)
  run("cmake ${kind}: build" ${CMAKE_COMMAND} --build ${bdir})
  set(exe ${bdir}/consumer)
  needed_libs(${exe} needed)
  if(static)
    check_standalone("cmake static" ${exe})
  elseif(NOT needed MATCHES "libbcast\\.so\\.${SOVERSION}")
    message(FATAL_ERROR "cmake shared: the consumer does not need libbcast.so.${SOVERSION}:\n${needed}")
  endif()
  run_consumer("cmake ${kind}" ${exe})
endforeach()

# 3, 4: pkg-config. The scratch prefix is not the configured one, so the
# prefix variable is overridden the way a relocated install would be used.
find_program(PKG_CONFIG NAMES pkg-config pkgconf REQUIRED)
# Only the prefix is visible, not the system's .pc files (libhwy.pc among
# them): bcast's must not need them.
file(MAKE_DIRECTORY ${WORK_DIR}/no-system-pc)
set(ENV{PKG_CONFIG_LIBDIR} "${WORK_DIR}/no-system-pc")
set(ENV{PKG_CONFIG_PATH} "${pc_dir}")
set(pc ${PKG_CONFIG} --define-variable=prefix=${prefix})

run("pkg-config --cflags --libs" ${pc} --cflags --libs bcast)
string(STRIP "${RUN_OUTPUT}" flags)
if(flags MATCHES "HWY|hwy")
  message(FATAL_ERROR "pkg-config --cflags --libs bcast names Highway: ${flags}")
endif()
separate_arguments(flags UNIX_COMMAND "${flags}")
run("pkg-config shared: compile" ${C_COMPILER} -std=c99 ${CONSUMER_DIR}/main.c ${flags}
    -o ${WORK_DIR}/pc-shared)
needed_libs(${WORK_DIR}/pc-shared needed)
if(NOT needed MATCHES "libbcast\\.so\\.${SOVERSION}")
  message(FATAL_ERROR "pkg-config shared: the consumer does not need libbcast.so.${SOVERSION}:\n${needed}")
endif()
run_consumer("pkg-config shared" ${WORK_DIR}/pc-shared)

# bcast-static.pc: the archive by its path, though libbcast.so lies beside it.
run("pkg-config --cflags --libs bcast-static" ${pc} --cflags --libs bcast-static)
string(STRIP "${RUN_OUTPUT}" flags)
separate_arguments(flags UNIX_COMMAND "${flags}")
run("bcast-static: compile" ${C_COMPILER} -std=c99 ${CONSUMER_DIR}/main.c ${flags}
    -o ${WORK_DIR}/pc-bcast-static)
check_standalone("pkg-config bcast-static" ${WORK_DIR}/pc-bcast-static)
run_consumer("pkg-config bcast-static" ${WORK_DIR}/pc-bcast-static)

# A static-only copy of the prefix, so that -lbcast can only mean libbcast.a,
# as on a system where only the static library is installed.
set(sprefix ${WORK_DIR}/prefix-static)
file(COPY ${prefix}/ DESTINATION ${sprefix})
file(GLOB_RECURSE so_files ${sprefix}/*/libbcast.so*)
file(REMOVE ${so_files})
file(GLOB_RECURSE spc_files ${sprefix}/*/bcast.pc)
list(GET spc_files 0 spc_file)
get_filename_component(spc_dir ${spc_file} DIRECTORY)
set(ENV{PKG_CONFIG_PATH} "${spc_dir}")
set(pc ${PKG_CONFIG} --define-variable=prefix=${sprefix})
run("pkg-config --static --cflags --libs" ${pc} --static --cflags --libs bcast)
string(STRIP "${RUN_OUTPUT}" flags)
separate_arguments(flags UNIX_COMMAND "${flags}")
run("pkg-config static: compile" ${C_COMPILER} -std=c99 ${CONSUMER_DIR}/main.c ${flags}
    -o ${WORK_DIR}/pc-static)
check_standalone("pkg-config --static bcast" ${WORK_DIR}/pc-static)
run_consumer("pkg-config static" ${WORK_DIR}/pc-static)
