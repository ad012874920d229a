// One training step of one rank, as ARCHITECTURE.md draws it: the model's
// forward and backward with the host's hooks wired to the strategy, the
// strategy's finish_backward (exposed communication), then its step (the
// optimizer). The worker loop calls this for every batch.
//
// Exposed communication is every moment the training thread is blocked on
// communication: all of finish_backward (by the ABI, the wait for the last
// reductions, on whatever thread they run), and every comm_wait or poll loop
// of the training thread in the other phases (ZeRO-3's gathers in forward,
// an all-gather after the update), which is taken out of the phase it
// happened in. So the phases never count a wait twice and sum to the step.
#pragma once

#include "host/communicator.h"
#include "host/plugin_instance.h"
#include "train/optimizer.h"

namespace dtb::core {

struct StepTiming {
  double forwardS = 0;      // before_forward and forward, less their communication waits
  double backwardS = 0;     // includes the strategy's hooks, less their communication waits
  double commExposedS = 0;  // finish_backward, and every wait of the other phases
  double optimizerS = 0;    // the strategy's step, less its communication waits
  // The waits taken out of each phase (parts of commExposedS).
  double forwardWaitS = 0, backwardWaitS = 0, optimizerWaitS = 0;

  // A step's micro-batches add up.
  StepTiming& operator+=(const StepTiming& o) {
    forwardS += o.forwardS;
    backwardS += o.backwardS;
    commExposedS += o.commExposedS;
    optimizerS += o.optimizerS;
    forwardWaitS += o.forwardWaitS;
    backwardWaitS += o.backwardWaitS;
    optimizerWaitS += o.optimizerWaitS;
    return *this;
  }
};

struct StepResult {
  double loss = 0;
  uint32_t correct = 0;
  StepTiming timing;
};

class TrainingStep {
 public:
  // `model` and `strategy` are live instances; the strategy was created over
  // the model's parameters and bound to `optimizer` and `comm` (null: no
  // waits to take out of the phases), on this thread, which created `comm`.
  TrainingStep(PluginInstance& model, PluginInstance& strategy, Optimizer& optimizer, Communicator* comm);

  // Runs one micro-batch; applies the optimizer when `info` is the last
  // micro-batch of a step. Throws PluginCallError naming the plugin that
  // failed (the strategy, when a hook of its failed inside the model).
  StepResult run(const dtb_batch_t& batch, const dtb_step_info_t& info);
  // The hooks wired to the strategy, for forward passes outside a step
  // (evaluation): ZeRO-3 gathers its parameters in layer_begin.
  const dtb_step_hooks_t* hooks() const { return &hooks_; }

 private:
  static dtb_status_t layerBegin(void* self, uint32_t layer, dtb_pass_t pass);
  static dtb_status_t gradReady(void* self, dtb_param_t* param);
  // Checks a model call, blaming the strategy when one of its hooks failed.
  void checkModel(const char* function, dtb_status_t status);

  PluginInstance& model_;
  PluginInstance& strategy_;
  Optimizer& optimizer_;
  Communicator* comm_;
  const dtb_model_plugin_v1_t& modelApi_;
  const dtb_strategy_plugin_v1_t& strategyApi_;
  dtb_step_hooks_t hooks_{};
  const char* failedHook_ = nullptr;  // the strategy hook that failed inside a model call
};

}  // namespace dtb::core
