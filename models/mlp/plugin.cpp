// The mlp model plugin: the C ABI over Mlp.
#include "dtbench/plugin.hpp"
#include "mlp.h"

namespace dtb::model::mlp {
namespace {

Mlp* self(void* p) { return static_cast<Mlp*>(p); }

const dtb_param_spec_t kParams[] = {
    {sizeof(dtb_param_spec_t), "widths", DTB_PARAM_INT_LIST, "[512, 256]", "Units of each hidden layer, in order",
     DTB_PARAM_HAS_MIN, 1, 0, nullptr},
    {sizeof(dtb_param_spec_t), "dropout", DTB_PARAM_FLOAT, "0.0", "Drop probability after each hidden layer",
     DTB_PARAM_HAS_MIN | DTB_PARAM_HAS_MAX, 0, 0.99, nullptr},
};

dtb_model_plugin_v1_t makeDescriptor() {
  dtb_model_plugin_v1_t d{};
  d.header = {sizeof(dtb_model_plugin_v1_t), DTB_ABI_VERSION, DTB_PLUGIN_MODEL, "mlp", "0.1.0",
              "Multilayer perceptron (fully connected + ReLU), on oneDNN", kParams, 2};
  d.create = [](const dtb_host_t* host, const dtb_model_setup_t* setup, void** out) {
    return guard(host, [&] { *out = new Mlp(host, *setup); });
  };
  d.destroy = [](void* p) { delete self(p); };
  d.params = [](void* p, dtb_param_t* const** out, uint32_t* count) {
    *out = self(p)->params();
    *count = self(p)->paramCount();
    return DTB_STATUS_OK;
  };
  d.layers = [](void* p, const char* const** out, uint32_t* count) {
    *out = self(p)->layerNames().data();
    *count = static_cast<uint32_t>(self(p)->layerNames().size());
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
}  // namespace dtb::model::mlp

extern "C" const dtb_model_plugin_v1_t* dtb_model_plugin_v1(void) { return &dtb::model::mlp::kDescriptor; }
