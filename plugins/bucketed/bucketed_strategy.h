// PyTorch DistributedDataParallel's reducer (torch 1.13, c10d/reducer.cpp):
// gradients are copied, pre-divided by the world size, into flat buckets as
// they become ready during backward; a bucket whose last gradient arrived is
// all-reduced asynchronously, buckets strictly in index order, overlapping
// the rest of backward; after backward the strategy waits for them and
// copies the averaged gradients back. After the first step the buckets are
// rebuilt once in the order gradients really became ready (rank 0's order,
// broadcast), the first bucket small (1 MiB) so communication starts early.
//
// Options as DDP's (bucketed_settings.h): bucket_cap_mb,
// gradient_as_bucket_view (gradients live in the buckets: no copies, no
// second gradient copy in memory), find_unused_parameters (parameters that
// got no gradient are reduced as zeros instead of failing the step with
// their names), gradient accumulation without synchronisation (no_sync) for
// all but the last micro-batch of a step, and the communication hook
// (comm_hook.h: allreduce, fp16, bf16, powersgd).
#pragma once

#include <memory>
#include <vector>

#include "bucket.h"
#include "bucket_assignment.h"
#include "comm_hook.h"
#include "dtbench/accumulation.hpp"
#include "dtbench/optimizer_state.hpp"
#include "dtbench/param_set.hpp"
#include "dtbench/requests.hpp"
#include "dtbench/tensor_ops.hpp"

namespace dtb::strategy::bucketed {

class BucketedStrategy {
 public:
  BucketedStrategy(const dtb_host_t* host, const dtb_strategy_setup_t& setup);
  ~BucketedStrategy();
  BucketedStrategy(const BucketedStrategy&) = delete;
  BucketedStrategy& operator=(const BucketedStrategy&) = delete;

  const dtb_host_t* host() const { return host_; }
  void beforeForward(const dtb_step_info_t& step);
  void gradReady(dtb_param_t* param);
  void finishBackward();
  void step() { optimizer_.update(); }
  void memoryReport(dtb_memory_report_t* out) const;
  // The optimizer state (momentum, Adam's moments): checkpoints and restarts.
  uint64_t stateSize() const { return optimizer_.savedBytes(); }
  void saveState(void* out, uint64_t bytes) const { optimizer_.saveTo(out, bytes); }
  void loadState(const void* in, uint64_t bytes) { optimizer_.loadFrom(in, bytes); }

 private:
  void build(const Buckets& assignment);
  // The model's gradients point at its own memory again (NULL where released).
  void unpointGradients();
  // Launches every bucket from next_ on that is complete, in index order.
  void launchReady();
  void markReady(uint32_t index);
  void rebuildFromRankZero();
  void* slotOf(uint32_t index) { return buckets_[bucketOf_[index]].data.at(offsetOf_[index]); }
  void copyBack();
  // readyOrder_ as rank 0 recorded it, on every rank.
  std::vector<int32_t> broadcastReadyOrder();

  const dtb_host_t* host_;
  ParamSet params_;
  dtb_device_t device_;  // where the gradients, and so the buckets, live
  TensorOps ops_;
  GradArrivals arrived_;
  GradAccumulator sums_;
  OptimizerState optimizer_;
  std::vector<void*> modelGrads_;  // the model's own gradient memory; NULL once released
  uint64_t firstBucketBytes_, capBytes_;
  bool asView_, findUnused_;
  std::unique_ptr<CommHook> hook_;
  float scale_ = 1;  // 1 / (accumulation x what the hook divides by on the way in)
  std::vector<Bucket> buckets_;
  std::vector<uint32_t> bucketOf_;
  std::vector<uint64_t> offsetOf_;  // each gradient's element offset in its bucket
  Requests inFlight_;
  std::vector<int64_t> launchedNs_;  // per request in flight, for the trace
  std::vector<size_t> bucketOfRequest_;
  size_t next_ = 0;
  bool recording_ = true;  // first synchronising step: record the ready order
  bool rebuildDue_ = false;
  std::vector<uint32_t> readyOrder_;
};

}  // namespace dtb::strategy::bucketed
