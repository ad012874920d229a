#include "train/training_step.h"

#include <chrono>

namespace dtb::core {
namespace {

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

TrainingStep::TrainingStep(PluginInstance& model, PluginInstance& strategy, Optimizer& optimizer)
    : model_(model),
      strategy_(strategy),
      optimizer_(optimizer),
      modelApi_(model.plugin().descriptor<dtb_model_plugin_v1_t>()),
      strategyApi_(strategy.plugin().descriptor<dtb_strategy_plugin_v1_t>()) {
  hooks_.struct_size = sizeof(hooks_);
  hooks_.user = this;
  hooks_.layer_begin = strategyApi_.layer_begin ? &layerBegin : nullptr;
  hooks_.grad_ready = strategyApi_.grad_ready ? &gradReady : nullptr;
}

dtb_status_t TrainingStep::layerBegin(void* self, uint32_t layer, dtb_pass_t pass) {
  auto* step = static_cast<TrainingStep*>(self);
  const dtb_status_t status = step->strategyApi_.layer_begin(step->strategy_.context(), layer, pass);
  if (status != DTB_STATUS_OK && !step->failedHook_) step->failedHook_ = "layer_begin";
  return status;
}

dtb_status_t TrainingStep::gradReady(void* self, dtb_param_t* param) {
  auto* step = static_cast<TrainingStep*>(self);
  const dtb_status_t status = step->strategyApi_.grad_ready(step->strategy_.context(), param);
  if (status != DTB_STATUS_OK && !step->failedHook_) step->failedHook_ = "grad_ready";
  return status;
}

void TrainingStep::checkModel(const char* function, dtb_status_t status) {
  if (const char* hook = failedHook_) {
    failedHook_ = nullptr;
    strategy_.check(hook, status == DTB_STATUS_OK ? DTB_STATUS_INTERNAL : status);
  }
  model_.check(function, status);
}

StepResult TrainingStep::run(const dtb_batch_t& batch, const dtb_step_info_t& info) {
  StepResult result;
  if (strategyApi_.before_forward) {
    strategy_.check("before_forward", strategyApi_.before_forward(strategy_.context(), &info));
  }
  auto start = std::chrono::steady_clock::now();
  dtb_forward_result_t forward{};
  forward.struct_size = sizeof(forward);
  checkModel("forward", modelApi_.forward(model_.context(), &batch, &hooks_, &forward));
  result.loss = forward.loss;
  result.correct = forward.correct;
  result.timing.forwardS = secondsSince(start);

  start = std::chrono::steady_clock::now();
  checkModel("backward", modelApi_.backward(model_.context(), &hooks_));
  result.timing.backwardS = secondsSince(start);

  start = std::chrono::steady_clock::now();
  strategy_.check("finish_backward", strategyApi_.finish_backward(strategy_.context()));
  result.timing.commExposedS = secondsSince(start);

  if (info.micro_step + 1 == info.accumulation_steps) {
    start = std::chrono::steady_clock::now();
    optimizer_.beginStep();
    strategy_.check("step", strategyApi_.step(strategy_.context()));
    result.timing.optimizerS = secondsSince(start);
  }
  return result;
}

}  // namespace dtb::core
