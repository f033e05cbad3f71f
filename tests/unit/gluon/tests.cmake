tessera_library_test(test_gluon ${CMAKE_CURRENT_LIST_DIR}/test_gluon_amplitude.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_gluon_sigma.cpp)
