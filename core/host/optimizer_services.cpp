// The optimizer's services of the host table (optim_state_floats,
// optim_check, optim_update, optim_update_many): the run's optimizer over a strategy's slices,
// the loss scaler's agreement between the ranks in fp16, and the global
// norm gradient clipping measures (host/optimizer_kernels.h says what the
// optimizer behind them answers).
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "cuda/cuda_memory.h"
#include "dtbench/plugin.hpp"
#include "host/blocking_collective.h"
#include "host/communicator.h"
#include "host/host_services.h"
#include "host/optimizer_kernels.h"
#include "host/plugin_instance.h"

namespace dtb::core {

void HostServices::installOptimizer() {
  table_.optim_state_floats = [](dtb_host_ctx_t ctx) noexcept {
    OptimizerKernels* o = self(ctx).optimizer_;
    return o ? o->stateFloats() : uint32_t{0};
  };
  table_.optim_update = [](dtb_host_ctx_t ctx, dtb_tensor_t* param, const dtb_tensor_t* grad, float* state,
                           uint32_t paramIndex) {
    return guarded(ctx, "optim_update", [&] { return self(ctx).update(param, grad, state, paramIndex); });
  };
  table_.optim_update_many = [](dtb_host_ctx_t ctx, dtb_tensor_t* params, const dtb_tensor_t* grads,
                                float* const* states, const uint32_t* paramIndices, uint32_t count) {
    return guarded(ctx, "optim_update_many",
                   [&] { return self(ctx).updateMany(params, grads, states, paramIndices, count); });
  };
  table_.optim_check = [](dtb_host_ctx_t ctx, const dtb_tensor_t* grads, uint32_t count, int32_t* apply) {
    return guarded(ctx, "optim_check", [&] { return self(ctx).checkStep(grads, count, apply); });
  };
}

dtb_status_t HostServices::checkStep(const dtb_tensor_t* grads, uint32_t count, int32_t* apply) {
  const dtb_host_ctx_t ctx = table_.ctx;
  if (!optimizer_) return unbound(ctx, "optim_check");
  if (!given(ctx, "optim_check", {apply})) return DTB_STATUS_INVALID_ARGUMENT;
  *apply = 1;
  const bool scales = optimizer_->scalesLoss();
  const bool clips = optimizer_->clipNorm() > 0;
  if (!scales && !clips) return DTB_STATUS_OK;  // nothing to measure, nothing to agree on
  if (scales ? optimizer_->stepSettled() : optimizer_->clipSet()) {
    // Asked again in the same step (a strategy with several parameter
    // groups): the answer the ranks agreed on, without asking them again.
    *apply = optimizer_->stepSkipped() ? 0 : 1;
    return DTB_STATUS_OK;
  }
  if (count > 0 && grads == nullptr) {
    setErrorThunk(ctx, "optim_check: no gradients given");
    return DTB_STATUS_INVALID_ARGUMENT;
  }
  // Where the run's parameters are: the host, or a GPU (in mixed precision
  // the records' GPU, where the overflow check runs; in f32 the gradients'
  // own), where the norm is measured.
  const bool f32OnGpu =
      optimizer_->paramDtype() == DTB_DTYPE_F32 && count > 0 && grads[0].device.type == DTB_DEVICE_CUDA;
  const dtb_device_t records = f32OnGpu ? grads[0].device : optimizer_->paramDevice();
  const bool onGpu = records.type == DTB_DEVICE_CUDA;
  uint64_t elements = 0;
  for (uint32_t t = 0; t < count; ++t) {
    const dtb_tensor_t& g = grads[t];
    elements += g.count;
    const bool there = g.device.type == records.type && (!onGpu || g.device.index == records.index);
    if (g.dtype != optimizer_->paramDtype() || !there || (g.count > 0 && g.data == nullptr)) {
      setErrorText(ctx, std::string("optim_check: gradient ") + std::to_string(t) + " is not a " +
                            dtb::dtypeName(optimizer_->paramDtype()) + " tensor with data on " +
                            (onGpu ? "GPU " + std::to_string(records.index) : std::string("the host")) +
                            ", where this run's parameters are");
      return DTB_STATUS_INVALID_ARGUMENT;
    }
  }
  if (communicator_) communicator_->endPolling();
  float flag = scales && optimizer_->overflowIn(grads, count) ? 1.0f : 0.0f;
  double squares = 0;
  if (clips && flag == 0) {
    try {
      squares = onGpu ? optimizer_->squaredNormOnGpu(grads, count, records.index)
                      : optimizer_->squaredNorm(grads, count);
    } catch (const GpuUnavailable& e) {
      setErrorText(ctx, "optim_check on GPU " + std::to_string(records.index) + ": " + e.what());
      return DTB_STATUS_UNSUPPORTED;
    }
  }
  // A rank handed fewer elements than the model has holds a shard of the
  // gradients (ZeRO's slices, sized alike on every rank): the shards'
  // squares add up over the ranks. A replica's are the whole already.
  const bool sharded = clips && elements < paramElements_;
  if (scales || sharded) {
    const dtb_status_t agreed = agreeOnStep(&flag, sharded ? &squares : nullptr);
    if (agreed != DTB_STATUS_OK) return agreed;
  }
  if (scales) *apply = optimizer_->settleStep(flag > 0) ? 1 : 0;
  if (clips) {
    const double norm = *apply ? std::sqrt(squares) : std::numeric_limits<double>::quiet_NaN();
    const double maxNorm = optimizer_->clipNorm();
    // torch.nn.utils.clip_grad_norm_'s coefficient, clamped to 1.
    const double factor = *apply && norm + 1e-6 > maxNorm ? maxNorm / (norm + 1e-6) : 1.0;
    optimizer_->setClip(norm, static_cast<float>(factor));
  }
  return DTB_STATUS_OK;
}

dtb_status_t HostServices::agreeOnStep(float* flag, double* squares) {
  if (!communicator_) return DTB_STATUS_OK;
  // An overflow on any rank skips the step on every rank: one all-reduce of
  // the flag, as DeepSpeed's (a rank of ZeRO sees only its own slices); a
  // shard's squares travel with it, and the flags are then summed.
  float both[2] = {*flag, squares ? static_cast<float>(*squares) : 0.0f};
  dtb_tensor_t t = dtb::hostTensor(both, squares ? 2 : 1, DTB_DTYPE_F32);
  try {
    runCollective(*communicator_, [&](dtb_request_t* r, std::string* e) {
      return communicator_->allreduce(&t, squares ? DTB_REDUCE_SUM : DTB_REDUCE_MAX, r, e);
    });
  } catch (const PluginCallError& e) {
    setErrorText(table_.ctx, std::string("optim_check: the ranks' ") +
                                 (squares ? "overflow flags and gradient norms: " : "overflow flags: ") +
                                 e.what());
    return e.status();
  }
  *flag = both[0];
  if (squares) *squares = both[1];
  return DTB_STATUS_OK;
}

dtb_status_t HostServices::checkUpdate(const char* function, int64_t slice, const dtb_tensor_t& param,
                                       const dtb_tensor_t& grad, const float* state, uint32_t paramIndex,
                                       WeightDecay* decay) {
  const dtb_host_ctx_t ctx = table_.ctx;
  // "optim_update", or "optim_update_many: slice 3": made only for a message.
  auto who = [&] {
    return slice < 0 ? std::string(function) : std::string(function) + ": slice " + std::to_string(slice);
  };
  // f32, or the run's bf16 / f16 in mixed precision.
  const dtb_dtype_t dtype = optimizer_->paramDtype();
  if (param.dtype != dtype || grad.dtype != dtype || param.count != grad.count ||
      (param.device.type != DTB_DEVICE_HOST && param.device.type != DTB_DEVICE_CUDA) ||
      grad.device.type != param.device.type || grad.device.index != param.device.index) {
    setErrorText(ctx, who() + ": param and grad must be " + dtb::dtypeName(dtype) +
                          " tensors of equal count on the same device (the host, or one GPU)" +
                          (dtype == DTB_DTYPE_F32 ? "" : ": this run trains in mixed precision"));
    return DTB_STATUS_INVALID_ARGUMENT;
  }
  if (param.count > 0 && (param.data == nullptr || grad.data == nullptr)) {
    setErrorText(ctx, who() + ": a tensor of count > 0 has no data");
    return DTB_STATUS_INVALID_ARGUMENT;
  }
  if (optimizer_->stateFloats() > 0 && state == nullptr && param.count > 0) {
    setErrorText(ctx, who() + ": this optimizer needs state (optim_state_floats() floats per element)");
    return DTB_STATUS_INVALID_ARGUMENT;
  }
  // A kernel given host memory would fault and break the CUDA context for
  // every later call: state a GPU's update needs must be that GPU's memory.
  if (param.device.type == DTB_DEVICE_CUDA && optimizer_->stateFloats() > 0 && param.count > 0 &&
      !isMemoryOfGpu(state, param.device.index)) {
    setErrorText(ctx, who() + ": the optimizer state is not memory of GPU " +
                          std::to_string(param.device.index) +
                          ", where the parameter is (allocate it with alloc on the parameter's device)");
    return DTB_STATUS_INVALID_ARGUMENT;
  }
  // Per-parameter options: a flat mix of parameters (UINT32_MAX) gets the
  // optimizer's defaults, as does every index before describeParams.
  *decay = WeightDecay::kApply;
  if (paramIndex != UINT32_MAX && !paramFlags_.empty()) {
    if (paramIndex >= paramFlags_.size()) {
      setErrorText(ctx, who() + ": param_index " + std::to_string(paramIndex) + " is not a parameter (" +
                            std::to_string(paramFlags_.size()) + " of them; UINT32_MAX for a flat mix)");
      return DTB_STATUS_INVALID_ARGUMENT;
    }
    if (paramFlags_[paramIndex] & DTB_PARAM_FLAG_NO_WEIGHT_DECAY) *decay = WeightDecay::kSkip;
  }
  if (optimizer_->clipNorm() > 0 && !optimizer_->clipSet()) {
    setErrorText(ctx, who() +
                          ": with gradient_clipping a strategy calls optim_check once a step, before its "
                          "optim_update calls (ABI 1.8): the host measures the gradients' global norm there");
    return DTB_STATUS_INVALID_ARGUMENT;
  }
  if (optimizer_->scalesLoss() && !optimizer_->stepSettled()) {
    setErrorText(ctx, who() +
                          ": in an fp16 run a strategy calls optim_check once a step, before its "
                          "optim_update calls (ABI 1.8): the loss scaler decides there whether the step is "
                          "applied");
    return DTB_STATUS_INVALID_ARGUMENT;
  }
  return DTB_STATUS_OK;
}

void HostServices::updateOnHost(const dtb_tensor_t& param, const dtb_tensor_t& grad, float* state,
                                WeightDecay decay) {
  if (optimizer_->paramDtype() != DTB_DTYPE_F32) {
    optimizer_->updateLowPrecision(static_cast<uint16_t*>(param.data),
                                   static_cast<const uint16_t*>(grad.data), state, param.count, decay);
    return;
  }
  optimizer_->update(static_cast<float*>(param.data), static_cast<const float*>(grad.data), state,
                     param.count, decay);
}

dtb_status_t HostServices::update(dtb_tensor_t* param, const dtb_tensor_t* grad, float* state,
                                  uint32_t paramIndex) {
  const dtb_host_ctx_t ctx = table_.ctx;
  if (!optimizer_) return unbound(ctx, "optim_update");
  if (!given(ctx, "optim_update", {param, grad})) return DTB_STATUS_INVALID_ARGUMENT;
  return applyUpdates("optim_update", false, param, grad, &state, &paramIndex, 1);
}

dtb_status_t HostServices::updateMany(dtb_tensor_t* params, const dtb_tensor_t* grads, float* const* states,
                                      const uint32_t* paramIndices, uint32_t count) {
  const dtb_host_ctx_t ctx = table_.ctx;
  if (!optimizer_) return unbound(ctx, "optim_update_many");
  if (count > 0 && !given(ctx, "optim_update_many", {params, grads, states, paramIndices}))
    return DTB_STATUS_INVALID_ARGUMENT;
  return applyUpdates("optim_update_many", true, params, grads, states, paramIndices, count);
}

dtb_status_t HostServices::applyUpdates(const char* function, bool numbered, const dtb_tensor_t* params,
                                        const dtb_tensor_t* grads, float* const* states,
                                        const uint32_t* paramIndices, uint32_t count) {
  const dtb_host_ctx_t ctx = table_.ctx;
  if (communicator_) communicator_->endPolling();  // the training thread computes: no poll loop
  // Every slice checked before any is updated (one slice, optim_update's,
  // without allocating).
  WeightDecay one{};
  std::vector<WeightDecay> several(count > 1 ? count : 0);
  WeightDecay* decays = count > 1 ? several.data() : &one;
  for (uint32_t i = 0; i < count; ++i) {
    const dtb_status_t status = checkUpdate(function, numbered ? int64_t{i} : -1, params[i], grads[i],
                                            states[i], paramIndices[i], &decays[i]);
    if (status != DTB_STATUS_OK) return status;
  }
  // Host slices one after the other; each GPU's together, in few kernels.
  std::map<int, std::vector<GpuUpdateSlice>> onGpus;
  for (uint32_t i = 0; i < count; ++i) {
    if (params[i].device.type == DTB_DEVICE_CUDA) {
      onGpus[params[i].device.index].push_back(
          {params[i].data, grads[i].data, states[i], params[i].count, decays[i]});
    } else {
      updateOnHost(params[i], grads[i], states[i], decays[i]);
    }
  }
  for (const auto& [device, slices] : onGpus) {
    try {
      optimizer_->updateManyOnGpu(slices, device);
    } catch (const GpuUnavailable& e) {
      setErrorText(ctx, std::string(function) + " on GPU " + std::to_string(device) + ": " + e.what());
      return DTB_STATUS_UNSUPPORTED;
    }
  }
  return DTB_STATUS_OK;
}

}  // namespace dtb::core
