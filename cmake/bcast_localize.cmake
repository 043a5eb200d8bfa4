# Makes every strong global symbol of a relocatable object local, except the
# bc_ API: libbcast.a then clashes with nothing a program links beside it
# (its own Highway, say). Weak symbols (inline functions, template
# instances, DW.ref.__gxx_personality_v0) stay global: they are COMDAT
# groups the linker merges by name, and a local one would displace the
# copy another archive such as libstdc++.a relies on.
#   cmake -DOBJECT=<file.o> -DNM=<nm> -DOBJCOPY=<objcopy> -P bcast_localize.cmake
cmake_minimum_required(VERSION 3.16)
execute_process(COMMAND ${NM} --defined-only ${OBJECT}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} ${OBJECT} failed: ${err}")
endif()
string(REPLACE "\n" ";" lines "${out}")
set(names)
foreach(line IN LISTS lines)
  # "<address> <type> <name>"; upper-case B D G R S T: global and strong.
  if(line MATCHES "^[0-9a-fA-F]* ([BDGRST]) (.+)$")
    set(name "${CMAKE_MATCH_2}")
    if(NOT name MATCHES "^bc_")
      list(APPEND names "${name}")
    endif()
  endif()
endforeach()
string(REPLACE ";" "\n" names "${names}")
file(WRITE ${OBJECT}.localize "${names}\n")
execute_process(COMMAND ${OBJCOPY} --localize-symbols=${OBJECT}.localize ${OBJECT}
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${OBJCOPY} failed: ${err}")
endif()
