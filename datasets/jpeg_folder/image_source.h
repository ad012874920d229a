// Where a sample's decoded image comes from: one object per `decode` mode.
//   cpu         read the file and decode it with libjpeg-turbo on the
//               calling loader thread, every time (a PyTorch DataLoader);
//   predecoded  every image decoded once at open and held in memory, so a
//               read only crops and resizes: the reference the others are
//               measured against;
//   nvjpeg      read the file on the loader thread, decode it on the GPU
//               with nvJPEG (DALI's decoder), copy the pixels back.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "folder_index.h"
#include "image.h"
#include "jpeg_codec.h"

namespace dtb::dataset::jpeg_folder {

// A JPEG larger than this is no photograph of a dataset (ImageNet's largest is 15 MB).
constexpr uint64_t kMaxFileBytes = uint64_t{64} << 20;

class ImageSource {
 public:
  virtual ~ImageSource() = default;
  // Sample `index` of split `split`, decoded: either `scratch`, filled now,
  // or an image the source holds. Thread-safe. Throws dtb::Error
  // (IO_ERROR) naming the file.
  virtual const Image& load(uint32_t split, uint64_t index, Image& scratch) const = 0;
};

// The file's bytes, refused past kMaxFileBytes or when not a regular file.
std::string readJpegFile(const std::filesystem::path& file);

// Each keeps a reference to `splits`, which must outlive it.
std::unique_ptr<ImageSource> makeCpuSource(const std::vector<SplitFiles>& splits, const DecodeLimits& limits);
// Decodes every image now; fails naming the file that passes `maxBytes` in all.
std::unique_ptr<ImageSource> makePredecodedSource(const std::vector<SplitFiles>& splits,
                                                  const DecodeLimits& limits, uint64_t maxBytes);
// Fails (UNSUPPORTED) with what is missing when nvJPEG or a GPU is not there.
std::unique_ptr<ImageSource> makeNvjpegSource(const std::vector<SplitFiles>& splits,
                                              const DecodeLimits& limits);

}  // namespace dtb::dataset::jpeg_folder
