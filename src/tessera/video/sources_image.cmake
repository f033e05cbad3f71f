# Video part B: file I/O (library); B-spline, depth propagation and bilateral
# filter are header templates of the library.
target_sources(tessera PRIVATE ${CMAKE_CURRENT_LIST_DIR}/video_io.cpp)
