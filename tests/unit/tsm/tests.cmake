# Tall-skinny GEMM: the library alone (no driver).
tessera_library_test(test_tsm ${CMAKE_CURRENT_LIST_DIR}/test_tsm.cpp)
# Idle OpenMP threads sleep instead of spinning between the many small calls.
set_property(TEST test_tsm APPEND PROPERTY ENVIRONMENT "OMP_WAIT_POLICY=passive")
