#include "parameter.h"

#include <random>
#include <string>

#include "dtbench/plugin.hpp"

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

void Parameter::adopt(dtb_device_t device, std::shared_ptr<void> value, std::shared_ptr<void> grad) {
  view_.value.data = value.get();
  view_.grad.data = grad.get();
  view_.value.device = view_.grad.device = device;
  adopted_[0] = std::move(value);
  adopted_[1] = std::move(grad);
  std::vector<float>().swap(value_);
  std::vector<float>().swap(grad_);
}

void Parameter::release(dtb_param_part_t part) {
  const bool grad = part == DTB_PARAM_PART_GRAD;
  std::vector<float>& storage = grad ? grad_ : value_;
  std::shared_ptr<void>& adopted = adopted_[grad ? 1 : 0];
  void*& data = grad ? view_.grad.data : view_.value.data;
  if (data == storage.data() || data == adopted.get()) data = nullptr;
  std::vector<float>().swap(storage);  // gives the memory back, unlike clear()
  adopted.reset();
}

void releaseParam(const std::vector<std::unique_ptr<Parameter>>& params, uint32_t index,
                  dtb_param_part_t part) {
  if (index >= params.size())
    throw Error(DTB_STATUS_INVALID_ARGUMENT, "release_param: no parameter " + std::to_string(index) +
                                                 " (the model has " + std::to_string(params.size()) + ")");
  if (part != DTB_PARAM_PART_VALUE && part != DTB_PARAM_PART_GRAD)
    throw Error(DTB_STATUS_INVALID_ARGUMENT, "release_param: unknown part " + std::to_string(part));
  params[index]->release(part);
}

}  // namespace dtb::nn
