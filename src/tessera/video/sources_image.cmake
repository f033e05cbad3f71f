# The video workload's image families: file I/O (library), B-spline / depth propagation / bilateral
# (header templates in the library), and the video workload (driver).
target_sources(tessera PRIVATE ${CMAKE_CURRENT_LIST_DIR}/video_io.cpp)
set(_tessera_video_workload ${CMAKE_CURRENT_LIST_DIR}/workload/video_workload.cpp)
target_sources(tessera_driver PRIVATE ${_tessera_video_workload}
  ${CMAKE_CURRENT_LIST_DIR}/workload/bspline_kernel.cpp
  ${CMAKE_CURRENT_LIST_DIR}/workload/dibr_kernel.cpp
  ${CMAKE_CURRENT_LIST_DIR}/workload/bilateral_kernel.cpp
  ${CMAKE_CURRENT_LIST_DIR}/workload/video_tables.cpp)
# The conv3d and pairwise families join the workload when their sources are
# part of the build (sources_conv.cmake names them).
if(EXISTS ${CMAKE_CURRENT_LIST_DIR}/sources_conv.cmake)
  file(READ ${CMAKE_CURRENT_LIST_DIR}/sources_conv.cmake _tessera_video_conv)
  foreach(_family conv3d pairwise)
    string(TOUPPER ${_family} _FAMILY)
    if(_tessera_video_conv MATCHES "workload/${_family}_kernel.cpp" AND
       EXISTS ${CMAKE_CURRENT_LIST_DIR}/workload/${_family}_kernel.cpp)
      set_property(SOURCE ${_tessera_video_workload} TARGET_DIRECTORY tessera_driver APPEND PROPERTY
        COMPILE_DEFINITIONS TESSERA_VIDEO_HAS_${_FAMILY}=1)
    endif()
  endforeach()
endif()
