# The exported package: find_package(dtbench) gives an out-of-tree plugin the
# ABI headers (dtbench::abi) and the same dtbench_add_plugin() we use.
include(CMakePackageConfigHelpers)
set(DTBENCH_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/dtbench)
install(EXPORT dtbenchTargets NAMESPACE dtbench:: DESTINATION ${DTBENCH_CMAKE_INSTALL_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/dtbenchConfig.cmake.in
  ${PROJECT_BINARY_DIR}/dtbenchConfig.cmake INSTALL_DESTINATION ${DTBENCH_CMAKE_INSTALL_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/dtbenchConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/dtbenchConfig.cmake ${PROJECT_BINARY_DIR}/dtbenchConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/cmake/DtbenchPlugin.cmake DESTINATION ${DTBENCH_CMAKE_INSTALL_DIR})
