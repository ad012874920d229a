#include "parameter.h"

#include <random>

namespace dtb::nn {

Parameter::Parameter(std::string name, std::vector<int64_t> shape, uint32_t index, uint32_t layer)
    : name_(std::move(name)), shape_(std::move(shape)) {
  uint64_t count = 1;
  for (int64_t d : shape_) count *= static_cast<uint64_t>(d);
  value_.assign(count, 0.0f);
  grad_.assign(count, 0.0f);
  view_.struct_size = sizeof(view_);
  view_.index = index;
  view_.name = name_.c_str();
  view_.layer = layer;
  for (dtb_tensor_t* t : {&view_.value, &view_.grad}) {
    t->count = count;
    t->dtype = DTB_DTYPE_F32;
    t->device = {DTB_DEVICE_HOST, 0};
    t->ndim = static_cast<int32_t>(shape_.size());
    for (size_t i = 0; i < shape_.size(); ++i) t->shape[i] = shape_[i];
  }
  view_.value.data = value_.data();
  view_.grad.data = grad_.data();
}

void Parameter::initUniform(double bound, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uniform(-bound, bound);
  for (float& v : value_) v = static_cast<float>(uniform(rng));
}

void Parameter::initNormal(double std, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, std);
  for (float& v : value_) v = static_cast<float>(normal(rng));
}

void Parameter::fill(float value) {
  for (float& v : value_) v = value;
}

}  // namespace dtb::nn
