// optimizer_state.hpp — the run's optimizer over every parameter of a
// replicated model: the state (momentum, Adam's moments) is the strategy's
// memory, one zeroed buffer per parameter, where the parameter is (the host
// or its GPU: the host's optim_update runs there). Optional C++ helper;
// header-only. (A strategy that shards the state — ZeRO — keeps its own.)
#ifndef DTBENCH_OPTIMIZER_STATE_HPP
#define DTBENCH_OPTIMIZER_STATE_HPP

#include <string>
#include <vector>

#include "dtbench/host_buffer.hpp"
#include "dtbench/optimizer_updates.hpp"
#include "dtbench/param_set.hpp"
#include "dtbench/tensor_ops.hpp"

namespace dtb {

// The host's optim_check (ABI 1.8) before a step that updates from `grads`
// (this rank's reduced gradients or slices of them): false when an fp16
// run's loss scaler skips the step on every rank, so no optim_update is
// called. Every rank calls it once a step. True at once in other runs, and
// under an older host.
inline bool stepApplies(const dtb_host_t* host, const std::vector<dtb_tensor_t>& grads) {
  if (!DTB_HAS_SERVICE(host, optim_check)) return true;
  int32_t apply = 1;
  check(host->optim_check(host->ctx, grads.data(), static_cast<uint32_t>(grads.size()), &apply),
        "optim_check");
  return apply != 0;
}

class OptimizerState {
 public:
  OptimizerState(const dtb_host_t* host, const ParamSet& params)
      : host_(host), params_(params), floats_(host->optim_state_floats(host->ctx)) {
    for (const dtb_param_t* p : params)
      state_.emplace_back(host, p->value.count * floats_, DTB_MEM_OPTIMIZER, p->value.device);
  }

  // One optimizer step on every parameter, from its (synchronised)
  // gradient, unless the loss scaler skips it (stepApplies).
  void update() {
    std::vector<dtb_tensor_t> grads;
    for (const dtb_param_t* p : params_) grads.push_back(p->grad);
    if (!stepApplies(host_, grads)) return;
    OptimizerUpdates updates(host_);
    for (size_t i = 0; i < params_.size(); ++i) {
      const dtb_param_t& p = params_[i];
      updates.add(p.value, p.grad, state_[i].data(), p.index);
    }
    updates.apply();  // on a GPU: a few fused kernels, not one per parameter
  }

  // f32 state: in mixed precision the master copy is its first float.
  uint64_t bytes() const { return params_.elements() * sizeof(float) * floats_; }

  // The state as one block of savedBytes() bytes in host memory, parameter
  // by parameter (a strategy's state_save / state_load: checkpoints and
  // restarts); state on a GPU is copied with the host's tensor_copy, after
  // the GPU work queued before. Throws dtb::Error when `size` is not
  // savedBytes().
  uint64_t savedBytes() const {
    uint64_t held = 0;
    for (const HostBuffer<float>& s : state_) held += s.size() * sizeof(float);
    return held;
  }
  void saveTo(void* out, uint64_t size) const {
    checkSize(size);
    auto* at = static_cast<float*>(out);
    const TensorOps ops(host_, params_.strategy());
    for (const HostBuffer<float>& s : state_) {
      // Plain SGD keeps no state: empty buffers, and `out` may be null then
      // (memcpy with a null pointer is undefined even for 0 bytes).
      if (s.size() == 0) continue;
      ops.copy(hostTensor(at, s.size(), DTB_DTYPE_F32), 0, s.tensor(), 0, s.size());
      at += s.size();
    }
  }
  void loadFrom(const void* in, uint64_t size) {
    checkSize(size);
    const auto* at = static_cast<const float*>(in);
    const TensorOps ops(host_, params_.strategy());
    for (HostBuffer<float>& s : state_) {
      if (s.size() == 0) continue;  // as in saveTo
      // A source tensor is only read, whatever its type says.
      ops.copy(s.tensor(), 0, hostTensor(const_cast<float*>(at), s.size(), DTB_DTYPE_F32), 0, s.size());
      at += s.size();
    }
  }

 private:
  void checkSize(uint64_t size) const {
    if (size != savedBytes()) {
      throw Error(DTB_STATUS_INVALID_ARGUMENT, "optimizer state of " + std::to_string(savedBytes()) +
                                                   " bytes, not " + std::to_string(size) +
                                                   " (another model or optimizer?)");
    }
  }

  const dtb_host_t* host_;
  const ParamSet& params_;
  uint32_t floats_;
  std::vector<HostBuffer<float>> state_;
};

// The memory report of a strategy that keeps a full replica: parameters,
// gradients (twice with accumulation sums), optimizer state, and `buffers`.
inline void replicatedMemoryReport(const ParamSet& params, const OptimizerState& optimizer,
                                   uint64_t accumulationBytes, uint64_t buffers, dtb_memory_report_t* out) {
  out->param_bytes = params.bytes();
  out->grad_bytes = params.bytes() + accumulationBytes;
  out->optimizer_bytes = optimizer.bytes();
  out->buffer_bytes = buffers;
}

}  // namespace dtb

#endif  // DTBENCH_OPTIMIZER_STATE_HPP
