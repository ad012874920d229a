// cifar10 — CIFAR-10 from its binary distribution (cifar-10-batches-bin):
// data_batch_1.bin .. data_batch_5.bin (train) and test_batch.bin, each a
// run of 3073-byte records: one label byte, then 32x32 red, green and blue
// planes. Samples are 3 x 32 x 32 u8, normalised with the usual per-channel
// statistics of the training set.
#include <array>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "dtbench/bounded_file.hpp"
#include "dtbench/dataset.h"
#include "dtbench/descriptors.hpp"

namespace dtb::dataset::cifar10 {
namespace {

constexpr size_t kPixels = 3 * 32 * 32;
constexpr size_t kRecord = 1 + kPixels;
// A batch of the distribution is 10,000 records (30.7 MB); a hundred times that is no batch.
constexpr uint64_t kMaxBatchFileBytes = uint64_t{100} * 10000 * kRecord;
constexpr std::array<float, 3> kMean = {0.4914f, 0.4822f, 0.4465f};
constexpr std::array<float, 3> kStd = {0.2470f, 0.2435f, 0.2616f};

struct Split {
  std::string name;
  std::vector<uint8_t> records;  // whole files, concatenated
  uint64_t count() const { return records.size() / kRecord; }
};

// Appends `file`'s records to `split`, checking its size and labels.
void append(Split& split, const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) {
    throw Error(DTB_STATUS_IO_ERROR, file.string() +
                                         ": no such file (the CIFAR-10 binary version, "
                                         "cifar-10-batches-bin, is expected in `path`)");
  }
  std::string bytes;
  try {
    // A regular file of a bounded size: a FIFO or /dev/zero is named, not read for ever.
    BoundedFile bounded(file, kMaxBatchFileBytes, "CIFAR-10 batch file");
    bytes = bounded.readAll();
  } catch (const BoundedFile::Error& e) {
    throw Error(DTB_STATUS_IO_ERROR, e.what());
  }
  if (bytes.empty() || bytes.size() % kRecord != 0) {
    throw Error(DTB_STATUS_IO_ERROR,
                file.string() + ": " + std::to_string(bytes.size()) +
                    " bytes is not a whole number of 3073-byte records (truncated after offset " +
                    std::to_string(bytes.size() / kRecord * kRecord) + "?)");
  }
  for (size_t offset = 0; offset < bytes.size(); offset += kRecord) {
    if (static_cast<uint8_t>(bytes[offset]) > 9) {
      throw Error(DTB_STATUS_IO_ERROR,
                  file.string() + ": label " + std::to_string(static_cast<uint8_t>(bytes[offset])) +
                      " at offset " + std::to_string(offset) + " is not a CIFAR-10 class (0-9)");
    }
  }
  split.records.insert(split.records.end(), bytes.begin(), bytes.end());
}

class Cifar10 {
 public:
  explicit Cifar10(const dtb_host_t* host) : host_(host) {
    const char* path = nullptr;
    int32_t normalize = 1;
    check(host->config_get_string(host->ctx, "path", &path), "path");
    check(host->config_get_bool(host->ctx, "normalize", &normalize), "normalize");
    normalize_ = normalize != 0;
    const std::filesystem::path dir(path);
    splits_[0].name = "train";
    for (int i = 1; i <= 5; ++i) append(splits_[0], dir / ("data_batch_" + std::to_string(i) + ".bin"));
    splits_[1].name = "test";
    append(splits_[1], dir / "test_batch.bin");
  }

  const dtb_host_t* host() const { return host_; }

  void info(dtb_dataset_info_t* out) const {
    out->sample_dtype = DTB_DTYPE_U8;
    out->sample_ndim = 3;
    out->sample_shape[0] = 3;
    out->sample_shape[1] = 32;
    out->sample_shape[2] = 32;
    out->num_classes = 10;
    out->split_count = 2;
    out->mean = normalize_ ? kMean.data() : nullptr;
    out->std = normalize_ ? kStd.data() : nullptr;
  }

  void split(uint32_t index, dtb_split_info_t* out) const {
    const Split& s = at(index);
    out->name = s.name.c_str();
    out->samples = s.count();
  }

  void read(uint32_t index, const uint64_t* indices, uint32_t count, void* out, int32_t* labels) const {
    auto* samples = static_cast<uint8_t*>(out);
    const Split& s = at(index);
    for (uint32_t i = 0; i < count; ++i) {
      if (indices[i] >= s.count()) {
        throw Error(DTB_STATUS_INVALID_ARGUMENT, "cifar10: sample " + std::to_string(indices[i]) + " of '" +
                                                     s.name + "' does not exist (" +
                                                     std::to_string(s.count()) + ")");
      }
      const uint8_t* record = s.records.data() + indices[i] * kRecord;
      labels[i] = record[0];
      std::memcpy(samples + i * kPixels, record + 1, kPixels);
    }
  }

 private:
  const Split& at(uint32_t index) const {
    if (index > 1) throw Error(DTB_STATUS_NOT_FOUND, "cifar10: splits are 0 (train) and 1 (test)");
    return splits_[index];
  }

  const dtb_host_t* host_;
  bool normalize_ = true;
  std::array<Split, 2> splits_;
};

const dtb_param_spec_t kParams[] = {
    {sizeof(dtb_param_spec_t), "path", DTB_PARAM_STRING, "data/cifar-10-batches-bin",
     "Directory with data_batch_1.bin .. data_batch_5.bin and test_batch.bin", 0, 0, 0, nullptr},
    {sizeof(dtb_param_spec_t), "normalize", DTB_PARAM_BOOL, "true",
     "Normalise with the training set's per-channel mean (0.4914, 0.4822, 0.4465) and std "
     "(0.2470, 0.2435, 0.2616)",
     0, 0, 0, nullptr},
};

}  // namespace

DTB_EXPORT_DATASET_PLUGIN(datasetDescriptor<Cifar10>("cifar10", "0.1.0", "CIFAR-10 from its binary batches",
                                                     kParams))

}  // namespace dtb::dataset::cifar10
