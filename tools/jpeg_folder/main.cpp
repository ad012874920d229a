// dtbench-jpeg-folder: writes an ImageNet-layout folder of JPEG files
// (OUTPUT/train/<class>/<n>.jpg, OUTPUT/val/<class>/<n>.jpg) from data we
// have, for the jpeg_folder dataset: MNIST-format IDX files (data/mnist,
// data/fashion-mnist) or CIFAR-10's binary batches, upscaled (bilinear) to
// --size pixels and encoded at --quality. Class folders are the labels,
// zero-padded so their sorted order is the label order.
//
//   dtbench-jpeg-folder --from idx data/mnist data/jpeg-mnist [--size 224] [--quality 90] [--limit N]
#include <CLI/CLI.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "augment.h"
#include "dtbench/bounded_file.hpp"
#include "dtbench/plugin.hpp"
#include "idx_file.h"
#include "jpeg_codec.h"

namespace dtb::tools::jpeg_folder {
namespace {

namespace fs = std::filesystem;
using dataset::jpeg_folder::Image;

struct Split {
  std::string name;
  std::vector<Image> images;
  std::vector<uint32_t> labels;
};

struct Options {
  std::string from = "idx";
  fs::path input, output;
  uint32_t size = 224;
  int quality = 90;
  uint64_t limit = 0;  // 0: all
};

Split readIdxSplit(const fs::path& dir, const std::string& prefix, const std::string& name, uint64_t limit) {
  const dataset::idx::IdxArray images = dataset::idx::readIdx(dir / (prefix + "-images-idx3-ubyte"));
  const dataset::idx::IdxArray labels = dataset::idx::readIdx(dir / (prefix + "-labels-idx1-ubyte"));
  if (images.dims.size() != 3 || labels.dims.size() != 1 || images.dims[0] != labels.dims[0])
    throw std::runtime_error((dir / prefix).string() + "-*: images must be N x H x W and labels N");
  Split split{name, {}, {}};
  const uint64_t n = limit ? std::min<uint64_t>(limit, images.dims[0]) : images.dims[0];
  const size_t pixels = size_t{images.dims[1]} * images.dims[2];
  for (uint64_t i = 0; i < n; ++i) {
    Image image{images.dims[2], images.dims[1], 1, {}};
    image.pixels.assign(images.data.begin() + i * pixels, images.data.begin() + (i + 1) * pixels);
    split.images.push_back(std::move(image));
    split.labels.push_back(labels.data[i]);
  }
  return split;
}

// CIFAR-10's records: a label byte, then the red, green and blue 32 x 32 planes.
void appendCifarBatch(Split& split, const fs::path& file, uint64_t limit) {
  constexpr size_t kPlane = 32 * 32, kRecord = 1 + 3 * kPlane;
  const std::string bytes =
      BoundedFile(file, uint64_t{100} * 10000 * kRecord, "CIFAR-10 batch file").readAll();
  if (bytes.empty() || bytes.size() % kRecord != 0)
    throw std::runtime_error(file.string() + ": not a whole number of 3073-byte records");
  for (size_t at = 0; at < bytes.size() && (!limit || split.images.size() < limit); at += kRecord) {
    Image image{32, 32, 3, std::vector<uint8_t>(3 * kPlane)};
    for (size_t p = 0; p < kPlane; ++p) {
      for (size_t c = 0; c < 3; ++c)
        image.pixels[p * 3 + c] = static_cast<uint8_t>(bytes[at + 1 + c * kPlane + p]);
    }
    split.images.push_back(std::move(image));
    split.labels.push_back(static_cast<uint8_t>(bytes[at]));
  }
}

std::vector<Split> readInput(const Options& o) {
  if (o.from == "idx")
    return {readIdxSplit(o.input, "train", "train", o.limit), readIdxSplit(o.input, "t10k", "val", o.limit)};
  std::vector<Split> splits{{"train", {}, {}}, {"val", {}, {}}};
  for (int b = 1; b <= 5; ++b)
    appendCifarBatch(splits[0], o.input / ("data_batch_" + std::to_string(b) + ".bin"), o.limit);
  appendCifarBatch(splits[1], o.input / "test_batch.bin", o.limit);
  return splits;
}

// The image at size x size, bilinear (the dataset's own resampling), channels kept.
Image upscale(const Image& image, uint32_t size) {
  if (image.width == size && image.height == size) return image;
  std::vector<uint8_t> planes(size_t{3} * size * size);
  dataset::jpeg_folder::resampleCrop(image, {0, 0, double(image.width), double(image.height)}, size, false,
                                     planes.data());
  Image out{size, size, image.channels, std::vector<uint8_t>(size_t{size} * size * image.channels)};
  const size_t plane = size_t{size} * size;
  for (size_t p = 0; p < plane; ++p) {
    for (uint32_t c = 0; c < image.channels; ++c) out.pixels[p * image.channels + c] = planes[c * plane + p];
  }
  return out;
}

std::string padded(uint64_t value, uint64_t largest) {
  const std::string text = std::to_string(value), widest = std::to_string(largest);
  return std::string(widest.size() - text.size(), '0') + text;
}

void writeFolder(const Options& o, const std::vector<Split>& splits) {
  uint32_t maxLabel = 0;
  for (const Split& s : splits)
    for (uint32_t label : s.labels) maxLabel = std::max(maxLabel, label);
  for (const Split& s : splits) {
    for (size_t i = 0; i < s.images.size(); ++i) {
      const fs::path dir = o.output / s.name / padded(s.labels[i], maxLabel);
      fs::create_directories(dir);
      const fs::path file = dir / (padded(i, s.images.size() - 1) + ".jpg");
      const std::string jpeg = dataset::jpeg_folder::encodeJpeg(upscale(s.images[i], o.size), o.quality);
      std::ofstream out(file, std::ios::binary);
      out.write(jpeg.data(), static_cast<std::streamsize>(jpeg.size()));
      if (!out.flush()) throw std::runtime_error(file.string() + ": cannot write");
    }
    std::cout << "dtbench-jpeg-folder: " << s.images.size() << " " << s.name << " images in "
              << (o.output / s.name).string() << "\n";
  }
}

}  // namespace
}  // namespace dtb::tools::jpeg_folder

