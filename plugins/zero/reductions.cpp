#include "reductions.h"

namespace dtb::strategy::zero {

Reductions::Reductions(const dtb_host_t* host, const Layout& layout, bool reduceScatter,
                       uint32_t accumulation, std::function<void*(size_t)> sliceOf)
    : host_(host),
      layout_(layout),
      reduceScatter_(reduceScatter),
      accumulation_(accumulation),
      sliceOf_(std::move(sliceOf)),
      scratch_(host, layout.maxShard, layout.dtype, layout.device),
      ops_(host, "zero"),
      requests_(host) {}

void Reductions::issue(size_t u, void* gradients) {
  const Unit& unit = layout_[u];
  dtb_tensor_t all = layout_.flat(gradients, unit.padded);
  InFlight reduction{u, gradients, nullptr};
  const size_t before = requests_.size();
  if (reduceScatter_) {
    reduction.output = scratch_.acquire();
    dtb_tensor_t mine = layout_.flat(reduction.output, unit.shard);
    requests_.issue("zero: reduce-scatter", [&](dtb_request_t* r) {
      return host_->comm_reduce_scatter(host_->ctx, &all, &mine, DTB_REDUCE_SUM, r);
    });
  } else {
    requests_.issue("zero: all-reduce", [&](dtb_request_t* r) {
      return host_->comm_allreduce(host_->ctx, &all, DTB_REDUCE_SUM, r);
    });
  }
  if (requests_.size() > before) {
    order_.push_back(reduction);
    return;
  }
  scratch_.release(reduction.output);  // never handed to the backend
  check(requests_.failure(), "zero: reduction");
}

Reductions::Completed Reductions::completeOldest() {
  const InFlight done = order_.front();
  order_.pop_front();
  const Unit& unit = layout_[done.unit];
  const dtb_status_t status = requests_.waitOldest();
  if (status != DTB_STATUS_OK) return {done.unit, status};  // its output stays out of the pool
  void* reduced = reduceScatter_ ? done.output : layout_.at(done.gradients, layout_.rank * unit.shard);
  // The mean over ranks and micro-batches, summed into the slice over the
  // step's micro-batches.
  const float scale = 1.0f / static_cast<float>(layout_.world * static_cast<int64_t>(accumulation_));
  ops_.copy(layout_.flat(sliceOf_(done.unit), unit.shard), 0, layout_.flat(reduced, unit.shard), 0,
            unit.shard, scale, /*accumulate=*/microStep_ != 0);
  scratch_.release(done.output);
  return {done.unit, status};
}

void Reductions::finish(const std::function<void(const Completed&)>& done) {
  while (!order_.empty()) done(completeOldest());
  requests_.waitAll();  // nothing left to wait for: throws the first failure
}

void Reductions::drain() noexcept {
  while (!order_.empty()) {
    requests_.waitOldest();
    scratch_.release(order_.front().output);
    order_.pop_front();
  }
}

}  // namespace dtb::strategy::zero
