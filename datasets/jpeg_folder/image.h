// An 8-bit image as decoded: rows of interleaved channels (1: gray, 3: RGB).
// Grayscale stays one channel until resampling writes the three planes of a
// sample: a pre-decoded MNIST folder then holds a third of the bytes.
#pragma once

#include <cstdint>
#include <vector>

namespace dtb::dataset::jpeg_folder {

struct Image {
  uint32_t width = 0;
  uint32_t height = 0;
  uint32_t channels = 3;        // 1 or 3
  std::vector<uint8_t> pixels;  // height x width x channels

  uint64_t bytes() const { return pixels.size(); }
};

}  // namespace dtb::dataset::jpeg_folder
