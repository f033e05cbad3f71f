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
