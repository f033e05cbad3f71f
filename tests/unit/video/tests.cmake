include(${CMAKE_CURRENT_LIST_DIR}/tests_conv.cmake OPTIONAL)
include(${CMAKE_CURRENT_LIST_DIR}/tests_image.cmake OPTIONAL)
