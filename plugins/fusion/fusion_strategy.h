// Horovod's tensor fusion (horovod/common/operations.cc, controller.cc):
// one background thread owns all communication. Every cycle (1 ms) it takes
// the gradients that became ready, agrees with the other ranks which
// tensors are ready everywhere — through rank 0's message table the first
// time a tensor is seen, through the response cache's bitwise-AND
// all-reduce afterwards — fuses them greedily into one persistent buffer up
// to the fusion threshold (128 MiB), all-reduces it, scales by 1/world after
// the sum, and copies the results back. Every rank reduces the same tensors
// in the same order whatever order its backward produced them in.
//
// The thread cycles from the start of a synchronising micro-batch until all
// of that step's gradients are reduced, so its collectives never interleave
// with the host's own (Horovod's thread cycles all the time; between steps
// it would only exchange empty cache bits).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "autotune.h"
#include "dtbench/accumulation.hpp"
#include "dtbench/optimizer_state.hpp"
#include "dtbench/param_set.hpp"
#include "fusion_buffer.h"
#include "negotiation.h"
#include "stall_inspector.h"

namespace dtb::strategy::fusion {

struct FusionOptions {
  uint64_t thresholdBytes;  // rounded as Horovod rounds it; 0: no fusion
  double cycleMs;
  uint32_t cacheCapacity;
  double stallTimeoutS;
};

class FusionStrategy {
 public:
  FusionStrategy(const dtb_host_t* host, const dtb_strategy_setup_t& setup);
  ~FusionStrategy();
  FusionStrategy(const FusionStrategy&) = delete;
  FusionStrategy& operator=(const FusionStrategy&) = delete;

  const dtb_host_t* host() const { return host_; }
  void beforeForward(const dtb_step_info_t& step);
  void gradReady(dtb_param_t* param);
  void finishBackward();
  void step() { optimizer_.update(); }
  void memoryReport(dtb_memory_report_t* out) const {
    replicatedMemoryReport(params_, optimizer_, sums_.bytes(), fusionBuffer_.bytes(), out);
  }
  // The optimizer state (momentum, Adam's moments): checkpoints and restarts.
  uint64_t stateSize() const { return optimizer_.savedBytes(); }
  void saveState(void* out, uint64_t bytes) const { optimizer_.saveTo(out, bytes); }
  void loadState(const void* in, uint64_t bytes) { optimizer_.loadFrom(in, bytes); }

 private:
  void cycleLoop();
  // One cycle; false once this step is over (all reduced, or failed).
  bool cycle();
  // The uncached tensors every rank has ready, decided by rank 0.
  std::vector<uint32_t> negotiate(const std::vector<uint32_t>& uncached, bool* abort);
  // Autotune, at a synchronising step's start (the cycle thread is idle):
  // rank 0 scores and decides, every rank takes its point (a broadcast at
  // the end of each point), and the step trains with it.
  void tune();
  void execute(const std::vector<uint32_t>& responses);
  void waitFor(dtb_request_t request, const char* what);

  const dtb_host_t* host_;
  ParamSet params_;
  GradAccumulator sums_;
  OptimizerState optimizer_;
  FusionOptions options_;  // threshold and cycle change only in tune(), between steps
  std::optional<Autotuner> autotune_;
  int64_t syncSteps_ = 0;  // synchronising steps begun (autotune's clock)
  int rank_, world_;
  std::vector<std::string> names_;  // the parameters', for messages

  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  // Guarded by mutex_.
  std::vector<uint32_t> queue_;  // became ready, not yet taken by the thread
  bool active_ = false;          // the thread cycles for this step
  bool stopping_ = false;
  uint32_t remaining_ = 0;  // this step's tensors not yet reduced
  std::string error_;

  // The thread's own.
  std::vector<uint32_t> pending_;  // ready here, not yet reduced
  MessageTable table_;             // rank 0
  StallInspector inspector_;       // rank 0
  ResponseCache cache_;
  RequestLog requests_;
  FusionBuffer fusionBuffer_;
};

}  // namespace dtb::strategy::fusion
