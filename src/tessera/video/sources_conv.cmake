# conv3d and pairwise distance of the video workload (library side).
# FFTW (float) for the host Fourier methods, when present.
find_path(TESSERA_FFTW_INCLUDE_DIR fftw3.h)
find_library(TESSERA_FFTW3F_LIBRARY fftw3f)
find_library(TESSERA_FFTW3F_OMP_LIBRARY fftw3f_omp)
if(TESSERA_FFTW_INCLUDE_DIR AND TESSERA_FFTW3F_LIBRARY)
  message(STATUS "Tessera video: FFTW float found (${TESSERA_FFTW3F_LIBRARY})")
  target_sources(tessera PRIVATE ${CMAKE_CURRENT_LIST_DIR}/conv3d_fftw.cpp)
  target_include_directories(tessera PUBLIC $<BUILD_INTERFACE:${TESSERA_FFTW_INCLUDE_DIR}>)
  target_compile_definitions(tessera PUBLIC TESSERA_VIDEO_HAS_FFTW=1)
  if(TESSERA_FFTW3F_OMP_LIBRARY)
    target_compile_definitions(tessera PRIVATE TESSERA_VIDEO_FFTW_THREADS=1)
    target_link_libraries(tessera PUBLIC ${TESSERA_FFTW3F_OMP_LIBRARY})
  endif()
  target_link_libraries(tessera PUBLIC ${TESSERA_FFTW3F_LIBRARY})
else()
  message(STATUS "Tessera video: FFTW float not found, the host Fourier variants are left out")
endif()
# The conv3d and pairwise families of the video workload (driver side).
target_sources(tessera_driver PRIVATE ${CMAKE_CURRENT_LIST_DIR}/workload/conv3d_kernel.cpp
                                      ${CMAKE_CURRENT_LIST_DIR}/workload/pairwise_kernel.cpp)
