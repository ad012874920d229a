// A classifier made of Modules, with the cross-entropy loss on top: what the
// ResNet, MobileNetV2, LeNet and MLP plugins share. A model class derives from it, builds
// body() from layers() and registry() in its constructor, ends it with
// finishBuilding(), and gets everything dtb::modelDescriptor needs. The
// setup's device chooses the layers: oneDNN on the host, cuDNN and cuBLAS
// on a GPU (then the plugin's `cudnn_benchmark` and `allow_tf32`, when it
// declares them, pass to the CUDA layers; network_params.h declares them).
#pragma once

#include <memory>
#include <vector>

#include "dtbench/model.h"
#include "layers.h"
#include "parameter_registry.h"
#include "sequential.h"

namespace dtb::nn {

// Whether a GPU network's layers call the hooks with their work still
// queued: under a host that orders its streams after the model's (ABI 1.13
// or later), unless the plugin's `wait_for_gradients` says to wait.
bool handsOffQueued(const dtb_host_t* host);

class Network {
 public:
  // What a sample is to the network: an image [channels, height, width], or
  // any tensor taken flat ([elements, 1, 1]: an MLP's input).
  enum class Samples { kImages, kFlat };
  Network(const dtb_host_t* host, const dtb_model_setup_t& setup, Samples samples = Samples::kImages);

  const dtb_host_t* host() const { return host_; }
  dtb_param_t* const* params() const { return registry_.views(); }
  uint32_t paramCount() const { return registry_.paramCount(); }
  const char* const* layerNames() const { return registry_.layerNames(); }
  uint32_t layerCount() const { return registry_.layerCount(); }
  void releaseParam(uint32_t index, dtb_param_part_t part) { registry_.releaseParam(index, part); }
  // A network built for a GPU takes its batches' inputs in that GPU's
  // memory too (the host's copy-stream prefetch, model.h).
  static constexpr uint32_t kInputDevices = DTB_MODEL_INPUTS_ON_DEVICE;
  // The stream a network on a GPU computes on, where it hands its work over
  // queued (model.h's gpu_stream); null on the host or where it waits.
  void* gpuStream() const { return layers_->handOffStream(); }
  void setTraining(bool training) { training_ = training; }
  void forward(const dtb_batch_t& batch, const dtb_step_hooks_t* hooks, dtb_forward_result_t* out);
  void backward(const dtb_step_hooks_t* hooks);

 protected:
  ParameterRegistry& registry() { return registry_; }
  Layers& layers() { return *layers_; }
  Sequential& body() { return body_; }
  // Sample shape [c, h, w] the model was built for.
  const Shape& sampleShape() const { return sample_; }
  uint32_t classes() const { return classes_; }
  // The plugin's "stem" parameter resolved: cifar, imagenet, or auto (the
  // CIFAR stem for samples up to 64 pixels high).
  bool cifarStem() const;
  // Fails unless the body maps a sample to `classes` outputs; then moves
  // the parameters where the layers compute.
  void finishBuilding(const char* model);

 private:
  const dtb_host_t* host_;
  ParameterRegistry registry_;
  std::unique_ptr<Layers> layers_;
  Sequential body_;
  std::unique_ptr<CrossEntropy> loss_;
  Shape sample_;
  uint32_t classes_;
  double labelSmoothing_;
  bool training_ = true;
};

}  // namespace dtb::nn
