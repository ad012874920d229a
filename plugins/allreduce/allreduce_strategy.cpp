#include "allreduce_strategy.h"

#include <cstring>

#include "dtbench/strategy.hpp"

namespace dtb::strategy::allreduce {

AllreduceStrategy::AllreduceStrategy(const dtb_host_t* host, const dtb_strategy_setup_t& setup)
    : host_(host),
      params_(setup.params, setup.params + setup.param_count),
      accumulation_(setup.accumulation_steps) {
  if (accumulation_ == 0)
    throw Error(DTB_STATUS_INVALID_ARGUMENT, "allreduce: accumulation_steps must be >= 1");
  const uint32_t stateFloats = host_->optim_state_floats(host_->ctx);
  for (dtb_param_t* p : params_) {
    requireHostF32("allreduce", *p);
    elements_ += p->value.count;
    accumulated_.push_back(accumulation_ > 1 ? hostAllocZeroed<float>(host_, p->grad.count, DTB_MEM_GRADS)
                                             : nullptr);
    state_.push_back(hostAllocZeroed<float>(host_, p->value.count * stateFloats, DTB_MEM_OPTIMIZER));
  }
  requests_.resize(params_.size());
}

AllreduceStrategy::~AllreduceStrategy() {
  for (float* buffer : accumulated_) host_->free(host_->ctx, buffer);
  for (float* buffer : state_) host_->free(host_->ctx, buffer);
}

void AllreduceStrategy::beforeForward(const dtb_step_info_t& step) { microStep_ = step.micro_step; }

void AllreduceStrategy::finishBackward() {
  if (accumulation_ > 1) {
    const bool last = microStep_ + 1 == accumulation_;
    for (size_t i = 0; i < params_.size(); ++i) {
      auto* grad = static_cast<float*>(params_[i]->grad.data);
      float* sum = accumulated_[i];
      for (uint64_t k = 0; k < params_[i]->grad.count; ++k) sum[k] += grad[k];
      if (!last) continue;
      const float scale = 1.0f / static_cast<float>(accumulation_);
      for (uint64_t k = 0; k < params_[i]->grad.count; ++k) {
        grad[k] = sum[k] * scale;
        sum[k] = 0.0f;
      }
    }
    if (!last) return;  // no_sync: nothing crosses the wire until the last micro-batch
  }
  // Issue every all-reduce, then wait for each exactly once, even after a failure.
  size_t issued = 0;
  dtb_status_t status = DTB_STATUS_OK;
  for (; issued < params_.size(); ++issued) {
    status = host_->comm_allreduce(host_->ctx, &params_[issued]->grad, DTB_REDUCE_AVG, &requests_[issued]);
    if (status != DTB_STATUS_OK) break;
  }
  for (size_t i = 0; i < issued; ++i) {
    const dtb_status_t waited = host_->comm_wait(host_->ctx, requests_[i], DTB_TIMEOUT_DEFAULT);
    if (status == DTB_STATUS_OK) status = waited;
  }
  check(status, "allreduce");
}

void AllreduceStrategy::step() { updateEach(host_, params_, state_); }

void AllreduceStrategy::memoryReport(dtb_memory_report_t* out) const {
  const uint64_t bytes = elements_ * sizeof(float);
  out->param_bytes = bytes;
  out->grad_bytes = accumulation_ > 1 ? 2 * bytes : bytes;
  out->optimizer_bytes = bytes * host_->optim_state_floats(host_->ctx);
  out->buffer_bytes = 0;
}

}  // namespace dtb::strategy::allreduce
