#include "augment.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace dtb::dataset::jpeg_folder {
namespace {

uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Source coordinate and weight of each output column (or row): half-pixel
// centres, clamped to the image as torch's bilinear interpolation does.
struct Tap {
  uint32_t low, high;
  float weight;  // of `high`
};

std::vector<Tap> taps(double start, double extent, uint32_t size, uint32_t limit, bool mirror) {
  std::vector<Tap> out(size);
  const double step = extent / size;
  for (uint32_t i = 0; i < size; ++i) {
    const uint32_t o = mirror ? size - 1 - i : i;
    double at = start + (o + 0.5) * step - 0.5;
    at = std::clamp(at, 0.0, static_cast<double>(limit - 1));
    const auto low = static_cast<uint32_t>(at);
    out[i] = {low, std::min(low + 1, limit - 1), static_cast<float>(at - low)};
  }
  return out;
}

}  // namespace

SampleRng::SampleRng(uint64_t seed, uint32_t split, uint64_t index, uint64_t readCount)
    : state_(mix(mix(mix(mix(seed) ^ split) ^ index) ^ readCount)) {}

uint64_t SampleRng::next() {
  state_ += 0x9e3779b97f4a7c15ULL;
  return mix(state_);
}

double SampleRng::uniform(double low, double high) {
  return low + (high - low) * static_cast<double>(next() >> 11) * 0x1.0p-53;
}

uint32_t SampleRng::below(uint32_t n) { return static_cast<uint32_t>(next() % n); }

CropBox randomResizedCrop(uint32_t width, uint32_t height, SampleRng& rng) {
  const double area = static_cast<double>(width) * height;
  for (int attempt = 0; attempt < kCropTries; ++attempt) {
    const double target = area * rng.uniform(kMinScale, kMaxScale);
    const double ratio = std::exp(rng.uniform(std::log(kMinRatio), std::log(kMaxRatio)));
    const auto w = static_cast<int64_t>(std::nearbyint(std::sqrt(target * ratio)));
    const auto h = static_cast<int64_t>(std::nearbyint(std::sqrt(target / ratio)));
    if (w > 0 && h > 0 && w <= width && h <= height) {
      const uint32_t top = rng.below(static_cast<uint32_t>(height - h + 1));
      const uint32_t left = rng.below(static_cast<uint32_t>(width - w + 1));
      return {static_cast<double>(left), static_cast<double>(top), static_cast<double>(w),
              static_cast<double>(h)};
    }
  }
  const double inRatio = static_cast<double>(width) / height;
  double w = width, h = height;
  if (inRatio < kMinRatio) {
    h = std::nearbyint(w / kMinRatio);
  } else if (inRatio > kMaxRatio) {
    w = std::nearbyint(h * kMaxRatio);
  }
  return {std::floor((width - w) / 2), std::floor((height - h) / 2), w, h};
}

CropBox evalCenterCrop(uint32_t width, uint32_t height, uint32_t size) {
  // torchvision's Resize(int): the shorter side to `resized`, the longer one
  // in proportion (truncated), then a centre crop of `size` at whole pixels
  // rounded as Python's round() does (half to even: nearbyint).
  const auto resized = static_cast<uint32_t>(std::lround(size * 256.0 / 224.0));
  const bool wide = width >= height;
  const uint32_t shorter = wide ? height : width, longer = wide ? width : height;
  const auto longerResized = static_cast<uint32_t>(static_cast<uint64_t>(resized) * longer / shorter);
  const uint32_t rw = wide ? longerResized : resized, rh = wide ? resized : longerResized;
  const double left = std::nearbyint((rw - static_cast<double>(size)) / 2);
  const double top = std::nearbyint((rh - static_cast<double>(size)) / 2);
  const double sx = static_cast<double>(width) / rw, sy = static_cast<double>(height) / rh;
  return {left * sx, top * sy, size * sx, size * sy};
}

void resampleCrop(const Image& image, const CropBox& box, uint32_t size, bool flip, uint8_t* planes) {
  const std::vector<Tap> xs = taps(box.left, box.width, size, image.width, flip);
  const std::vector<Tap> ys = taps(box.top, box.height, size, image.height, false);
  const uint32_t channels = image.channels;
  const size_t row = static_cast<size_t>(image.width) * channels;
  const size_t plane = static_cast<size_t>(size) * size;
  for (uint32_t y = 0; y < size; ++y) {
    const uint8_t* above = image.pixels.data() + ys[y].low * row;
    const uint8_t* below = image.pixels.data() + ys[y].high * row;
    const float fy = ys[y].weight;
    for (uint32_t x = 0; x < size; ++x) {
      const Tap& t = xs[x];
      for (uint32_t c = 0; c < 3; ++c) {
        const uint32_t sc = channels == 1 ? 0 : c;
        const float top = above[t.low * channels + sc] +
                          t.weight * (above[t.high * channels + sc] - above[t.low * channels + sc]);
        const float bottom = below[t.low * channels + sc] +
                             t.weight * (below[t.high * channels + sc] - below[t.low * channels + sc]);
        const float value = top + fy * (bottom - top);
        planes[c * plane + static_cast<size_t>(y) * size + x] = static_cast<uint8_t>(std::lround(value));
      }
    }
  }
}

}  // namespace dtb::dataset::jpeg_folder
