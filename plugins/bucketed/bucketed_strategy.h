// PyTorch DistributedDataParallel's reducer (torch 1.13, c10d/reducer.cpp):
// gradients are copied, pre-divided by the world size, into flat buckets as
// they become ready during backward; a bucket whose last gradient arrived is
// all-reduced asynchronously, buckets strictly in index order, overlapping
// the rest of backward; after backward the strategy waits for them and
// copies the averaged gradients back. After the first step the buckets are
// rebuilt once in the order gradients really became ready (rank 0's order,
// broadcast), the first bucket small (1 MiB) so communication starts early.
//
// Options as DDP's: bucket_cap_mb, gradient_as_bucket_view (gradients live
// in the buckets: no copies, no second gradient copy in memory),
// find_unused_parameters (parameters that got no gradient are reduced as
// zeros instead of failing the step with their names), and gradient
// accumulation without synchronisation (no_sync) for all but the last
// micro-batch of a step. Communication hooks as DDP's: `allreduce` (the
// default above), `fp16` and `bf16` (fp16_compress_hook / bf16_compress_hook:
// the bucket cast to half precision and divided by the world size there,
// all-reduced in half precision, cast back) and `powersgd` (powerSGD_hook:
// plain all-reduce for the first powersgd_start_iter steps, then low-rank
// compression with error feedback and warm start; powersgd.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "bucket_assignment.h"
#include "dtbench/strategy.h"
#include "powersgd.h"

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
  void step();
  void memoryReport(dtb_memory_report_t* out) const;

 private:
  struct Bucket {
    std::vector<uint32_t> params;
    std::vector<uint64_t> offsets;  // element offset of each parameter
    float* data = nullptr;
    uint16_t* compressed = nullptr;            // fp16/bf16 hooks: what crosses the wire
    std::unique_ptr<PowerSgdBucket> powerSgd;  // powersgd hook
    dtb_request_t factors = nullptr;           // powersgd: the Ps' all-reduce (request: the uncompressed)
    uint64_t count = 0;
    uint32_t pending = 0;  // gradients still to arrive this step
    dtb_request_t request = nullptr;
    int64_t launchedNs = 0;
  };

  void build(const Buckets& assignment);
  void release();
  // Launches every bucket from next_ on that is complete, in index order.
  void launchReady();
  void markReady(uint32_t index);
  void rebuildFromRankZero();
  // PowerSGD's second and third collectives, after backward.
  dtb_status_t finishPowerSgd(bool proceed);

  const dtb_host_t* host_;
  std::vector<dtb_param_t*> params_;
  std::vector<void*> modelGrads_;  // the model's own gradient memory, restored at the end; NULL once released
  uint32_t accumulation_;
  uint64_t firstBucketBytes_, capBytes_;
  bool asView_, findUnused_;
  enum class Hook { kAllreduce, kFp16, kBf16, kPowerSgd } hook_ = Hook::kAllreduce;
  PowerSgdOptions powerSgd_;
  uint64_t iteration_ = 0;  // synchronised steps so far (PowerSGD's state.iter)
  bool compressing() const { return hook_ == Hook::kPowerSgd && iteration_ >= powerSgd_.startIteration; }
  int world_ = 1;
  float scale_ = 1;  // 1 / (world x accumulation): DDP pre-divides (compression hooks: 1 / accumulation)
  std::vector<Bucket> buckets_;
  std::vector<uint32_t> bucketOf_, slotOf_;
  std::vector<float*> accumulated_, state_;
  std::vector<bool> ready_;
  size_t next_ = 0;
  bool sync_ = true;       // this micro-batch synchronises (the last of its step)
  bool recording_ = true;  // first synchronising step: record the ready order
  bool rebuildDue_ = false;
  std::vector<uint32_t> readyOrder_;
  uint64_t elements_ = 0;
};

}  // namespace dtb::strategy::bucketed
