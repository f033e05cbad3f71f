tessera_library_test(test_video_io ${CMAKE_CURRENT_LIST_DIR}/test_io.cpp)
tessera_library_test(test_video_bspline ${CMAKE_CURRENT_LIST_DIR}/test_bspline.cpp)
tessera_library_test(test_video_bilateral ${CMAKE_CURRENT_LIST_DIR}/test_bilateral.cpp)
tessera_library_test(test_video_dibr ${CMAKE_CURRENT_LIST_DIR}/test_dibr.cpp)
