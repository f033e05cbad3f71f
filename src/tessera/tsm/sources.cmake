# Tall-skinny GEMM: the library is header-only (plus backends/cuda/tsm); the
# driver side adds its workload and the vendor peers it can find.
target_sources(tessera_driver PRIVATE ${CMAKE_CURRENT_LIST_DIR}/workload/tsm_workload.cpp)
# OpenBLAS (libopenblas-dev) for the CPU peer; the reference BLAS is no peer.
find_library(TESSERA_OPENBLAS_LIBRARY NAMES openblas)
find_path(TESSERA_CBLAS_INCLUDE_DIR NAMES cblas.h PATH_SUFFIXES openblas)
if(TESSERA_OPENBLAS_LIBRARY AND TESSERA_CBLAS_INCLUDE_DIR)
  message(STATUS "Tessera tsm: OpenBLAS found (${TESSERA_OPENBLAS_LIBRARY})")
  set_property(SOURCE ${CMAKE_CURRENT_LIST_DIR}/workload/tsm_workload.cpp TARGET_DIRECTORY tessera_driver APPEND
               PROPERTY COMPILE_DEFINITIONS TESSERA_TSM_HAS_CBLAS=1)
  target_include_directories(tessera_driver PRIVATE ${TESSERA_CBLAS_INCLUDE_DIR})
  target_link_libraries(tessera_driver PRIVATE ${TESSERA_OPENBLAS_LIBRARY})
else()
  message(STATUS "Tessera tsm: OpenBLAS not found, the openblas variant is left out")
endif()
# cuBLAS for the GPU peer (Kokkos' Cuda backend).
if(TESSERA_HAS_CUDA)
  find_package(CUDAToolkit QUIET)
  if(TARGET CUDA::cublas)
    target_link_libraries(tessera_driver PRIVATE CUDA::cublas)
  endif()
  # cuBLASLt (its best heuristic algorithm) beside it, in a file of its own.
  if(TARGET CUDA::cublasLt)
    target_sources(tessera_driver PRIVATE ${CMAKE_CURRENT_LIST_DIR}/workload/tsm_cublaslt.cpp)
    target_link_libraries(tessera_driver PRIVATE CUDA::cublasLt)
    set_property(SOURCE ${CMAKE_CURRENT_LIST_DIR}/workload/tsm_workload.cpp TARGET_DIRECTORY tessera_driver APPEND
                 PROPERTY COMPILE_DEFINITIONS TESSERA_TSM_HAS_CUBLASLT=1)
  else()
    message(STATUS "Tessera tsm: cuBLASLt not found, the cublaslt variant is left out")
  endif()
endif()
# The native kernels' configuration table (JSON, header-only nlohmann-json;
# plain C++, so the host flavour builds and tests it too).
target_sources(tessera PRIVATE ${CMAKE_CURRENT_LIST_DIR}/tsm_table.cpp)
target_link_libraries(tessera PRIVATE $<BUILD_INTERFACE:nlohmann_json::nlohmann_json>)
