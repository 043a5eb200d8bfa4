# Runs two programs; their outputs must be identical.
#   cmake -DA=<exe> -DB=<exe> -P check_same_output.cmake
cmake_minimum_required(VERSION 3.16)
execute_process(COMMAND ${A} RESULT_VARIABLE rc_a OUTPUT_VARIABLE out_a)
execute_process(COMMAND ${B} RESULT_VARIABLE rc_b OUTPUT_VARIABLE out_b)
if(NOT rc_a EQUAL 0 OR NOT rc_b EQUAL 0)
  message(FATAL_ERROR "exit status ${rc_a} (${A}), ${rc_b} (${B})")
endif()
if(NOT out_a STREQUAL out_b)
  message(FATAL_ERROR "outputs differ\n--- ${A}\n${out_a}--- ${B}\n${out_b}")
endif()
message(STATUS "same output:\n${out_a}")
