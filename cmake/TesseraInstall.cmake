# Install Tessera::tessera with its headers and a TesseraConfig.cmake, so that
# a downstream Kokkos application can find_package(Tessera).
include(CMakePackageConfigHelpers)

install(TARGETS tessera EXPORT TesseraTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS tessera_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The public headers: core and each workload's API, spec and portable impl.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/src/tessera/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tessera
  FILES_MATCHING PATTERN "*.hpp" PATTERN "driver" EXCLUDE
  PATTERN "workload" EXCLUDE PATTERN "himeno_checkpoint.hpp" EXCLUDE)
install(FILES ${PROJECT_BINARY_DIR}/src/include/tessera/config.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tessera)
install(EXPORT TesseraTargets NAMESPACE Tessera:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Tessera)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/TesseraConfig.cmake.in
  ${PROJECT_BINARY_DIR}/TesseraConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Tessera)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/TesseraConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/TesseraConfig.cmake ${PROJECT_BINARY_DIR}/TesseraConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Tessera)
