#include "network.h"

#include <string>

#include "dtbench/plugin.hpp"
#include "network_params.h"

namespace dtb::nn {
namespace {

// A boolean parameter of the plugin, or `fallback` where it declares none
// (any other failure is the host's error, raised).
bool optionalBool(const dtb_host_t* host, const char* key, bool fallback) {
  int32_t value = 0;
  const dtb_status_t status = host->config_get_bool(host->ctx, key, &value);
  if (status == DTB_STATUS_NOT_FOUND) return fallback;
  check(status, key);
  return value != 0;
}

std::unique_ptr<Layers> layersFor(const dtb_host_t* host, const dtb_device_t& device) {
  if (device.type == DTB_DEVICE_HOST) return makeCpuLayers();
  if (device.type != DTB_DEVICE_CUDA)
    throw Error(DTB_STATUS_UNSUPPORTED,
                "models compute on the host or a CUDA GPU; got device type " + std::to_string(device.type));
  CudaLayerOptions options;
  options.device = device.index;
  options.host = host;
  options.benchmark = optionalBool(host, kCudnnBenchmark.name(), options.benchmark);
  options.allowTf32 = optionalBool(host, kAllowTf32.name(), options.allowTf32);
  options.queuedHandOff = handsOffQueued(host);
  return makeCudaLayers(options);
}

}  // namespace

bool handsOffQueued(const dtb_host_t* host) {
  return host->abi_version >= DTB_ABI_MAKE_VERSION(1, 13) &&
         !optionalBool(host, kWaitForGradients.name(), false);
}

Network::Network(const dtb_host_t* host, const dtb_model_setup_t& setup, Samples samples)
    : host_(host),
      registry_(setup.seed),
      layers_(layersFor(host, setup.device)),
      classes_(setup.num_classes),
      labelSmoothing_(setup.label_smoothing) {
  if (samples == Samples::kFlat) {
    int64_t elements = 1;
    for (int32_t d = 0; d < setup.input_ndim; ++d) elements *= setup.input_shape[d];
    sample_ = {1, elements, 1, 1};
    return;
  }
  if (setup.input_ndim != 3) {
    throw Error(DTB_STATUS_INVALID_ARGUMENT, "expects image samples [channels, height, width]; got " +
                                                 std::to_string(setup.input_ndim) + " dimensions");
  }
  sample_ = {1, setup.input_shape[0], setup.input_shape[1], setup.input_shape[2]};
}

bool Network::cifarStem() const {
  const std::string name = kStem.get(host_);
  return name == "cifar" || (name == "auto" && sample_.h <= 64);
}

void Network::finishBuilding(const char* model) {
  const Shape out = body_.outputShape(sample_);
  if (out.c != static_cast<int64_t>(classes_) || out.h != 1 || out.w != 1) {
    throw Error(DTB_STATUS_INVALID_ARGUMENT, std::string(model) + ": samples of " +
                                                 std::to_string(sample_.c) + "x" + std::to_string(sample_.h) +
                                                 "x" + std::to_string(sample_.w) +
                                                 " are too small for this network");
  }
  layers_->place(registry_);
  loss_ = layers_->crossEntropy(classes_, labelSmoothing_);
}

void Network::forward(const dtb_batch_t& batch, const dtb_step_hooks_t* hooks, dtb_forward_result_t* out) {
  Shape in = sample_;
  in.n = batch.size;
  const float* x =
      layers_->input(static_cast<const float*>(batch.inputs.data), batch.inputs.device, in.count());
  const float* logits = body_.forward(x, in, Pass(hooks, training_));
  const LossResult loss = loss_->forward(logits, static_cast<const int32_t*>(batch.labels.data), in.n);
  out->loss = loss.loss;
  out->correct = loss.correct;
}

void Network::backward(const dtb_step_hooks_t* hooks) {
  body_.backward(loss_->backward(), Pass(hooks, training_), false);
  // The gradients are final when backward returns, on every device.
  layers_->synchronize();
}

}  // namespace dtb::nn
