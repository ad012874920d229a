// jpeg_folder — an ImageNet-layout folder of JPEG files
// (<path>/train/<class>/*.jpg and <path>/val/<class>/*.jpg, or test/),
// decoded on the host's loader threads (read() is called there) and
// augmented as the ResNet recipes do: random-resized-crop and flip for
// training, resize and centre crop for evaluation (augment.h). Samples are
// 3 x size x size u8 with ImageNet's normalisation. `decode` picks where the
// pixels come from (image_source.h): libjpeg-turbo per read, a pre-decoded
// copy in memory, or nvJPEG on a GPU.
#include <array>
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "augment.h"
#include "dtbench/dataset.h"
#include "dtbench/descriptors.hpp"
#include "folder_index.h"
#include "image_source.h"

namespace dtb::dataset::jpeg_folder {
namespace {

constexpr std::array<float, 3> kMean = {0.485f, 0.456f, 0.406f};
constexpr std::array<float, 3> kStd = {0.229f, 0.224f, 0.225f};

class JpegFolder {
 public:
  explicit JpegFolder(const dtb_host_t* host) : host_(host) {
    const char* path = nullptr;
    const char* decode = nullptr;
    int64_t size = 0, seed = 0, maxPredecodedMb = 0;
    int32_t augment = 1;
    check(host->config_get_string(host->ctx, "path", &path), "path");
    check(host->config_get_int(host->ctx, "size", &size), "size");
    check(host->config_get_string(host->ctx, "decode", &decode), "decode");
    check(host->config_get_bool(host->ctx, "augment", &augment), "augment");
    check(host->config_get_int(host->ctx, "seed", &seed), "seed");
    check(host->config_get_int(host->ctx, "max_predecoded_mb", &maxPredecodedMb), "max_predecoded_mb");
    size_ = static_cast<uint32_t>(size);
    augment_ = augment != 0;
    seed_ = static_cast<uint64_t>(seed);

    const std::filesystem::path root(path);
    const std::vector<std::string> classes = scanClasses(root);
    classCount_ = static_cast<uint32_t>(classes.size());
    splits_.push_back(scanSplit(root, "train", classes));
    splits_.push_back(scanSplit(root, evalSplitName(root), classes, kMaxFiles - splits_[0].files.size()));
    for (const SplitFiles& s : splits_)
      reads_.push_back(std::make_unique<std::atomic<uint32_t>[]>(s.files.size()));

    const std::string mode = decode;
    if (mode == "predecoded") {
      source_ = makePredecodedSource(splits_, {}, static_cast<uint64_t>(maxPredecodedMb) << 20);
    } else if (mode == "nvjpeg") {
      source_ = makeNvjpegSource(splits_, {});
    } else {
      source_ = makeCpuSource(splits_, {});
    }
    const std::string line = "jpeg_folder: " + std::to_string(splits_[0].files.size()) + " train and " +
                             std::to_string(splits_[1].files.size()) + " " + splits_[1].name + " images in " +
                             std::to_string(classCount_) + " classes from " + root.string() +
                             ", decode = " + mode;
    host->log(host->ctx, DTB_LOG_INFO, line.c_str());
  }

  const dtb_host_t* host() const { return host_; }

  void info(dtb_dataset_info_t* out) const {
    out->sample_dtype = DTB_DTYPE_U8;
    out->sample_ndim = 3;
    out->sample_shape[0] = 3;
    out->sample_shape[1] = size_;
    out->sample_shape[2] = size_;
    out->num_classes = classCount_;
    out->split_count = 2;
    out->mean = kMean.data();
    out->std = kStd.data();
  }

  void split(uint32_t index, dtb_split_info_t* out) const {
    const SplitFiles& s = at(index);
    out->name = s.name.c_str();
    out->samples = s.files.size();
  }

