#include "fusion_buffer.h"

#include <algorithm>

namespace dtb::strategy::fusion {

void FusionBuffer::allreduce(const std::vector<dtb_param_t*>& group,
                             const std::function<void(dtb_request_t)>& wait) {
  uint64_t elements = 0;
  for (const dtb_param_t* p : group) elements += p->grad.count;
  if (elements > buffer_.size()) {
    buffer_ = TypedBuffer();  // the old one goes first: never both at once
    buffer_ = TypedBuffer(host_, std::max<uint64_t>(elements, thresholdBytes_ / dtypeSize(dtype_)), dtype_,
                          DTB_MEM_BUFFERS, device_);
  }
  int64_t t0 = host_->now_ns(host_->ctx);
  uint64_t offset = 0;
  const dtb_tensor_t whole = buffer_.tensor();
  for (const dtb_param_t* p : group) {
    ops_.copy(whole, offset, p->grad, 0, p->grad.count);
    offset += p->grad.count;
  }
  int64_t t1 = host_->now_ns(host_->ctx);
  host_->trace_span(host_->ctx, "MEMCPY_IN_FUSION_BUFFER", "fusion", t0, t1);
  dtb_tensor_t fused = buffer_.tensor(0, elements);
  dtb_request_t request = nullptr;
  check(host_->comm_allreduce(host_->ctx, &fused, DTB_REDUCE_AVG, &request), "fusion: all-reduce");
  host_->metric_add(host_->ctx, "fusion.fused_allreduces", 1);
  host_->metric_add(host_->ctx, "fusion.fused_tensors", static_cast<double>(group.size()));
  wait(request);
  t0 = host_->now_ns(host_->ctx);
  host_->trace_span(host_->ctx, "ALLREDUCE", "fusion", t1, t0);
  offset = 0;
  for (dtb_param_t* p : group) {
    ops_.copy(p->grad, 0, whole, offset, p->grad.count);
    offset += p->grad.count;
  }
  host_->trace_span(host_->ctx, "MEMCPY_OUT_FUSION_BUFFER", "fusion", t0, host_->now_ns(host_->ctx));
}

}  // namespace dtb::strategy::fusion
