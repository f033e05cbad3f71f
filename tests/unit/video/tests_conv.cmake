tessera_library_test(test_conv3d ${CMAKE_CURRENT_LIST_DIR}/test_conv3d.cpp ${CMAKE_CURRENT_LIST_DIR}/test_conv3d_fft.cpp)
tessera_library_test(test_pairwise ${CMAKE_CURRENT_LIST_DIR}/test_pairwise.cpp)
