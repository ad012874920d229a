// A classifier made of Modules, with the cross-entropy loss on top: what the
// ResNet and MobileNetV2 plugins share. A model class derives from it, builds
// body() from registry() in its constructor, and gets everything
// dtb::modelDescriptor needs.
#pragma once

#include <memory>
#include <vector>

#include "dnnl_context.h"
#include "dtbench/model.h"
#include "parameter_registry.h"
#include "sequential.h"

namespace dtb::nn {

class Network {
 public:
  Network(const dtb_host_t* host, const dtb_model_setup_t& setup);

  const dtb_host_t* host() const { return host_; }
  dtb_param_t* const* params() const { return registry_.views(); }
  uint32_t paramCount() const { return registry_.paramCount(); }
  const char* const* layerNames() const { return registry_.layerNames(); }
  uint32_t layerCount() const { return registry_.layerCount(); }
  void releaseParam(uint32_t index, dtb_param_part_t part) { registry_.releaseParam(index, part); }
  void setTraining(bool training) { training_ = training; }
  void forward(const dtb_batch_t& batch, const dtb_step_hooks_t* hooks, dtb_forward_result_t* out);
  void backward(const dtb_step_hooks_t* hooks);

 protected:
  ParameterRegistry& registry() { return registry_; }
  DnnlContext& dnnl() { return dnnl_; }
  Sequential& body() { return body_; }
  // Sample shape [c, h, w] the model was built for.
  const Shape& sampleShape() const { return sample_; }
  uint32_t classes() const { return classes_; }
  // The plugin's "stem" parameter resolved: cifar, imagenet, or auto (the
  // CIFAR stem for samples up to 64 pixels high).
  bool cifarStem() const;
  // Fails unless the body maps a sample to `classes` outputs.
  void checkOutputShape(const char* model) const;

 private:
  const dtb_host_t* host_;
  ParameterRegistry registry_;
  DnnlContext dnnl_;
  Sequential body_;
  Shape sample_;
  uint32_t classes_;
  double labelSmoothing_;
  bool training_ = true;
  // Of the last forward, for backward.
  int64_t n_ = 0;
  std::vector<float> input_, probabilities_;
  std::vector<int32_t> labels_;
};

}  // namespace dtb::nn
