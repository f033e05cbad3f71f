# The gluon workload: a header-only library part (tessera/gluon/*.hpp), the
# lhagrid1 reader, the built-in LO DGLAP set, the native kernels in
# backends/cuda/gluon, the driver side.
target_sources(tessera PRIVATE ${CMAKE_CURRENT_LIST_DIR}/gluon_lhagrid.cpp
  ${CMAKE_CURRENT_LIST_DIR}/gluon_dglap.cpp)
target_sources(tessera_driver PRIVATE ${CMAKE_CURRENT_LIST_DIR}/workload/gluon_workload.cpp
  ${CMAKE_CURRENT_LIST_DIR}/workload/gluon_run_output.cpp)
