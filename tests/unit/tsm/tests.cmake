# Tall-skinny GEMM: the library alone (no driver).
tessera_library_test(test_tsm ${CMAKE_CURRENT_LIST_DIR}/test_tsm.cpp)
tessera_library_test(test_tsm_table ${CMAKE_CURRENT_LIST_DIR}/test_tsm_table.cpp)
# Idle OpenMP threads sleep instead of spinning between the many small calls.
set_property(TEST test_tsm APPEND PROPERTY ENVIRONMENT "OMP_WAIT_POLICY=passive")
# The CLI: bad input -> exit 2 with one line; small runs validate (exit 0).
tessera_cli_test(tsm_m_range 2 "--m must be between 1 and 64" run tsm --m 65)
tessera_cli_test(tsm_n_range 2 "--n must be between 1 and 64" run tsm --m 4 --n 0)
tessera_cli_test(tsm_k_negative 2 "--k must be between 0" run tsm --k=-1)
tessera_cli_test(tsm_kernel_unknown 2 "tsmttsm" run tsm --kernel gemm)
tessera_cli_test(tsm_too_big 2 "memory" run tsm --m 64 --k 1e12)
tessera_cli_test(tsm_run_d 0 "tsmttsm" run tsm --variant kokkos@Serial --m 5 --n 7 --k 1000 --repeats 1 --warmup 0)
tessera_cli_test(tsm_run_z 0 "tsmm" run tsm --variant kokkos@Serial --kernel tsmm --type z --beta 0.5 --m 3 --n 9
  --k 1001 --repeats 1 --warmup 0)
tessera_cli_test(tsm_compare 0 "openblas|serial-reference" compare tsm --type z --trans c --m 4 --n 6 --k 5000
  --repeats 1 --warmup 0 --no-roofline)
# `compare tsm --sweep`: one process, one table, CSV / JSON / PNG over every point; bad sweeps exit 2.
function(tessera_sweep_test name rows points png)
  set(cmd $<TARGET_FILE:tessera_cli> ${ARGN})
  add_test(NAME cli_${name} COMMAND ${CMAKE_COMMAND} "-DCMD=${cmd}" -DOUT=${CMAKE_CURRENT_BINARY_DIR}/cli_out/${name}
    -DROWS=${rows} "-DPOINTS=${points}" "-DPNG_ARGS=${png}" -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/sweep_files.cmake)
  set_tests_properties(cli_${name} PROPERTIES ENVIRONMENT "OMP_PROC_BIND=false;OMP_NUM_THREADS=2"
    SKIP_REGULAR_EXPRESSION "no CUDA device is visible;needs python3 with matplotlib")
endfunction()
tessera_sweep_test(tsm_sweep 8 "1;3;4;8x5" "" compare tsm --sweep --sides 1,3-4,8x5 --k 1031
  --variants serial-reference,kokkos@Serial --repeats 1 --warmup 0 --no-roofline --quiet)
tessera_sweep_test(tsm_sweep_png 4 "2;5" "--png;${CMAKE_CURRENT_BINARY_DIR}/cli_out/tsm_sweep_png/s.png" compare tsm
  --sweep --sides 2,5 --kernel tsmm --type z --k 999 --variants serial-reference,kokkos@Serial --repeats 1 --warmup 0
  --quiet)
tessera_cli_test(tsm_sweep_table 0 "point +variant.*8x5 +kokkos@Serial +tsmttsm .* ok" compare tsm --sweep
  --sides 4,8x5 --k 500 --variants kokkos@Serial --repeats 1 --warmup 0 --no-roofline --quiet)
