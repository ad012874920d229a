// JPEG in and out of memory with libjpeg(-turbo): decode bounded by the
// image's stated size, encode for the folder writer (tools/jpeg_folder) and
// the tests.
//
// libjpeg reports errors by calling a function that must not return; ours
// longjmps back into a frame that holds no C++ object (jpeg_codec.cpp), and
// the error becomes a JpegError naming the file. A truncated file (libjpeg's
// "premature end of data" warning, which it would paper over with gray) is an
// error; other corrupt-data warnings are tolerated, as PIL does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "image.h"

namespace dtb::dataset::jpeg_folder {

class JpegError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct DecodeLimits {
  // Checked against the header before anything is allocated: a 20-byte file
  // may claim 65,535 x 65,535 pixels.
  uint32_t maxWidth = 16384;
  uint32_t maxHeight = 16384;
  // And the area: Pillow's decompression-bomb bound (MAX_IMAGE_PIXELS), so a
  // small corrupt file cannot make every loader thread allocate gigabytes.
  uint64_t maxPixels = 89'478'485;
};

// Why an image of `width` x `height` (a header's claim) is refused, or
// nothing when it is within `limits`: every decoder's check before it
// allocates the pixels.
std::optional<std::string> outsideLimits(uint64_t width, uint64_t height, const DecodeLimits& limits);

// Decodes `size` bytes of JPEG; gray stays one channel, everything else is
// RGB. `name` (the file) starts every message. Throws JpegError.
Image decodeJpeg(const uint8_t* data, size_t size, const std::string& name, const DecodeLimits& limits = {});

// Encodes a 1- or 3-channel image at `quality` (1..100). Throws JpegError.
std::string encodeJpeg(const Image& image, int quality);

}  // namespace dtb::dataset::jpeg_folder
