# Script mode: install, configure, build, run. Any failing step fails the test.
function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "step failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  message("${out}")
endfunction()
file(REMOVE_RECURSE ${WORK})
step(${CMAKE_COMMAND} --install ${TESSERA_BUILD} --prefix ${WORK}/prefix)
step(${CMAKE_COMMAND} -S ${APP} -B ${WORK}/build -G ${GENERATOR} -DCMAKE_BUILD_TYPE=Release
  -DCMAKE_CXX_COMPILER=${CXX} -DTessera_ROOT=${WORK}/prefix -DKokkos_ROOT=${KOKKOS_ROOT}
  -DKokkosKernels_ROOT=${KOKKOS_ROOT})
step(${CMAKE_COMMAND} --build ${WORK}/build)
step(${WORK}/build/downstream_app)