tessera_cli_test(tsm_sweep_sets_m 2 "--sweep sets M and N" compare tsm --sweep --m 4)
tessera_cli_test(tsm_sides_alone 2 "--sides goes with --sweep" compare tsm --sides 4)
tessera_cli_test(tsm_sides_range 2 "--sides: '65' is not M or MxN" compare tsm --sweep --sides 4,65)
tessera_cli_test(tsm_sides_shape 2 "--sides: '3x' is not M or MxN" compare tsm --sweep --sides 3x)
tessera_cli_test(tsm_sides_range_order 2 "--sides: '9-4' is not a range A-B" compare tsm --sweep --sides 9-4)
tessera_cli_test(tsm_sweep_run 2 "--sweep goes with 'tessera compare'" run tsm --sweep)
tessera_cli_test(tsm_sweep_h5 2 "--h5" compare tsm --sweep --h5 ${_out}/sweep.h5)
tessera_cli_test(tsm_png_alone 2 "--png draws a sweep" compare tsm --png ${_out}/x.png)
# Every point is checked before the first runs: M = 64 does not fit, M = 1 would have.
tessera_cli_test(tsm_sweep_too_big 2 "memory" compare tsm --sweep --sides 1,64 --k 1e8 --quiet)
# K split over MPI ranks (the library alone), under mpiexec with 2 and 3 ranks.
if(TESSERA_ENABLE_MPI)
  add_executable(test_tsm_mpi ${CMAKE_CURRENT_LIST_DIR}/test_tsm_mpi.cpp)
  target_link_libraries(test_tsm_mpi PRIVATE tessera GTest::gtest)
  target_include_directories(test_tsm_mpi PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/unit)
  foreach(n 2 3)
    add_test(NAME test_tsm_mpi_${n} COMMAND ${TESSERA_MPIEXEC} ${MPIEXEC_NUMPROC_FLAG} ${n} $<TARGET_FILE:test_tsm_mpi>)
    set_tests_properties(test_tsm_mpi_${n} PROPERTIES TIMEOUT 120 SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\] all tests"
      ENVIRONMENT "OMP_PROC_BIND=false;OMP_NUM_THREADS=1;OMP_WAIT_POLICY=passive")
  endforeach()
endif()
# The workload under mpiexec: K split over the ranks (K = 2 on 3 ranks leaves one without rows).
if(TESSERA_ENABLE_MPI)
  set(_tsm_mpirun ${TESSERA_MPIEXEC} ${MPIEXEC_NUMPROC_FLAG})
  tessera_cmd_test(tsm_mpi3 0 "3 MPI ranks.*tsmttsm +kokkos@Serial .*ok" ${_tsm_mpirun} 3 $<TARGET_FILE:tessera_cli>
    compare tsm --type z --trans c --beta 0.5 --m 3 --n 17 --k 2 --variants kokkos@Serial --repeats 1 --warmup 0
    --no-roofline)
  tessera_cmd_test(tsm_mpi2_tsmm 0 "2 MPI ranks, no communication.*tsmm +kokkos@OpenMP .*ok" ${_tsm_mpirun} 2
    $<TARGET_FILE:tessera_cli> run tsm --variant kokkos@OpenMP --kernel tsmm --m 24 --n 48 --k 1001 --beta 0.5
    --repeats 1 --warmup 0 --no-roofline)
  set_tests_properties(cli_tsm_mpi3 cli_tsm_mpi2_tsmm PROPERTIES ENVIRONMENT "OMP_PROC_BIND=false;OMP_NUM_THREADS=1")
endif()
tessera_cli_test(tsm_no_validate 0 "not validated" run tsm --variant kokkos@Serial --m 4 --k 100 --no-validate
  --repeats 1 --warmup 0 --no-roofline)
# M != N through every variant of this build (with tsm_compare: both kernels, both types, M < N and M > N).
tessera_cli_test(tsm_compare_tsmm_rect 0 "openblas|serial-reference" compare tsm --kernel tsmm --m 7 --n 3 --k 999
  --beta 0.5 --repeats 1 --warmup 0 --no-roofline)
tessera_cli_test(tsm_compare_d_rect 0 "openblas|serial-reference" compare tsm --m 9 --n 2 --k 1031 --repeats 1
  --warmup 0 --no-roofline)
