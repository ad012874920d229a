// One training step of one rank, as ARCHITECTURE.md draws it: the model's
// forward and backward with the host's hooks wired to the strategy, the
// strategy's finish_backward, then its step. The worker loop calls this for
// every batch.
//
// Exposed communication is every moment the training thread is blocked on
// communication, in whatever phase: each comm_wait and comm_test poll loop
// of the training thread (ZeRO-3's gathers in forward, the wait for the
// last reductions in finish_backward, an all-gather after the update), and
// the waits the strategy declares with comm_waited (for collectives on a
// thread of its own: fusion's cycle thread). Each is taken out of the phase
// it happened in. What is left of finish_backward is the strategy's own
// computation after backward (top-k selection, compression, error feedback,
// copies out of buckets): it is booked, with step(), as the optimizer phase,
// which is "the strategy's step and its own computation after backward".
// So a strategy that computes in finish_backward without communicating
// shows no exposed communication, at any world size, and the phases never
// count a wait twice and sum to the step.
#pragma once

#include <limits>
#include <string>

#include "host/communicator.h"
#include "host/plugin_instance.h"
#include "train/gpu_hand_off.h"
#include "train/gradient_profile.h"
#include "train/mixed_precision.h"
#include "train/optimizer.h"
#include "train/step_phases.h"

namespace dtb::core {

// One micro-batch's phases (train/step_phases.h): this step measures
// forward, backward, optimizer, exposed communication and the waits taken
// out of each; the worker adds the data wait, the communicator's counters
// the backend's busy time.
struct StepTiming : PhaseSeconds {
  // finish_backward less its waits: the strategy's computation after
  // backward (a part of kOptimizer, for the trace).
  double finishComputeS = 0;

  // The waits taken out of forward, backward and step() (parts of
  // kCommExposed; finish_backward's are the rest of it).
  double waitsInPhases() const {
    return (*this)[Phase::kForwardWait] + (*this)[Phase::kBackwardWait] + (*this)[Phase::kOptimizerWait];
  }
  // A step's micro-batches add up.
  StepTiming& operator+=(const StepTiming& o) {
    PhaseSeconds::operator+=(o);
    finishComputeS += o.finishComputeS;
    return *this;
  }
};

struct StepResult {
  double loss = 0;
  uint32_t correct = 0;
  StepTiming timing;
  // fp16: the loss scale the step's gradients had, and whether an overflow
  // on some rank skipped it (the optimizer left every parameter be).
  double lossScale = 1;
  bool skipped = false;
  // gradient_clipping: the step's global gradient norm before clipping (NaN
  // when not measured: no clipping, or a skipped step), and the factor the
  // gradients were multiplied by (1: under the norm).
  double gradNorm = std::numeric_limits<double>::quiet_NaN();
  double clipFactor = 1;
};

class TrainingStep {
 public:
  // `model` and `strategy` are live instances; the strategy was created over
  // the model's parameters and bound to `optimizer` and `comm` (null: no
  // waits to take out of the phases), on this thread, which created `comm`.
  // `profile`, when given, learns when each gradient is ready in backward
  // (on a GPU model that gives its stream, by CUDA events there; on one that
  // waits for its GPU before each hook, only when the strategy listens for
  // gradients anyway: the profile alone would add a wait to every layer).
  // A GPU model that gives its stream hands its work over queued
  // (train/gpu_hand_off.h).
  // `precision`, in a bf16 or fp16 run, is what the strategy was created
  // over: the step rounds each gradient into it as it is ready (the
  // strategy's optim_check then settles an fp16 step: host_services) and
  // sets the model's values after an applied step.
  TrainingStep(PluginInstance& model, PluginInstance& strategy, Optimizer& optimizer, Communicator* comm,
               GradientProfile* profile = nullptr, MixedPrecision* precision = nullptr);

  // Runs one micro-batch; applies the optimizer when `info` is the last
  // micro-batch of a step. Throws PluginCallError naming the plugin that
  // failed (the strategy, when a hook of its failed inside the model).
  StepResult run(const dtb_batch_t& batch, const dtb_step_info_t& info);
  // The hooks wired to the strategy, for forward passes outside a step
  // (evaluation): ZeRO-3 gathers its parameters in layer_begin.
  const dtb_step_hooks_t* hooks() const { return &hooks_; }
  // Checks a model call made with hooks(): throws PluginCallError with the
  // host's own error inside a hook, or blaming the strategy when one of its
  // hooks failed, or the model's.
  void checkModel(const char* function, dtb_status_t status);
  // Whether the model hands its GPU work over queued (gives its stream).
  bool handsOffQueued() const { return handOff_ != nullptr; }
  // Orders a queued hand-off through `handOff` instead of CUDA events (the
  // tests' recording one); no effect for a model that waits for its GPU.
  void handOffThrough(std::unique_ptr<GpuHandOff> handOff) {
    if (handOff_) handOff_ = std::move(handOff);
  }

 private:
  static dtb_status_t layerBegin(void* self, uint32_t layer, dtb_pass_t pass);
  static dtb_status_t gradReady(void* self, dtb_param_t* param);
  // Orders the GPU's streams around a hook where the model hands its work
  // over queued; false (the error kept for checkModel) on a CUDA error.
  bool handOff(void (GpuHandOff::*order)());

  PluginInstance& model_;
  PluginInstance& strategy_;
  Optimizer& optimizer_;
  Communicator* comm_;
  GradientProfile* profile_;
  MixedPrecision* precision_;
  const dtb_model_plugin_v1_t& modelApi_;
  const dtb_strategy_plugin_v1_t& strategyApi_;
  // A strategy built for ABI 1.6 or later can declare its waits on a thread
  // of its own (comm_waited); one built before cannot, so all of its
  // finish_backward stays exposed communication, as it was measured then.
  bool declaresItsWaits_;
  std::unique_ptr<GpuHandOff>
      handOff_;  // null: the model waits for its GPU before each hook, or is on the host
  dtb_step_hooks_t hooks_{};
  const char* failedHook_ = nullptr;  // the strategy hook that failed inside a model call
  // Why the host failed inside a hook: a gradient it could not round into
  // its record, a parameter the strategy left nowhere (INVALID_ARGUMENT), a
  // CUDA error ordering the streams (INTERNAL).
  std::string hostError_;
  dtb_status_t hostErrorStatus_ = DTB_STATUS_INVALID_ARGUMENT;
};

}  // namespace dtb::core
