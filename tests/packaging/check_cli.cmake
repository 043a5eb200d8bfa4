# Runs the bcast CLI and compares its standard output with a file, byte for
# byte, and its exit status with the expected one.
#   cmake -DCLI=<bcast> -DARGS=<args separated by |> -DEXPECTED=<file> -DEXPECTED_RC=<n>
#         -P check_cli.cmake
cmake_minimum_required(VERSION 3.16)
string(REPLACE "|" ";" args "${ARGS}")
execute_process(COMMAND ${CLI} ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
file(READ ${EXPECTED} want)
if(NOT out STREQUAL want)
  message(FATAL_ERROR "bcast ${args}: output differs from ${EXPECTED}\n"
                      "--- got:\n${out}--- want:\n${want}--- stderr:\n${err}")
endif()
if(NOT rc STREQUAL EXPECTED_RC)
  message(FATAL_ERROR "bcast ${args}: exit status ${rc}, want ${EXPECTED_RC}\n${err}")
endif()
