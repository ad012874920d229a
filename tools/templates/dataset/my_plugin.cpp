// my_plugin — a dtbench dataset. It starts as generated data: sample i of a
// split has class i % classes, and its 1x8x8 pixels are +-1 by a fixed
// pattern of its class plus noise, so a model can learn it. Replace read()
// with your data (open files in the constructor: a missing one is
// DTB_STATUS_IO_ERROR naming the file); the host shards, shuffles, batches
// and prefetches, calling read() from several threads at once.
#include <cstdint>
#include <string>

#include "dtbench/dataset.h"
#include "dtbench/descriptors.hpp"
#include "dtbench/settings.hpp"

namespace {

// Parameters: declared once, listed by `dtbench plugins`, checked in matrices.
constexpr dtb::IntSetting kClasses{"classes", "4", "Number of classes", dtb::between(2, 1000)};
constexpr dtb::IntSetting kTrainSamples{"train_samples", "2048", "Samples in the train split",
                                        dtb::atLeast(1)};
constexpr dtb::IntSetting kTestSamples{"test_samples", "512", "Samples in the test split", dtb::atLeast(1)};
const dtb_param_spec_t kParams[] = {kClasses.spec(), kTrainSamples.spec(), kTestSamples.spec()};

constexpr int64_t kSide = 8;

// SplitMix64: a well-mixed hash, so every sample is a pure function of its index.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

class MyPlugin {
 public:
  explicit MyPlugin(const dtb_host_t* host)
      : host_(host),
        classes_(static_cast<uint32_t>(kClasses.get(host))),
        samples_{static_cast<uint64_t>(kTrainSamples.get(host)),
                 static_cast<uint64_t>(kTestSamples.get(host))} {}

  const dtb_host_t* host() const { return host_; }

  void info(dtb_dataset_info_t* out) const {
    out->sample_dtype = DTB_DTYPE_F32;
    out->sample_ndim = 3;
    out->sample_shape[0] = 1;
    out->sample_shape[1] = kSide;
    out->sample_shape[2] = kSide;
    out->num_classes = classes_;
    out->split_count = 2;
    out->mean = nullptr;  // centred already: no normalisation
    out->std = nullptr;
  }

  void split(uint32_t index, dtb_split_info_t* out) const {
    out->name = checkSplit(index) == 0 ? "train" : "test";
    out->samples = samples_[index];
  }

  void read(uint32_t split, const uint64_t* indices, uint32_t count, void* out, int32_t* labels) const {
    auto* pixels = static_cast<float*>(out);
    for (uint32_t n = 0; n < count; ++n) {
      const uint64_t i = indices[n];
      if (i >= samples_[checkSplit(split)]) {
        throw dtb::Error(DTB_STATUS_INVALID_ARGUMENT,
                         "my_plugin: sample " + std::to_string(i) + " is past the end");
      }
      const uint32_t label = static_cast<uint32_t>(i % classes_);
      labels[n] = static_cast<int32_t>(label);
      for (int64_t e = 0; e < kSide * kSide; ++e) {
        const float sign = (mix(label * 1000003u + e) & 1) ? 0.3f : -0.3f;
        const float noise =
            static_cast<float>(mix((split + 1) * 0x100000000ULL + i * 64 + e) >> 40) / 16777216.0f;
        pixels[n * kSide * kSide + e] = sign + (noise - 0.5f);
      }
    }
  }

 private:
  static uint32_t checkSplit(uint32_t split) {
    if (split > 1) throw dtb::Error(DTB_STATUS_NOT_FOUND, "my_plugin: splits are 0 (train) and 1 (test)");
    return split;
  }

  const dtb_host_t* host_;
  uint32_t classes_;
  uint64_t samples_[2];
};

}  // namespace

DTB_EXPORT_DATASET_PLUGIN(dtb::datasetDescriptor<MyPlugin>(
    "my_plugin", "0.1.0", "Generated 1x8x8 samples (dtbench new's starting point)", kParams))
