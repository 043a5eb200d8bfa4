# The library never calls its own public entry points (a public bc_ function
# records its errors in the caller's context: an internal call would record
# them a second time, or in the thread's slot instead of the context the
# caller named; issue 23, DLPack import did). Exported functions are called
# through the PLT from inside the library, so a disassembly that calls or
# jumps to a bc_ symbol shows such a call.
# Usage: cmake -DLIB=<libbcast.so> -DOBJDUMP=<objdump> -P check_no_self_calls.cmake
execute_process(COMMAND ${OBJDUMP} -d --no-show-raw-insn ${LIB}
                OUTPUT_VARIABLE dis RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "objdump failed on ${LIB}")
endif()
string(REGEX MATCHALL "(call|jmp)[ \t]+[0-9a-f]+ <bc_[a-z0-9_]+(@plt)?>" calls "${dis}")
# A function's own body may begin with a jump inside itself (<bc_x+0x..>): the
# pattern above requires '>' right after the name, so those do not match.
if(calls)
  list(REMOVE_DUPLICATES calls)
  string(REPLACE ";" "\n  " calls "${calls}")
  message(FATAL_ERROR "libbcast calls its own public functions:\n  ${calls}")
endif()
message(STATUS "no call of a public bc_ function inside ${LIB}")
