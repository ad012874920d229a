# dtbench_add_plugin(KIND <strategy|backend|model|dataset> NAME <name>
#                    SOURCES <files...> [LINK <targets...>] [NO_INSTALL]
#                    [OUTPUT_DIRECTORY <dir>])
#
# Builds one plugin the way every plugin is built: a MODULE library named
# dtbench-<kind>-<name>.so, hidden visibility (only the DTB_EXPORT entry
# symbol is exported), against the ABI headers only. Installed into
# lib/dtbench/plugins unless NO_INSTALL. This same function is exported with
# the package, so an out-of-tree plugin builds exactly like ours.
function(dtbench_add_plugin)
  cmake_parse_arguments(ARG "NO_INSTALL" "KIND;NAME;OUTPUT_DIRECTORY" "SOURCES;LINK" ${ARGN})
  if(NOT ARG_KIND MATCHES "^(strategy|backend|model|dataset)$")
    message(FATAL_ERROR "dtbench_add_plugin: KIND must be strategy, backend, model or dataset")
  endif()
  if(NOT ARG_NAME MATCHES "^[a-z][a-z0-9_]*$")
    message(FATAL_ERROR "dtbench_add_plugin: NAME must be lower_snake_case")
  endif()
  set(target dtbench-${ARG_KIND}-${ARG_NAME})
  add_library(${target} MODULE ${ARG_SOURCES})
  if(NOT ARG_OUTPUT_DIRECTORY)
    if(DEFINED DTBENCH_PLUGIN_OUTPUT_DIR)
      set(ARG_OUTPUT_DIRECTORY ${DTBENCH_PLUGIN_OUTPUT_DIR})
    else()
      set(ARG_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
    endif()
  endif()
  set_target_properties(${target} PROPERTIES
    PREFIX ""
    OUTPUT_NAME ${target}
    LIBRARY_OUTPUT_DIRECTORY ${ARG_OUTPUT_DIRECTORY}
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    CUDA_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  target_link_libraries(${target} PRIVATE dtbench::abi ${ARG_LINK})
  # Undefined symbols fail at link time, not when a run loads the plugin
  # (except under clang's sanitizers, whose runtime lives in the executable).
  if(NOT DTBENCH_FUZZ)
    target_link_options(${target} PRIVATE -Wl,--no-undefined)
  endif()
  if(NOT ARG_NO_INSTALL AND DEFINED DTBENCH_PLUGIN_INSTALL_DIR)
    install(TARGETS ${target} LIBRARY DESTINATION ${DTBENCH_PLUGIN_INSTALL_DIR})
  endif()
endfunction()
