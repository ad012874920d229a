# Third-party libraries, all from Debian packages (tools/install-deps.sh
# installs what is missing), and the CUDA stack under /usr/local/cuda.
find_package(Threads REQUIRED)
find_package(tomlplusplus 3 REQUIRED)
find_package(SQLite3 REQUIRED)
find_package(CLI11 2 REQUIRED)

# CUDA: optional. Found when nvcc is on PATH or under /usr/local/cuda.
set(DTBENCH_HAVE_CUDA OFF)
if(DTBENCH_CUDA)
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      # A100 and H100; the machines dtbench is lent.
      set(CMAKE_CUDA_ARCHITECTURES 80 90)
    endif()
    # CMake 3.25 cannot ask nvcc for C++20; the CUDA sources need only C++17.
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    set(DTBENCH_HAVE_CUDA ON)
    message(STATUS "dtbench: CUDA ${CMAKE_CUDA_COMPILER_VERSION} found; building CUDA targets")
  else()
    message(STATUS "dtbench: no CUDA toolkit found; CUDA targets are skipped")
  endif()
endif()
