include(${CMAKE_CURRENT_LIST_DIR}/sources_conv.cmake OPTIONAL)
include(${CMAKE_CURRENT_LIST_DIR}/sources_image.cmake OPTIONAL)
