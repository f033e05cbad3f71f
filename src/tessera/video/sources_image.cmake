# Video part B: file I/O (library), B-spline / depth propagation / bilateral
# (header templates in the library), and the video workload (driver).
target_sources(tessera PRIVATE ${CMAKE_CURRENT_LIST_DIR}/video_io.cpp)
