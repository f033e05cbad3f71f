# Runs RUN (a tessera command line) on 1 and on 3 MPI ranks (MPIRUN ... NP_FLAG),
# writing DIR/np1.json and DIR/np3.json, then SAME on the two files.
file(REMOVE_RECURSE ${DIR})
file(MAKE_DIRECTORY ${DIR})
foreach(np 1 3)
  execute_process(COMMAND ${MPIRUN} ${np} ${RUN} --json ${DIR}/np${np}.json RESULT_VARIABLE code
    OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${np} ranks: ${out}${err}")
  if(NOT code STREQUAL "0")
    message(FATAL_ERROR "${np} ranks: exit code ${code}")
  endif()
  if(np GREATER 1 AND NOT out MATCHES "${np} MPI ranks")
    message(FATAL_ERROR "the run does not say it ran on ${np} ranks")
  endif()
endforeach()
execute_process(COMMAND ${SAME} ${DIR}/np1.json ${DIR}/np3.json 1e-12 RESULT_VARIABLE code OUTPUT_VARIABLE out
  ERROR_VARIABLE err)
message("${out}${err}")
if(NOT code STREQUAL "0")
  message(FATAL_ERROR "sigma differs between 1 and 3 ranks")
endif()
