// Runs the fuzz target over the files named on the command line (the seed
// corpus), so every build tests what the fuzzer starts from.
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "cannot read %s\n", argv[i]);
      return 1;
    }
    std::stringstream text;
    text << in.rdbuf();
    const std::string input = text.str();
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
    // Every prefix too: truncated files are the commonest malformed input.
    for (size_t cut = 0; cut < input.size(); cut += 7) {
      LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), cut);
    }
  }
  std::printf("replayed %d inputs without a crash\n", argc - 1);
  return 0;
}
