# A run stopped after HALF sweeps and restarted from its state file must
# end in the state an uninterrupted run of ITERS sweeps reaches, bit for bit
# (the field also when the restart runs on another number of MPI ranks).
# RUN: the tessera command line up to the workload options (mpiexec prefix
# included); RESTART_RUN: the one for the restarted part; SAME: the checker.
foreach(step "${RUN};--iters;${ITERS};--output;${DIR}/full.h5"
             "${RUN};--iters;${ITERS};--output;${DIR}/ck.h5;--checkpoint-every;${HALF}"
             "${RUN};--iters;${HALF};--output;${DIR}/half.h5"
             "${RESTART_RUN};--iters;${ITERS};--restart;${DIR}/half.h5;--output;${DIR}/resumed.h5")
  execute_process(COMMAND ${step} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "${step}: exit code ${code}\n${out}${err}")
  endif()
  if(NOT "${out}" MATCHES "jacobi .* ok")
    message(FATAL_ERROR "${step}: no validated result\n${out}${err}")
  endif()
endforeach()
# Writing checkpoints on the way does not change the run either.
foreach(other resumed ck)
  execute_process(COMMAND ${SAME} ${DIR}/full.h5 ${DIR}/${other}.h5 ${SAME_FLAGS} RESULT_VARIABLE code
    OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${other}: ${out}${err}")
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "the ${other} run differs from the uninterrupted one")
  endif()
endforeach()
