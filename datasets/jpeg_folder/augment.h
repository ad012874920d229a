// The image transforms of the ResNet recipes (torchvision's ImageNet
// example), as one resampling of a crop box:
//   train: RandomResizedCrop(size, scale = (0.08, 1), ratio = (3/4, 4/3)),
//          RandomHorizontalFlip(0.5);
//   eval:  Resize(size * 256 / 224) of the shorter side, CenterCrop(size).
// Resampling is bilinear with half-pixel centres (torch's align_corners =
// False) and no antialiasing; the output is the sample's three u8 planes.
#pragma once

#include <cstdint>

#include "image.h"

namespace dtb::dataset::jpeg_folder {

// Random numbers of one read of one sample: a splitmix64 stream seeded from
// (seed, split, index, read count), so a sample does not depend on which
// loader thread reads it or on what the others read.
class SampleRng {
 public:
  SampleRng(uint64_t seed, uint32_t split, uint64_t index, uint64_t readCount);
  uint64_t next();
  double uniform(double low, double high);  // [low, high)
  uint32_t below(uint32_t n);               // [0, n)

 private:
  uint64_t state_;
};

// A region of the source image in pixels (fractional for the eval resize).
struct CropBox {
  double left = 0, top = 0, width = 0, height = 0;
};

constexpr double kMinScale = 0.08, kMaxScale = 1.0;
constexpr double kMinRatio = 3.0 / 4.0, kMaxRatio = 4.0 / 3.0;
constexpr int kCropTries = 10;

// torchvision's RandomResizedCrop.get_params: up to ten tries of an area
// share in [0.08, 1] and a log-uniform aspect ratio in [3/4, 4/3] that fit,
// then the centre crop with the ratio clamped into that range.
CropBox randomResizedCrop(uint32_t width, uint32_t height, SampleRng& rng);

// Resize(round(size * 256 / 224)) then CenterCrop(size), as a box of the source.
CropBox evalCenterCrop(uint32_t width, uint32_t height, uint32_t size);

// Resamples `box` of `image` to size x size into `planes` (3 x size x size;
// a gray image fills all three), mirrored left-right when `flip`.
void resampleCrop(const Image& image, const CropBox& box, uint32_t size, bool flip, uint8_t* planes);

}  // namespace dtb::dataset::jpeg_folder
