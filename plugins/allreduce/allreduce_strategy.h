// The naive data-parallel baseline every other strategy is compared with:
// after backward, one all-reduce (average) per gradient tensor, all issued
// together and then waited for; no bucketing, no overlap with backward.
//
// Gradient accumulation (accumulation_steps = k): the first k-1
// micro-batches only add their gradients into a private buffer (no
// communication); the last adds its own, divides by k — the mean over the k
// micro-batches, so k micro-batches of B equal one batch of kB — and
// all-reduces.
#pragma once

#include <vector>

#include "dtbench/strategy.h"

namespace dtb::strategy::allreduce {

class AllreduceStrategy {
 public:
  AllreduceStrategy(const dtb_host_t* host, const dtb_strategy_setup_t& setup);
  ~AllreduceStrategy();
  AllreduceStrategy(const AllreduceStrategy&) = delete;
  AllreduceStrategy& operator=(const AllreduceStrategy&) = delete;

  const dtb_host_t* host() const { return host_; }
  void beforeForward(const dtb_step_info_t& step);
  void finishBackward();
  void step();
  void memoryReport(dtb_memory_report_t* out) const;

 private:
  const dtb_host_t* host_;
  std::vector<dtb_param_t*> params_;
  uint32_t accumulation_;
  uint32_t microStep_ = 0;
  std::vector<float*> accumulated_;  // per parameter; only with accumulation
  std::vector<float*> state_;        // optimizer state per parameter
  std::vector<dtb_request_t> requests_;
  uint64_t elements_ = 0;
};

}  // namespace dtb::strategy::allreduce