int main(int argc, char** argv) {
  using namespace dtb::tools::jpeg_folder;
  Options o;
  CLI::App app(
      "Writes an ImageNet-layout JPEG folder (train/<class>/*.jpg, val/<class>/*.jpg) from MNIST-format "
      "IDX files or CIFAR-10 binary batches, for the jpeg_folder dataset",
      "dtbench-jpeg-folder");
  app.add_option("--from", o.from,
                 "Input format: idx (train-/t10k-images-idx3-ubyte and labels, .gz too) or "
                 "cifar10 (data_batch_1..5.bin, test_batch.bin)")
      ->check(CLI::IsMember({"idx", "cifar10"}));
  app.add_option("input", o.input, "Folder holding the input files")->required();
  app.add_option("output", o.output, "Folder to write (must not hold train/ or val/ yet)")->required();
  app.add_option("--size", o.size, "Side of the written images in pixels (bilinear upscale)")
      ->check(CLI::Range(8, 4096));
  app.add_option("--quality", o.quality, "JPEG quality")->check(CLI::Range(1, 100));
  app.add_option("--limit", o.limit, "At most this many images per split (0: all)");
  CLI11_PARSE(app, argc, argv);
  try {
    for (const char* split : {"train", "val"}) {
      if (std::filesystem::exists(o.output / split))
        throw std::runtime_error((o.output / split).string() + ": already there; remove it first");
    }
    writeFolder(o, readInput(o));
  } catch (const std::exception& e) {
    std::cerr << "dtbench-jpeg-folder: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
