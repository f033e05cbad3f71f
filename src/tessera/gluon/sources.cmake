# The gluon workload: a header-only library part (tessera/gluon/*.hpp), the
# lhagrid1 reader, the native kernels in backends/cuda/gluon, the driver side.
target_sources(tessera PRIVATE ${CMAKE_CURRENT_LIST_DIR}/gluon_lhagrid.cpp)
target_sources(tessera_driver PRIVATE ${CMAKE_CURRENT_LIST_DIR}/workload/gluon_workload.cpp)
