tessera_library_test(test_video_io ${CMAKE_CURRENT_LIST_DIR}/test_io.cpp)
