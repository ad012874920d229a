# Warnings on for every target of ours; sanitizers when asked for; the
# debug info the default build carries.
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
  # -O1, as the AddressSanitizer's authors advise: reports stay exact, and
  # the build takes half the time of -O2's.
  add_compile_options($<$<COMPILE_LANGUAGE:C,CXX>:-fsanitize=address,undefined>
                      $<$<COMPILE_LANGUAGE:C,CXX>:-fno-omit-frame-pointer>
                      $<$<COMPILE_LANGUAGE:C,CXX>:-fno-sanitize-recover=undefined>
                      $<$<COMPILE_LANGUAGE:C,CXX>:-O1>)
  add_link_options(-fsanitize=address,undefined)
endif()

# Line tables, not full debug info, in the default build type: backtraces,
# crash reports and sanitizer reports still name file and line, and a
# compile takes a third less time (CLI11's and GoogleTest's templates make
# most of -g's weight). -DDTBENCH_FULL_DEBUG_INFO=ON brings -g back.
option(DTBENCH_FULL_DEBUG_INFO "Full debug info (-g) in RelWithDebInfo builds, not line tables only" OFF)
if(CMAKE_BUILD_TYPE STREQUAL "RelWithDebInfo" AND NOT DTBENCH_FULL_DEBUG_INFO)
  add_compile_options($<$<COMPILE_LANGUAGE:C,CXX>:-g1>)
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
