// The gradient reductions every stage issues: a unit's flat gradients
// reduce-scattered (or all-reduced, keeping this rank's slice, with
// reduce_scatter = false), in one order on every rank, and completed
// oldest first, each adding its mean over ranks and micro-batches into the
// slice the optimizer reads. A reduction that cannot start throws at once
// (check() with the host's status and message); one whose wait fails is
// reported by completeOldest() and thrown again by finish(), after every
// reduction issued was waited for. A failed reduction's buffers never go
// back to a pool: after a timeout the collective may still run in the
// backend, and must not write into memory handed to someone else.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>

#include "buffer_pool.h"
#include "dtbench/requests.hpp"
#include "dtbench/tensor_ops.hpp"
#include "layout.h"

namespace dtb::strategy::zero {

class Reductions {
 public:
  // sliceOf(u): where unit u's reduced slice accumulates.
  Reductions(const dtb_host_t* host, const Layout& layout, bool reduceScatter, uint32_t accumulation,
             std::function<void*(size_t unit)> sliceOf);

  bool reduceScatter() const { return reduceScatter_; }
  // The micro-batch now computing (0 starts the slices anew).
  void setMicroStep(uint32_t microStep) { microStep_ = microStep; }
  // Starts unit u's reduction over its padded flat gradients at `gradients`;
  // throws when it cannot start (this one or an earlier one failed).
  void issue(size_t u, void* gradients);
  size_t inFlight() const { return order_.size(); }

  struct Completed {
    size_t unit;
    dtb_status_t status;
    bool ok() const { return status == DTB_STATUS_OK; }
  };
  // Waits for the oldest reduction in flight and, when it succeeded, adds it
  // into its slice.
  Completed completeOldest();
  // Completes every reduction in flight, calling done() after each; then
  // throws the first failure of the step, if any.
  void finish(const std::function<void(const Completed&)>& done);
  // Waits for every reduction in flight, keeping nothing: before the
  // buffers they read are freed (a step abandoned after a failure).
  void drain() noexcept;
  uint64_t bufferBytes() const { return scratch_.peakBytes(); }

 private:
  struct InFlight {
    size_t unit;
    void* gradients;  // all-reduce: the reduced slice is read from here
    void* output;     // reduce-scatter: this rank's reduced slice
  };

  const dtb_host_t* host_;
  const Layout& layout_;
  bool reduceScatter_;
  uint32_t accumulation_;
  std::function<void*(size_t)> sliceOf_;
  uint32_t microStep_ = 0;
  BufferPool scratch_;  // reduce-scatter outputs; outlives the requests that write it
  TensorOps ops_;
  Requests requests_;
  std::deque<InFlight> order_;
};

}  // namespace dtb::strategy::zero
