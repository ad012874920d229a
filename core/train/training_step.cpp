#include "train/training_step.h"

#include <algorithm>
#include <chrono>
#include <tuple>

#include "cuda/gpu_tensor_ops.h"

namespace dtb::core {
namespace {

// Times the phases of one step back to back and splits each into its own
// time and the training thread's communication waits inside it.
class PhaseClock {
 public:
  explicit PhaseClock(const Communicator* comm) : comm_(comm) { lap(); }

  // The seconds since the last lap, and the waits among them (never more
  // than the lap: a span a strategy declared too long is cut to it).
  std::pair<double, double> lap() {
    const auto now = std::chrono::steady_clock::now();
    const double waited = comm_ ? comm_->trainingWaitSeconds() : 0;
    const double seconds = std::chrono::duration<double>(now - last_).count();
    const std::pair<double, double> phase = {seconds, std::clamp(waited - waitedBefore_, 0.0, seconds)};
    last_ = now;
    waitedBefore_ = waited;
    return phase;
  }

 private:
  const Communicator* comm_;
  std::chrono::steady_clock::time_point last_;
  double waitedBefore_ = 0;
};

// Where a model computes: its GPU and the stream it gives (model.h's
// gpu_stream, since 1.13), or device -1 on the host.
struct GpuModel {
  int device = -1;
  void* stream = nullptr;
};

GpuModel gpuModelOf(PluginInstance& model, const dtb_model_plugin_v1_t& api) {
  GpuModel gpu;
  dtb_param_t* const* params = nullptr;
  uint32_t count = 0;
  model.check("params", api.params(model.context(), &params, &count));
  for (uint32_t i = 0; i < count && gpu.device < 0; ++i) {
    if (params[i]->value.device.type == DTB_DEVICE_CUDA) gpu.device = params[i]->value.device.index;
  }
  // A loader that zeroed the member for an older model reads as NULL.
  if (gpu.device >= 0 && api.gpu_stream) gpu.stream = api.gpu_stream(model.context());
  return gpu;
}

}  // namespace

TrainingStep::TrainingStep(PluginInstance& model, PluginInstance& strategy, Optimizer& optimizer,
                           Communicator* comm, GradientProfile* profile, MixedPrecision* precision)
    : model_(model),
      strategy_(strategy),
      optimizer_(optimizer),
      comm_(comm),
      profile_(profile),
      precision_(precision),
      modelApi_(model.plugin().descriptor<dtb_model_plugin_v1_t>()),
      strategyApi_(strategy.plugin().descriptor<dtb_strategy_plugin_v1_t>()) {
  const GpuModel gpu = gpuModelOf(model, modelApi_);
  if (gpu.stream) {
    // A strategy built before 1.13 was promised a gradient computed when
    // grad_ready is called: the host waits for the model before its hooks.
    const bool strategyWaits = strategyApi_.header.abi_version < DTB_ABI_MAKE_VERSION(1, 13);
    handOff_ = makeGpuHandOff(gpu.stream, gpu.device, comm_, strategyWaits);
    if (profile_) profile_->timeOn(makeGpuStreamClock(gpu.stream, gpu.device));
  } else if (gpu.device >= 0 && !strategyApi_.grad_ready) {
    // The model waits for its GPU before each hook: the profile alone would
    // add that wait to every layer (ResNet-50's backward under the
    // all-reduce took 30.7-32.9 ms with it on an H100, 25.6 ms without), so
    // such a run is not profiled.
    profile_ = nullptr;
  }
  hooks_.struct_size = sizeof(hooks_);
  hooks_.user = this;
  hooks_.layer_begin = strategyApi_.layer_begin ? &layerBegin : nullptr;
  hooks_.grad_ready = strategyApi_.grad_ready || profile_ || precision_ ? &gradReady : nullptr;
  declaresItsWaits_ = strategyApi_.header.abi_version >= DTB_ABI_MAKE_VERSION(1, 6);
}

dtb_status_t TrainingStep::layerBegin(void* self, uint32_t layer, dtb_pass_t pass) {
  auto* step = static_cast<TrainingStep*>(self);
  // A gather may reuse memory that the model's queued work still reads.
  if (!step->handOff(&GpuHandOff::hostAfterModel)) return DTB_STATUS_INTERNAL;
  const dtb_status_t status = step->strategyApi_.layer_begin(step->strategy_.context(), layer, pass);
  if (step->comm_) step->comm_->endPolling();  // back to the model's compute
  if (status != DTB_STATUS_OK && !step->failedHook_) step->failedHook_ = "layer_begin";
  // The layer's parameters are where the strategy put them now (ZeRO-3:
  // gathered); backward reuses what forward widened.
  if (status == DTB_STATUS_OK && step->precision_ && pass == DTB_PASS_FORWARD) {
    try {
      // With a queued hand-off the model's stream waits for the widening
      // (below); else the host does.
      step->precision_->layerValuesToModel(layer, /*settle=*/!step->handOff_);
    } catch (const std::exception& e) {  // the strategy left a parameter nowhere
      step->hostError_ = e.what();
      step->hostErrorStatus_ = DTB_STATUS_INVALID_ARGUMENT;
      return DTB_STATUS_INVALID_ARGUMENT;
    }
  }
  // The layer computes on what the hook gathered (or widened).
  if (status == DTB_STATUS_OK && !step->handOff(&GpuHandOff::modelAfterHost)) return DTB_STATUS_INTERNAL;
  return status;
}

bool TrainingStep::handOff(void (GpuHandOff::*order)()) {
  if (!handOff_) return true;
  try {
    (handOff_.get()->*order)();
    return true;
  } catch (const std::exception& e) {  // a CUDA error: the GPU's context is likely broken
    hostError_ = std::string("ordering the GPU's streams: ") + e.what();
    hostErrorStatus_ = DTB_STATUS_INTERNAL;
    return false;
  }
}

dtb_status_t TrainingStep::gradReady(void* self, dtb_param_t* param) {
  auto* step = static_cast<TrainingStep*>(self);
  // What the strategy and mixed precision queue on the gradient runs after
  // the model's work that computes it (the profile marks the model's stream
  // itself).
  if ((step->precision_ || step->strategyApi_.grad_ready) && !step->handOff(&GpuHandOff::hostAfterModel))
    return DTB_STATUS_INTERNAL;
  if (step->precision_) {
    try {
      param = step->precision_->gradientReady(*param);  // the strategy's record of it
    } catch (const std::exception& e) {                 // the model reported a parameter not its own
      step->hostError_ = e.what();
      step->hostErrorStatus_ = DTB_STATUS_INVALID_ARGUMENT;
      return DTB_STATUS_INVALID_ARGUMENT;
    }
  }
  // The gradient as the strategy gets it: in mixed precision its bytes are
  // the low precision's, which is what a projection of the run moves.
  if (step->profile_) {
    try {
      step->profile_->ready(*param);
    } catch (
        const std::exception& e) {  // a CUDA error recording the mark: nothing may cross the model's frames
      step->hostError_ = std::string("timing a gradient: ") + e.what();
      step->hostErrorStatus_ = DTB_STATUS_INTERNAL;
      return DTB_STATUS_INTERNAL;
    }
  }
  if (!step->strategyApi_.grad_ready) return DTB_STATUS_OK;
  const dtb_status_t status = step->strategyApi_.grad_ready(step->strategy_.context(), param);
  if (step->comm_) step->comm_->endPolling();  // back to the model's compute
  if (status != DTB_STATUS_OK && !step->failedHook_) step->failedHook_ = "grad_ready";
  return status;
}

void TrainingStep::checkModel(const char* function, dtb_status_t status) {
  if (!hostError_.empty()) {
    std::string error = std::move(hostError_);
    hostError_.clear();
    throw PluginCallError(std::string(function) + ": " + error, hostErrorStatus_);
  }
  if (const char* hook = failedHook_) {
    failedHook_ = nullptr;
    strategy_.check(hook, status == DTB_STATUS_OK ? DTB_STATUS_INTERNAL : status);
  }
  model_.check(function, status);
}

StepResult TrainingStep::run(const dtb_batch_t& batch, const dtb_step_info_t& info) {
  StepResult result;
  StepTiming& t = result.timing;
  PhaseClock clock(comm_);
  if (strategyApi_.before_forward) {
    strategy_.check("before_forward", strategyApi_.before_forward(strategy_.context(), &info));
    if (comm_) comm_->endPolling();
  }
  dtb_forward_result_t forward{};
  forward.struct_size = sizeof(forward);
  checkModel("forward", modelApi_.forward(model_.context(), &batch, &hooks_, &forward));
  result.loss = forward.loss;
  result.correct = forward.correct;
  std::tie(t[Phase::kForward], t[Phase::kForwardWait]) = clock.lap();

  if (profile_) profile_->beginBackward();
  if (precision_) precision_->beginBackward();
  checkModel("backward", modelApi_.backward(model_.context(), &hooks_));
  if (precision_) precision_->finishBackward();
  if (profile_) profile_->endBackward();
  std::tie(t[Phase::kBackward], t[Phase::kBackwardWait]) = clock.lap();

  strategy_.check("finish_backward", strategyApi_.finish_backward(strategy_.context()));
  // Between micro-batches no optimizer step settles the GPU: the copies a
  // strategy queued (gradients added into its sums, ZeRO's slices) must have
  // read the gradients before the next backward writes them again.
  if (info.micro_step + 1 != info.accumulation_steps) gpuSettleWorkStreams();
  // Its waits are exposed; the rest is the strategy's computation.
  auto [finishS, finishWaitS] = clock.lap();
  if (!declaresItsWaits_) finishWaitS = finishS;  // an older strategy's: all of it, as before 1.6
  t.finishComputeS = finishS - finishWaitS;
  if (comm_) comm_->endPolling();

  if (info.micro_step + 1 == info.accumulation_steps) {
    // fp16: the strategy's optim_check settles the step (the ranks agree on
    // an overflow; an applied step is counted there, a skipped one is not:
    // train/master_weights.h). Else every step is applied.
    const bool checked = precision_ && precision_->scalesLoss();
    if (precision_) {
      result.lossScale = precision_->lossScale();
      precision_->beginStep();
    }
    if (!checked) optimizer_.beginStep();
    optimizer_.beginUpdates();  // no clip factor until optim_check sets this step's
    strategy_.check("step", strategyApi_.step(strategy_.context()));
    optimizer_.settle();  // updates queued on a GPU have run before the next forward reads the weights
    result.gradNorm = optimizer_.gradNorm();
    result.clipFactor = optimizer_.clipFactor();
    if (precision_) {
      result.skipped = precision_->skipping();
      // A strategy that hooks layers hands the model its values layer by
      // layer (layerBegin), the others here.
      if (!result.skipped && !strategyApi_.layer_begin) precision_->valuesToModel();
    }
    std::tie(t[Phase::kOptimizer], t[Phase::kOptimizerWait]) = clock.lap();
  }
  if (comm_) comm_->endPolling();
  t[Phase::kForward] -= t[Phase::kForwardWait];
  t[Phase::kBackward] -= t[Phase::kBackwardWait];
  t[Phase::kOptimizer] += t.finishComputeS - t[Phase::kOptimizerWait];
  t[Phase::kCommExposed] = finishWaitS + t.waitsInPhases();
  return result;
}

}  // namespace dtb::core
