# Runs CMD; fails unless it exits with EXPECT_CODE, its output matches
# EXPECT_REGEX, and OUTPUT_DIR holds nothing afterwards (no output file, no
# temporary left behind).
file(REMOVE_RECURSE ${OUTPUT_DIR})
file(MAKE_DIRECTORY ${OUTPUT_DIR})
execute_process(COMMAND ${CMD} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT code STREQUAL "${EXPECT_CODE}")
  message(FATAL_ERROR "exit code ${code}, expected ${EXPECT_CODE}")
endif()
if(NOT "${out}${err}" MATCHES "${EXPECT_REGEX}")
  message(FATAL_ERROR "output does not match '${EXPECT_REGEX}'")
endif()
file(GLOB left ${OUTPUT_DIR}/*)
if(left)
  message(FATAL_ERROR "left behind: ${left}")
endif()
