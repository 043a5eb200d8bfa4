# libbcast.so must export exactly the functions declared with BC_API in
# include/bcast/*.h: nothing without the bc_ prefix, nothing undeclared,
# nothing missing.
#   cmake -DLIB=<libbcast.so> -DINCLUDE_DIR=<include/bcast> [-DNM=nm] -P check_exports.cmake
cmake_minimum_required(VERSION 3.16)
if(NOT NM)
  set(NM nm)
endif()
execute_process(COMMAND ${NM} -D --defined-only ${LIB}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nm failed: ${err}")
endif()

set(exported)
set(bad)
string(REPLACE "\n" ";" lines "${out}")
foreach(line IN LISTS lines)
  # "<address> <type> <name>[@version]"
  if(line MATCHES "^[0-9a-fA-F]+ ([A-Za-z]) ([^@ ]+)")
    set(type ${CMAKE_MATCH_1})
    set(name ${CMAKE_MATCH_2})
    if(type STREQUAL "A")  # version nodes, if a version script names one
      continue()
    endif()
    if(name MATCHES "^bc_")
      list(APPEND exported ${name})
    else()
      list(APPEND bad "${line}")
    endif()
  endif()
endforeach()
if(bad)
  string(REPLACE ";" "\n  " bad "${bad}")
  message(FATAL_ERROR "libbcast.so exports symbols without the bc_ prefix:\n  ${bad}")
endif()

file(GLOB headers ${INCLUDE_DIR}/*.h)
set(declared)
foreach(h IN LISTS headers)
  file(READ ${h} text)
  # Drop comments, so that prose mentioning BC_API does not count.
  string(REGEX REPLACE "/\\*([^*]|\\*+[^*/])*\\*+/" "" text "${text}")
  string(REGEX MATCHALL "BC_API[^;{}()]*[ *](bc_[A-Za-z0-9_]+)[ \n]*\\(" decls "${text}")
  foreach(d IN LISTS decls)
    string(REGEX MATCH "(bc_[A-Za-z0-9_]+)[ \n]*\\($" m "${d}")
    list(APPEND declared ${CMAKE_MATCH_1})
  endforeach()
endforeach()
list(REMOVE_DUPLICATES exported)
list(REMOVE_DUPLICATES declared)
list(LENGTH declared n_declared)
if(n_declared LESS 10)
  message(FATAL_ERROR "found only ${n_declared} BC_API declarations in ${INCLUDE_DIR}: parser broken?")
endif()

set(missing ${declared})
list(REMOVE_ITEM missing ${exported})
set(extra ${exported})
list(REMOVE_ITEM extra ${declared})
if(missing OR extra)
  message(FATAL_ERROR "exports differ from the headers' BC_API declarations\n"
                      "  declared, not exported: ${missing}\n"
                      "  exported, not declared: ${extra}")
endif()
list(LENGTH exported n)
message(STATUS "libbcast.so exports exactly the ${n} declared bc_ functions")
