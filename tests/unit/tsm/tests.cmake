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
  --repeats 1 --warmup 0)
