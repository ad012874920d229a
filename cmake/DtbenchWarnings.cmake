# Warnings on for every target of ours; sanitizers when asked for.
add_compile_options(
  $<$<COMPILE_LANGUAGE:C,CXX>:-Wall>
  $<$<COMPILE_LANGUAGE:C,CXX>:-Wextra>
  $<$<COMPILE_LANGUAGE:C,CXX>:-Wshadow>
  $<$<COMPILE_LANGUAGE:C,CXX>:-Wno-missing-field-initializers>)
if(DTBENCH_WERROR)
  add_compile_options($<$<COMPILE_LANGUAGE:C,CXX>:-Werror>)
endif()
if(DTBENCH_FUZZ)
  # Sanitizers everywhere; coverage instrumentation only in the core
  # (core/CMakeLists.txt): plugins are dlopen'ed and dlclose'd, and
  # libFuzzer cannot follow counters that vanish with a library.
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "DTBENCH_FUZZ needs clang: CC=clang CXX=clang++ cmake ... -DDTBENCH_FUZZ=ON")
  endif()
  add_compile_options($<$<COMPILE_LANGUAGE:C,CXX>:-fsanitize=address,undefined>)
  add_link_options(-fsanitize=address,undefined)
endif()
if(DTBENCH_SANITIZE)
  add_compile_options($<$<COMPILE_LANGUAGE:C,CXX>:-fsanitize=address,undefined>
                      $<$<COMPILE_LANGUAGE:C,CXX>:-fno-omit-frame-pointer>
                      $<$<COMPILE_LANGUAGE:C,CXX>:-fno-sanitize-recover=undefined>)
  add_link_options(-fsanitize=address,undefined)
endif()

# ccache when present: rebuilds in CI and after switching branches are cheap.
# CMake writes absolute paths into every command, and -g puts the build
# directory into every object, so by default a clone in another folder (CI's)
# hashes differently and finds nothing. base_dir makes ccache hash paths
# under the source tree as relative ones, and with a -fdebug-prefix-map it
# leaves the working directory out of the hash (ccache(1), "Compiling in
# different directories"): a clone of the same commit elsewhere, building in
# a folder inside it (tools/build.sh's build/), hits the cache.
find_program(DTBENCH_CCACHE ccache)
if(DTBENCH_CCACHE)
  find_program(DTBENCH_ENV env REQUIRED)
  set(CMAKE_C_COMPILER_LAUNCHER ${DTBENCH_ENV} CCACHE_BASEDIR=${CMAKE_SOURCE_DIR} ${DTBENCH_CCACHE})
  set(CMAKE_CXX_COMPILER_LAUNCHER ${CMAKE_C_COMPILER_LAUNCHER})
  add_compile_options($<$<COMPILE_LANGUAGE:C,CXX>:-fdebug-prefix-map=${CMAKE_SOURCE_DIR}=.>)
endif()
