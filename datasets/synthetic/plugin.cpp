// synthetic — deterministic generated data of any shape and class count, for
// benchmarks that should not wait on I/O (ResNet on 3x224x224, say) and for
// tests. Nothing is stored: sample i of a split is computed from (seed,
// split, i) alone, so reads are thread-safe and identical on every rank.
//
// Label = hash(seed, split, i) mod classes. Element e of a sample of class c
// is separation x s(c, e) + noise x n, with s(c, e) = +1 or -1 from a hash
// and n standard normal: the classes are learnable, more easily the larger
// separation / noise.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "dtbench/dataset.h"
#include "dtbench/descriptors.hpp"

namespace dtb::dataset::synthetic {
namespace {

// SplitMix64: a fast, well-mixed 64-bit hash/generator (Steele et al.).
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

double uniform(uint64_t& state) {  // in (0, 1)
  state = mix(state);
  return (static_cast<double>(state >> 11) + 0.5) / 9007199254740992.0;
}

class SyntheticDataset {
 public:
  explicit SyntheticDataset(const dtb_host_t* host) : host_(host) {
    int64_t dims[DTB_MAX_DIMS];
    uint64_t ndim = 0;
    check(host->config_get_int_list(host->ctx, "shape", dims, DTB_MAX_DIMS, &ndim), "shape");
    if (ndim == 0 || ndim > DTB_MAX_DIMS) {
      throw Error(DTB_STATUS_INVALID_ARGUMENT, "synthetic: shape needs 1 to 8 dimensions, e.g. [3, 32, 32]");
    }
    shape_.assign(dims, dims + ndim);
    for (int64_t d : shape_) elements_ *= static_cast<uint64_t>(d);
    int64_t classes = 0, train = 0, test = 0, seed = 0;
    check(host->config_get_int(host->ctx, "classes", &classes), "classes");
    check(host->config_get_int(host->ctx, "train_samples", &train), "train_samples");
    check(host->config_get_int(host->ctx, "test_samples", &test), "test_samples");
    check(host->config_get_int(host->ctx, "seed", &seed), "seed");
    check(host->config_get_float(host->ctx, "separation", &separation_), "separation");
    check(host->config_get_float(host->ctx, "noise", &noise_), "noise");
    classes_ = static_cast<uint32_t>(classes);
    samples_[0] = static_cast<uint64_t>(train);
    samples_[1] = static_cast<uint64_t>(test);
    seed_ = static_cast<uint64_t>(seed);
  }

  const dtb_host_t* host() const { return host_; }

  void info(dtb_dataset_info_t* out) const {
    out->sample_dtype = DTB_DTYPE_F32;
    out->sample_ndim = static_cast<int32_t>(shape_.size());
    for (size_t d = 0; d < shape_.size(); ++d) out->sample_shape[d] = shape_[d];
    out->num_classes = classes_;
    out->split_count = 2;
    out->mean = nullptr;  // already centred
    out->std = nullptr;
  }

  void split(uint32_t index, dtb_split_info_t* out) const {
    if (index > 1) throw Error(DTB_STATUS_NOT_FOUND, "synthetic: splits are 0 (train) and 1 (test)");
    out->name = index == 0 ? "train" : "test";
    out->samples = samples_[index];
  }

  void read(uint32_t split, const uint64_t* indices, uint32_t count, void* out, int32_t* labels) const {
    auto* samples = static_cast<float*>(out);
    if (split > 1) throw Error(DTB_STATUS_NOT_FOUND, "synthetic: splits are 0 (train) and 1 (test)");
    for (uint32_t i = 0; i < count; ++i) {
      if (indices[i] >= samples_[split]) {
        throw Error(DTB_STATUS_INVALID_ARGUMENT,
                    "synthetic: sample " + std::to_string(indices[i]) + " does not exist");
      }
      const uint64_t key = mix(seed_ ^ mix(split + 1) ^ mix(indices[i] * 0x632be59bd9b4e019ULL));
      const uint32_t label = static_cast<uint32_t>(key % classes_);
      labels[i] = static_cast<int32_t>(label);
      fill(samples + i * elements_, label, key);
    }
  }

 private:
  void fill(float* x, uint32_t label, uint64_t key) const {
    uint64_t state = key;
    const uint64_t classKey = mix(seed_ ^ (0xc1a55ULL + label));
    for (uint64_t e = 0; e < elements_; e += 2) {
      // Box-Muller: two normals per two uniforms.
      const double r = std::sqrt(-2.0 * std::log(uniform(state)));
      const double angle = 2.0 * 3.14159265358979323846 * uniform(state);
      const double normals[2] = {r * std::cos(angle), r * std::sin(angle)};
      for (uint64_t k = 0; k < 2 && e + k < elements_; ++k) {
        const double sign = (mix(classKey + e + k) & 1) ? 1.0 : -1.0;
        x[e + k] = static_cast<float>(separation_ * sign + noise_ * normals[k]);
      }
    }
  }

  const dtb_host_t* host_;
  std::vector<int64_t> shape_;
  uint64_t elements_ = 1;
  uint32_t classes_ = 10;
  uint64_t samples_[2] = {0, 0};
  uint64_t seed_ = 0;
  double separation_ = 0;
  double noise_ = 1;
};

const dtb_param_spec_t kParams[] = {
    {sizeof(dtb_param_spec_t), "shape", DTB_PARAM_INT_LIST, "[3, 32, 32]",
     "Sample shape (C, H, W for images)", DTB_PARAM_HAS_MIN, 1, 0, nullptr},
    {sizeof(dtb_param_spec_t), "classes", DTB_PARAM_INT, "10", "Number of classes",
     DTB_PARAM_HAS_MIN | DTB_PARAM_HAS_MAX, 2, 100000, nullptr},
    {sizeof(dtb_param_spec_t), "train_samples", DTB_PARAM_INT, "10000", "Samples in the train split",
     DTB_PARAM_HAS_MIN, 1, 0, nullptr},
    {sizeof(dtb_param_spec_t), "test_samples", DTB_PARAM_INT, "2000", "Samples in the test split",
     DTB_PARAM_HAS_MIN, 1, 0, nullptr},
    {sizeof(dtb_param_spec_t), "seed", DTB_PARAM_INT, "0", "Seed of the data (not of the run)",
     DTB_PARAM_HAS_MIN, 0, 0, nullptr},
    {sizeof(dtb_param_spec_t), "separation", DTB_PARAM_FLOAT, "0.1",
     "Distance of each class's pattern from zero, per element", DTB_PARAM_HAS_MIN, 0, 0, nullptr},
    {sizeof(dtb_param_spec_t), "noise", DTB_PARAM_FLOAT, "1.0", "Standard deviation of the per-element noise",
     DTB_PARAM_HAS_MIN, 0, 0, nullptr},
};

}  // namespace

DTB_EXPORT_DATASET_PLUGIN(datasetDescriptor<SyntheticDataset>(
    "synthetic", "0.1.0", "Deterministic generated samples of any shape and class count", kParams))

}  // namespace dtb::dataset::synthetic