  // On the loader's threads, concurrently: each sample's randomness is its
  // own (seed, split, index, how often it was read before), never shared state.
  void read(uint32_t split, const uint64_t* indices, uint32_t count, void* out, int32_t* labels) const {
    const SplitFiles& s = at(split);
    const size_t sampleBytes = size_t{3} * size_ * size_;
    Image scratch;
    for (uint32_t i = 0; i < count; ++i) {
      const uint64_t index = indices[i];
      if (index >= s.files.size()) {
        throw Error(DTB_STATUS_INVALID_ARGUMENT, "jpeg_folder: sample " + std::to_string(index) + " of '" +
                                                     s.name + "' does not exist (" +
                                                     std::to_string(s.files.size()) + ")");
      }
      const uint32_t readCount = reads_[split][index].fetch_add(1, std::memory_order_relaxed);
      const Image& image = source_->load(split, index, scratch);
      const bool train = split == 0 && augment_;
      SampleRng rng(seed_, split, index, readCount);
      const CropBox box = train ? randomResizedCrop(image.width, image.height, rng)
                                : evalCenterCrop(image.width, image.height, size_);
      const bool flip = train && rng.uniform(0, 1) < 0.5;
      resampleCrop(image, box, size_, flip, static_cast<uint8_t*>(out) + i * sampleBytes);
      labels[i] = s.labels[index];
    }
  }

 private:
  const SplitFiles& at(uint32_t index) const {
    if (index > 1) throw Error(DTB_STATUS_NOT_FOUND, "jpeg_folder: splits are 0 (train) and 1 (val or test)");
    return splits_[index];
  }

  const dtb_host_t* host_;
  uint32_t size_ = 224;
  bool augment_ = true;
  uint64_t seed_ = 0;
  uint32_t classCount_ = 0;
  std::vector<SplitFiles> splits_;
  std::vector<std::unique_ptr<std::atomic<uint32_t>[]>> reads_;  // per split, per sample: reads so far
  std::unique_ptr<ImageSource> source_;                          // refers to splits_: declared after it
};

const dtb_param_spec_t kParams[] = {
    {sizeof(dtb_param_spec_t), "path", DTB_PARAM_STRING, "data/jpeg-mnist",
     "Folder with train/<class>/*.jpg and val/<class>/*.jpg (or test/), ImageNet's layout; classes are the "
     "train folder names in sorted order",
     0, 0, 0, nullptr},
    {sizeof(dtb_param_spec_t), "size", DTB_PARAM_INT, "224",
     "Side of the square samples in pixels (3 x size x size)", DTB_PARAM_HAS_MIN | DTB_PARAM_HAS_MAX, 8, 2048,
     nullptr},
    {sizeof(dtb_param_spec_t), "decode", DTB_PARAM_STRING, "cpu",
     "Where images are decoded: cpu (libjpeg-turbo on the loader threads, every read), predecoded (all "
     "decoded "
     "once at open, held in memory: reads only crop and resize), nvjpeg (nvJPEG on the GPU)",
     0, 0, 0, "cpu|predecoded|nvjpeg"},
    {sizeof(dtb_param_spec_t), "augment", DTB_PARAM_BOOL, "true",
     "Train split: random-resized-crop (scale 0.08-1, ratio 3/4-4/3) and horizontal flip; false, or the eval "
     "split: resize the shorter side to size*256/224 and centre-crop",
     0, 0, 0, nullptr},
    {sizeof(dtb_param_spec_t), "seed", DTB_PARAM_INT, "0",
     "Seed of the augmentation: a sample's crop and flip follow from (seed, split, index, its read count)",
     DTB_PARAM_HAS_MIN, 0, 0, nullptr},
    {sizeof(dtb_param_spec_t), "max_predecoded_mb", DTB_PARAM_INT, "4096",
     "decode = predecoded: the most MiB the decoded images may hold; past it open fails naming the file",
     DTB_PARAM_HAS_MIN | DTB_PARAM_HAS_MAX, 1, 1048576, nullptr},
};

}  // namespace

DTB_EXPORT_DATASET_PLUGIN(datasetDescriptor<JpegFolder>(
    "jpeg_folder", "0.1.0", "ImageNet-layout JPEG folders, decoded on the loader threads", kParams))

}  // namespace dtb::dataset::jpeg_folder
