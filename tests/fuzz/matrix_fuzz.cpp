// Fuzz target for the matrix parser and planner: any input either plans or
// fails with a MatrixError — never a crash, hang or other exception.
//
// Built two ways: with clang's libFuzzer (-DDTBENCH_FUZZ=ON, run briefly by
// tools/test.sh), and as a replay binary in every build, which runs the seed
// corpus as a regular test.
#include <cstddef>
#include <cstdint>
#include <string>

#include "matrix/matrix_file.h"
#include "matrix/planner.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Loading the same few plugins for every input is what makes this target
  // slow; sharing one loader keeps the libraries mapped between inputs.
  static const dtb::core::PluginLoader loader(
      dtb::core::SearchPath({DTBENCH_TEST_PLUGIN_DIR, DTBENCH_PLUGIN_DIR}));
  try {
    dtb::core::MatrixFile matrix =
        dtb::core::parseMatrix("fuzz.toml", std::string(reinterpret_cast<const char*>(data), size));
    dtb::core::planMatrix(matrix, loader);
  } catch (const dtb::core::MatrixError&) {
    // The expected way to refuse an input.
  }
  return 0;
}
