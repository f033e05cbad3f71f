# Native tall-skinny GEMM kernels, one translation unit per kernel family.
list(APPEND TESSERA_CUDA_WORKLOAD_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/tsm_tsmttsm_d.cu
  ${CMAKE_CURRENT_LIST_DIR}/tsm_tsmttsm_z.cu
  ${CMAKE_CURRENT_LIST_DIR}/tsm_tsmm.cu
  ${CMAKE_CURRENT_LIST_DIR}/tsm_tsmm_z.cu)
