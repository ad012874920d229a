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

# dtbench_add_plugin_tests(KIND <kind> NAME <name> MATRIX <file.toml>
#                          COMPARE <file.sql> [TIMEOUT <seconds>])
#
# The tests `dtbench new` gives a plugin, run by ctest with the dtbench this
# package belongs to and the plugin's own build folder on the plugin path:
#   <name>.check    every plugin on the path loads and creates an instance
#   <name>.run      MATRIX runs into a fresh <name>.db in the build folder
#   <name>.compare  COMPARE's SQL over those results answers a row "PASS: ..."
# Exported with the package, like dtbench_add_plugin.
function(dtbench_add_plugin_tests)
  cmake_parse_arguments(ARG "" "KIND;NAME;MATRIX;COMPARE;TIMEOUT" "" ${ARGN})
  foreach(required KIND NAME MATRIX COMPARE)
    if(NOT ARG_${required})
      message(FATAL_ERROR "dtbench_add_plugin_tests: ${required} is required")
    endif()
  endforeach()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 120)
  endif()
  set(name ${ARG_NAME})
  set(plugin dtbench-${ARG_KIND}-${name})
  get_filename_component(matrix ${ARG_MATRIX} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
  get_filename_component(compare_file ${ARG_COMPARE} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
  set(dtbench $<TARGET_FILE:dtbench::dtbench> --plugin-path $<TARGET_FILE_DIR:${plugin}>)
  set(db ${CMAKE_CURRENT_BINARY_DIR}/${name}.db)

  add_test(NAME ${name}.check COMMAND ${dtbench} check)
  set_tests_properties(${name}.check PROPERTIES PASS_REGULAR_EXPRESSION "ok +${ARG_KIND} +${name}\n"
                       FAIL_REGULAR_EXPRESSION "self-check: FAILED")
  add_test(NAME ${name}.fresh_results COMMAND ${CMAKE_COMMAND} -E rm -f ${db} ${db}-wal ${db}-shm)
  set_tests_properties(${name}.fresh_results PROPERTIES FIXTURES_SETUP ${name}.db)
  add_test(NAME ${name}.run COMMAND ${dtbench} run ${matrix} --db ${db})
  set_tests_properties(${name}.run PROPERTIES FIXTURES_REQUIRED ${name}.db FIXTURES_SETUP ${name}.results
                       TIMEOUT ${ARG_TIMEOUT})
  # The SQL is read at configure time (ctest passes it as one argument);
  # editing it re-runs cmake.
  file(READ ${compare_file} compare)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${compare_file})
  add_test(NAME ${name}.compare COMMAND ${dtbench} query ${db} "${compare}")
  set_tests_properties(${name}.compare PROPERTIES FIXTURES_REQUIRED ${name}.results
                       PASS_REGULAR_EXPRESSION "\nPASS: " FAIL_REGULAR_EXPRESSION "\nFAIL: ")
endfunction()
