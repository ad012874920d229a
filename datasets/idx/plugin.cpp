// idx — MNIST-format datasets (MNIST, Fashion-MNIST) from IDX files.
//
// Reads <path>/{train,t10k}-{images-idx3,labels-idx1}-ubyte[.gz] at open,
// checks them against each other, and serves samples as 1 x H x W u8 with
// the configured mean and std for the host's normalisation.
#include <algorithm>
#include <array>
#include <string>

#include "dtbench/dataset.h"
#include "dtbench/descriptors.hpp"
#include "idx_file.h"

namespace dtb::dataset::idx {
namespace {

struct Split {
  std::string name;
  IdxArray images;
  IdxArray labels;
};

class IdxDataset {
 public:
  explicit IdxDataset(const dtb_host_t* host) : host_(host) {
    const char* path = nullptr;
    double mean = 0, std = 1;
    int64_t classes = 0;
    check(host->config_get_string(host->ctx, "path", &path), "path");
    check(host->config_get_float(host->ctx, "mean", &mean), "mean");
    check(host->config_get_float(host->ctx, "std", &std), "std");
    check(host->config_get_int(host->ctx, "classes", &classes), "classes");
    mean_ = static_cast<float>(mean);
    std_ = static_cast<float>(std);
    classes_ = static_cast<uint32_t>(classes);
    const std::filesystem::path dir(path);
    splits_[0] = load("train", dir / "train-images-idx3-ubyte", dir / "train-labels-idx1-ubyte");
    splits_[1] = load("test", dir / "t10k-images-idx3-ubyte", dir / "t10k-labels-idx1-ubyte");
    if (splits_[0].images.dims[1] != splits_[1].images.dims[1] ||
        splits_[0].images.dims[2] != splits_[1].images.dims[2]) {
      throw Error(DTB_STATUS_IO_ERROR, dir.string() + ": train and test images differ in size");
    }
  }

  const dtb_host_t* host() const { return host_; }

  void info(dtb_dataset_info_t* out) const {
    out->sample_dtype = DTB_DTYPE_U8;
    out->sample_ndim = 3;
    out->sample_shape[0] = 1;
    out->sample_shape[1] = splits_[0].images.dims[1];
    out->sample_shape[2] = splits_[0].images.dims[2];
    out->num_classes = classes_;
    out->split_count = 2;
    out->mean = &mean_;
    out->std = &std_;
  }

  void split(uint32_t index, dtb_split_info_t* out) const {
    const Split& s = at(index);
    out->name = s.name.c_str();
    out->samples = s.images.dims[0];
  }

  void read(uint32_t index, const uint64_t* indices, uint32_t count, void* out, int32_t* labels) const {
    auto* samples = static_cast<uint8_t*>(out);
    const Split& s = at(index);
    const size_t pixels = size_t{s.images.dims[1]} * s.images.dims[2];
    for (uint32_t i = 0; i < count; ++i) {
      if (indices[i] >= s.images.dims[0]) {
        throw Error(DTB_STATUS_INVALID_ARGUMENT, "idx: sample " + std::to_string(indices[i]) + " of split '" +
                                                     s.name + "' does not exist (" +
                                                     std::to_string(s.images.dims[0]) + " samples)");
      }
      std::copy_n(s.images.data.data() + indices[i] * pixels, pixels, samples + i * pixels);
      labels[i] = s.labels.data[indices[i]];
    }
  }

 private:
  const Split& at(uint32_t index) const {
    if (index >= splits_.size()) throw Error(DTB_STATUS_NOT_FOUND, "idx: splits are 0 (train) and 1 (test)");
    return splits_[index];
  }

  Split load(const std::string& name, const std::filesystem::path& images,
             const std::filesystem::path& labels) const {
    Split s{name, readIdx(images), readIdx(labels)};
    if (s.images.dims.size() != 3)
      throw Error(DTB_STATUS_IO_ERROR, images.string() + ": expected 3 dimensions (N, H, W)");
    if (s.labels.dims.size() != 1)
      throw Error(DTB_STATUS_IO_ERROR, labels.string() + ": expected 1 dimension (N)");
    if (s.labels.dims[0] != s.images.dims[0]) {
      throw Error(DTB_STATUS_IO_ERROR, labels.string() + ": " + std::to_string(s.labels.dims[0]) +
                                           " labels for " + std::to_string(s.images.dims[0]) + " images");
    }
    for (size_t i = 0; i < s.labels.data.size(); ++i) {
      if (s.labels.data[i] >= classes_) {
        throw Error(DTB_STATUS_IO_ERROR, labels.string() + ": label " + std::to_string(s.labels.data[i]) +
                                             " at offset " + std::to_string(8 + i) +
                                             " is not below classes = " + std::to_string(classes_));
      }
    }
    return s;
  }

  const dtb_host_t* host_;
  float mean_ = 0;
  float std_ = 1;
  uint32_t classes_ = 10;
  std::array<Split, 2> splits_;
};

const dtb_param_spec_t kParams[] = {
    {sizeof(dtb_param_spec_t), "path", DTB_PARAM_STRING, "data/mnist",
     "Directory with train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-images-idx3-ubyte, "
     "t10k-labels-idx1-ubyte (each may be .gz)",
     0, 0, 0, nullptr},
    {sizeof(dtb_param_spec_t), "mean", DTB_PARAM_FLOAT, "0.1307",
     "Pixel mean after scaling to [0, 1] (MNIST 0.1307, Fashion-MNIST 0.2860)", 0, 0, 0, nullptr},
    {sizeof(dtb_param_spec_t), "std", DTB_PARAM_FLOAT, "0.3081",
     "Pixel standard deviation after scaling to [0, 1] (MNIST 0.3081, Fashion-MNIST 0.3530)",
     DTB_PARAM_HAS_MIN, 1e-6, 0, nullptr},
    {sizeof(dtb_param_spec_t), "classes", DTB_PARAM_INT, "10",
     "Number of classes; every label must be below it", DTB_PARAM_HAS_MIN | DTB_PARAM_HAS_MAX, 2, 256,
     nullptr},
};

}  // namespace

DTB_EXPORT_DATASET_PLUGIN(datasetDescriptor<IdxDataset>("idx", "0.1.0",
                                                        "MNIST and Fashion-MNIST from IDX files (raw or .gz)",
                                                        kParams))

}  // namespace dtb::dataset::idx
