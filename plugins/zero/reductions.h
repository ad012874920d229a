// The gradient reductions every stage issues: a unit's flat gradients
// reduce-scattered (or all-reduced, keeping this rank's slice, with
// reduce_scatter = false), in one order on every rank, and completed
// oldest first, each adding its mean over ranks and micro-batches into the
// slice the optimizer reads. Failures are kept, not thrown, until finish():
// every reduction issued is waited for, and the host's error passed on as it
// came (which rank, a timeout, a broken peer).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>

#include "buffer_pool.h"
#include "dtbench/requests.hpp"
#include "layout.h"

namespace dtb::strategy::zero {

class Reductions {
 public:
  // sliceOf(u): where unit u's reduced slice accumulates.
  Reductions(const dtb_host_t* host, const Layout& layout, bool reduceScatter, uint32_t accumulation,
             std::function<float*(size_t unit)> sliceOf);

  bool reduceScatter() const { return reduceScatter_; }
  // The micro-batch now computing (0 starts the slices anew).
  void setMicroStep(uint32_t microStep) { microStep_ = microStep; }
  // Starts unit u's reduction over its padded flat gradients at `gradients`.
  void issue(size_t u, float* gradients);
  size_t inFlight() const { return order_.size(); }
  // Waits for the oldest reduction in flight, adds it into its slice (unless
  // it failed) and returns its unit.
  size_t completeOldest();
  // Completes every reduction in flight, calling done(unit) after each;
  // then throws the first failure of the step, if any.
  void finish(const std::function<void(size_t unit)>& done);
  // Waits for every reduction in flight, keeping nothing: before the
  // buffers they read are freed (a step abandoned after a failure).
  void drain() noexcept;
  uint64_t bufferBytes() const { return scratch_.peakBytes(); }

 private:
  struct InFlight {
    size_t unit;
    float* gradients;  // all-reduce: the reduced slice is read from here
    float* output;     // reduce-scatter: this rank's reduced slice
  };

  const dtb_host_t* host_;
  const Layout& layout_;
  bool reduceScatter_;
  uint32_t accumulation_;
  std::function<float*(size_t)> sliceOf_;
  uint32_t microStep_ = 0;
  BufferPool scratch_;  // reduce-scatter outputs; outlives the requests that write it
  Requests requests_;
  std::deque<InFlight> order_;
};

}  // namespace dtb::strategy::zero
