// decode = "cpu" and "predecoded": the same libjpeg-turbo decoder, called
// for every read or once at open.
#include "dtbench/bounded_file.hpp"
#include "dtbench/plugin.hpp"
#include "image_source.h"

namespace dtb::dataset::jpeg_folder {
namespace {

Image decodeFile(const std::filesystem::path& file, const DecodeLimits& limits) {
  const std::string bytes = readJpegFile(file);
  try {
    return decodeJpeg(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), file.string(), limits);
  } catch (const JpegError& e) {
    throw Error(DTB_STATUS_IO_ERROR, e.what());
  }
}

class CpuSource : public ImageSource {
 public:
  CpuSource(const std::vector<SplitFiles>& splits, const DecodeLimits& limits)
      : splits_(splits), limits_(limits) {}

  const Image& load(uint32_t split, uint64_t index, Image& scratch) const override {
    scratch = decodeFile(splits_[split].files[index], limits_);
    return scratch;
  }

 private:
  const std::vector<SplitFiles>& splits_;
  DecodeLimits limits_;
};

class PredecodedSource : public ImageSource {
 public:
  PredecodedSource(const std::vector<SplitFiles>& splits, const DecodeLimits& limits, uint64_t maxBytes) {
    uint64_t held = 0;
    for (const SplitFiles& split : splits) {
      std::vector<Image>& images = images_.emplace_back();
      images.reserve(split.files.size());
      for (const std::filesystem::path& file : split.files) {
        images.push_back(decodeFile(file, limits));
        held += images.back().bytes();
        if (held > maxBytes) {
          throw Error(DTB_STATUS_OUT_OF_MEMORY,
                      file.string() + ": decoding it takes the pre-decoded images past max_predecoded_mb = " +
                          std::to_string(maxBytes >> 20) + " (" + std::to_string(held) +
                          " bytes); raise the bound, or use a smaller folder or decode = \"cpu\"");
        }
      }
    }
  }

  const Image& load(uint32_t split, uint64_t index, Image& /*scratch*/) const override {
    return images_[split][index];
  }

 private:
  std::vector<std::vector<Image>> images_;  // per split, per sample; read-only after open
};

}  // namespace

std::string readJpegFile(const std::filesystem::path& file) {
  try {
    BoundedFile bounded(file, kMaxFileBytes, "JPEG file");
    return bounded.readAll();
  } catch (const BoundedFile::Error& e) {
    throw Error(DTB_STATUS_IO_ERROR, e.what());
  }
}

std::unique_ptr<ImageSource> makeCpuSource(const std::vector<SplitFiles>& splits,
                                           const DecodeLimits& limits) {
  return std::make_unique<CpuSource>(splits, limits);
}

std::unique_ptr<ImageSource> makePredecodedSource(const std::vector<SplitFiles>& splits,
                                                  const DecodeLimits& limits, uint64_t maxBytes) {
  return std::make_unique<PredecodedSource>(splits, limits, maxBytes);
}

}  // namespace dtb::dataset::jpeg_folder
