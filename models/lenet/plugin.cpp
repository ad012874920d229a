// The lenet model plugin: the C ABI over LeNet.
#include "dtbench/plugin.hpp"
#include "lenet.h"

namespace dtb::model::lenet {
namespace {

LeNet* self(void* p) { return static_cast<LeNet*>(p); }

const char* const kLayers[] = {"conv1", "conv2", "fc1", "fc2"};

const dtb_param_spec_t kParams[] = {
    {sizeof(dtb_param_spec_t), "dropout", DTB_PARAM_FLOAT, "0.5",
     "Drop probability of conv2's Dropout2d and of the dropout after fc1 (0 turns both off)",
     DTB_PARAM_HAS_MIN | DTB_PARAM_HAS_MAX, 0, 0.99, nullptr},
};

dtb_model_plugin_v1_t makeDescriptor() {
  dtb_model_plugin_v1_t d{};
  d.header = {sizeof(dtb_model_plugin_v1_t), DTB_ABI_VERSION, DTB_PLUGIN_MODEL, "lenet", "0.1.0",
              "LeNet of PyTorch's MNIST example (21,840 parameters), on oneDNN", kParams, 1};
  d.create = [](const dtb_host_t* host, const dtb_model_setup_t* setup, void** out) {
    return guard(host, [&] { *out = new LeNet(host, *setup); });
  };
  d.destroy = [](void* p) { delete self(p); };
  d.params = [](void* p, dtb_param_t* const** out, uint32_t* count) {
    *out = self(p)->params();
    *count = self(p)->paramCount();
    return DTB_STATUS_OK;
  };
  d.layers = [](void*, const char* const** out, uint32_t* count) {
    *out = kLayers;
    *count = 4;
    return DTB_STATUS_OK;
  };
  d.set_mode = [](void* p, dtb_mode_t mode) {
    self(p)->setTraining(mode == DTB_MODE_TRAIN);
    return DTB_STATUS_OK;
  };
  d.forward = [](void* p, const dtb_batch_t* batch, const dtb_step_hooks_t* hooks, dtb_forward_result_t* out) {
    return guard(self(p)->host(), [&] { self(p)->forward(*batch, hooks, out); });
  };
  d.backward = [](void* p, const dtb_step_hooks_t* hooks) {
    return guard(self(p)->host(), [&] { self(p)->backward(hooks); });
  };
  return d;
}

const dtb_model_plugin_v1_t kDescriptor = makeDescriptor();

}  // namespace
}  // namespace dtb::model::lenet

extern "C" const dtb_model_plugin_v1_t* dtb_model_plugin_v1(void) { return &dtb::model::lenet::kDescriptor; }
