// descriptors.hpp — optional C++20 helpers that build a model, dataset or
// strategy descriptor from a class, so a C++ plugin writes its logic and one line of
// wiring. Every entry point goes through dtb::guard (no exception crosses the
// boundary). Header-only; links nothing from the host.
//
//   DTB_EXPORT_MODEL_PLUGIN(dtb::modelDescriptor<LeNet>("lenet", "0.1.0", "LeNet ...", kParams))
//
// (the entry point's macro is export.hpp's; the header from the name, the
// version, the one-line description and the parameter array).
#ifndef DTBENCH_DESCRIPTORS_HPP
#define DTBENCH_DESCRIPTORS_HPP

#include "dtbench/dataset.h"
#include "dtbench/export.hpp"
#include "dtbench/model.h"
#include "dtbench/plugin.hpp"
#include "dtbench/strategy.h"

namespace dtb {

// Model must provide:
//   Model(const dtb_host_t*, const dtb_model_setup_t&);
//   const dtb_host_t* host() const;
//   dtb_param_t* const* params() const;   uint32_t paramCount() const;
//   const char* const* layerNames() const; uint32_t layerCount() const;
//   void setTraining(bool);
//   void forward(const dtb_batch_t&, const dtb_step_hooks_t*, dtb_forward_result_t*);
//   void backward(const dtb_step_hooks_t*);
// and may provide (then release_param is set):
//   void releaseParam(uint32_t index, dtb_param_part_t part);
// and (then input_devices is set, since 1.11):
//   static constexpr uint32_t kInputDevices = DTB_MODEL_INPUTS_ON_DEVICE;
// and (then gpu_stream is set, since 1.13; model.h says when to return null):
//   void* gpuStream() const;
template <typename Model>
dtb_model_plugin_v1_t modelDescriptor(dtb_plugin_header_t header) {
  dtb_model_plugin_v1_t d{};
  d.header = header;
  d.create = [](const dtb_host_t* host, const dtb_model_setup_t* setup, void** out) {
    return guard(host, [&] { *out = new Model(host, *setup); });
  };
  d.destroy = [](void* p) { delete static_cast<Model*>(p); };
  d.params = [](void* p, dtb_param_t* const** out, uint32_t* count) {
    *out = static_cast<Model*>(p)->params();
    *count = static_cast<Model*>(p)->paramCount();
    return DTB_STATUS_OK;
  };
  d.layers = [](void* p, const char* const** out, uint32_t* count) {
    *out = static_cast<Model*>(p)->layerNames();
    *count = static_cast<Model*>(p)->layerCount();
    return DTB_STATUS_OK;
  };
  d.set_mode = [](void* p, dtb_mode_t mode) {
    static_cast<Model*>(p)->setTraining(mode == DTB_MODE_TRAIN);
    return DTB_STATUS_OK;
  };
  d.forward = [](void* p, const dtb_batch_t* batch, const dtb_step_hooks_t* hooks,
                 dtb_forward_result_t* out) {
    auto* model = static_cast<Model*>(p);
    return guard(model->host(), [&] { model->forward(*batch, hooks, out); });
  };
  d.backward = [](void* p, const dtb_step_hooks_t* hooks) {
    auto* model = static_cast<Model*>(p);
    return guard(model->host(), [&] { model->backward(hooks); });
  };
  if constexpr (requires(Model & m) { m.releaseParam(uint32_t{0}, DTB_PARAM_PART_VALUE); }) {
    d.release_param = [](void* p, uint32_t index, dtb_param_part_t part) {
      auto* model = static_cast<Model*>(p);
      return guard(model->host(), [&] { model->releaseParam(index, part); });
    };
  }
  if constexpr (requires { Model::kInputDevices; }) d.input_devices = Model::kInputDevices;
  if constexpr (requires(const Model& m) { m.gpuStream(); }) {
    d.gpu_stream = [](void* p) -> void* { return static_cast<const Model*>(p)->gpuStream(); };
  }
  return d;
}

// Dataset must provide:
//   explicit Dataset(const dtb_host_t*);
//   const dtb_host_t* host() const;
//   void info(dtb_dataset_info_t*) const;
//   void split(uint32_t, dtb_split_info_t*) const;
//   void read(uint32_t split, const uint64_t* indices, uint32_t count, void* samples, int32_t* labels) const;
template <typename Dataset>
dtb_dataset_plugin_v1_t datasetDescriptor(dtb_plugin_header_t header) {
  dtb_dataset_plugin_v1_t d{};
  d.header = header;
  d.open = [](const dtb_host_t* host, void** out) { return guard(host, [&] { *out = new Dataset(host); }); };
  d.close = [](void* p) { delete static_cast<Dataset*>(p); };
  d.info = [](void* p, dtb_dataset_info_t* out) {
    auto* dataset = static_cast<Dataset*>(p);
    return guard(dataset->host(), [&] { dataset->info(out); });
  };
  d.split_info = [](void* p, uint32_t split, dtb_split_info_t* out) {
    auto* dataset = static_cast<Dataset*>(p);
    return guard(dataset->host(), [&] { dataset->split(split, out); });
  };
  d.read = [](void* p, uint32_t split, const uint64_t* indices, uint32_t count, void* samples,
              int32_t* labels) {
    auto* dataset = static_cast<Dataset*>(p);
    return guard(dataset->host(), [&] { dataset->read(split, indices, count, samples, labels); });
  };
  return d;
}

// Strategy must provide:
//   Strategy(const dtb_host_t*, const dtb_strategy_setup_t&);
//   const dtb_host_t* host() const;
//   void finishBackward();  void step();
// and may provide (the descriptor leaves an entry NULL when it does not):
//   void beforeForward(const dtb_step_info_t&);
//   void layerBegin(uint32_t layer, dtb_pass_t pass);
//   void gradReady(dtb_param_t*);
//   void memoryReport(dtb_memory_report_t*) const;
//   void beforeEvaluation(uint32_t epoch);  void endEpoch(uint32_t epoch);  (ABI 1.3)
//   uint64_t stateSize() const;  void saveState(void*, uint64_t) const;
//   void loadState(const void*, uint64_t);  (all three, or none)
template <typename Strategy>
dtb_strategy_plugin_v1_t strategyDescriptor(dtb_plugin_header_t header) {
  dtb_strategy_plugin_v1_t d{};
  d.header = header;
  d.create = [](const dtb_host_t* host, const dtb_strategy_setup_t* setup, void** out) {
    return guard(host, [&] { *out = new Strategy(host, *setup); });
  };
  d.destroy = [](void* p) { delete static_cast<Strategy*>(p); };
  if constexpr (requires(Strategy & s, const dtb_step_info_t& i) { s.beforeForward(i); }) {
    d.before_forward = [](void* p, const dtb_step_info_t* step) {
      auto* s = static_cast<Strategy*>(p);
      return guard(s->host(), [&] { s->beforeForward(*step); });
    };
  }
  if constexpr (requires(Strategy & s) { s.layerBegin(0u, DTB_PASS_FORWARD); }) {
    d.layer_begin = [](void* p, uint32_t layer, dtb_pass_t pass) {
      auto* s = static_cast<Strategy*>(p);
      return guard(s->host(), [&] { s->layerBegin(layer, pass); });
    };
  }
  if constexpr (requires(Strategy & s, dtb_param_t * param) { s.gradReady(param); }) {
    d.grad_ready = [](void* p, dtb_param_t* param) {
      auto* s = static_cast<Strategy*>(p);
      return guard(s->host(), [&] { s->gradReady(param); });
    };
  }
  d.finish_backward = [](void* p) {
    auto* s = static_cast<Strategy*>(p);
    return guard(s->host(), [&] { s->finishBackward(); });
  };
  d.step = [](void* p) {
    auto* s = static_cast<Strategy*>(p);
    return guard(s->host(), [&] { s->step(); });
  };
  if constexpr (requires(const Strategy& s, dtb_memory_report_t* out) { s.memoryReport(out); }) {
    d.memory_report = [](void* p, dtb_memory_report_t* out) {
      auto* s = static_cast<Strategy*>(p);
      return guard(s->host(), [&] { s->memoryReport(out); });
    };
  }
  if constexpr (requires(Strategy & s, void* out, const void* in) {
                  s.stateSize();
                  s.saveState(out, uint64_t{0});
                  s.loadState(in, uint64_t{0});
                }) {
    d.state_size = [](void* p, uint64_t* out) {
      auto* s = static_cast<Strategy*>(p);
      return guard(s->host(), [&] { *out = s->stateSize(); });
    };
    d.state_save = [](void* p, void* buffer, uint64_t bytes) {
      auto* s = static_cast<Strategy*>(p);
      return guard(s->host(), [&] { s->saveState(buffer, bytes); });
    };
    d.state_load = [](void* p, const void* buffer, uint64_t bytes) {
      auto* s = static_cast<Strategy*>(p);
      return guard(s->host(), [&] { s->loadState(buffer, bytes); });
    };
  }
  if constexpr (requires(Strategy & s) { s.beforeEvaluation(0u); }) {
    d.before_evaluation = [](void* p, uint32_t epoch) {
      auto* s = static_cast<Strategy*>(p);
      return guard(s->host(), [&] { s->beforeEvaluation(epoch); });
    };
  }
  if constexpr (requires(Strategy & s) { s.endEpoch(0u); }) {
    d.end_epoch = [](void* p, uint32_t epoch) {
      auto* s = static_cast<Strategy*>(p);
      return guard(s->host(), [&] { s->endEpoch(epoch); });
    };
  }
  return d;
}

// The same, with the header made from the plugin's name, version, one-line
// description and parameters (pluginHeader).
template <typename Model>
dtb_model_plugin_v1_t modelDescriptor(const char* name, const char* version, const char* description,
                                      std::span<const dtb_param_spec_t> params = {}) {
  return modelDescriptor<Model>(pluginHeader<dtb_model_plugin_v1_t>(name, version, description, params));
}

template <typename Dataset>
dtb_dataset_plugin_v1_t datasetDescriptor(const char* name, const char* version, const char* description,
                                          std::span<const dtb_param_spec_t> params = {}) {
  return datasetDescriptor<Dataset>(
      pluginHeader<dtb_dataset_plugin_v1_t>(name, version, description, params));
}

template <typename Strategy>
dtb_strategy_plugin_v1_t strategyDescriptor(const char* name, const char* version, const char* description,
                                            std::span<const dtb_param_spec_t> params = {}) {
  return strategyDescriptor<Strategy>(
      pluginHeader<dtb_strategy_plugin_v1_t>(name, version, description, params));
}

}  // namespace dtb

#endif  // DTBENCH_DESCRIPTORS_HPP
