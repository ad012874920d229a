// DDP's communication hooks (torch.distributed.algorithms.ddp_comm_hooks):
// what crosses the wire for a bucket, and how the result becomes the
// averaged gradient. The strategy fills buckets and launches them in order;
// the hook decides the collectives.
//   allreduce  the default: the bucket, pre-divided by the world size
//              while gradients are copied in, all-reduced (sum) in the
//              gradients' dtype (f32, or bf16 / f16 in mixed precision).
//   fp16/bf16  fp16_compress_hook / bf16_compress_hook: the bucket cast to
//              half precision and divided by the world size there,
//              all-reduced in half precision, cast back.
//   powersgd   powerSGD_hook (powersgd.h): plain all-reduce for the first
//              start_powerSGD_iter steps, then low-rank compression.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "bucket.h"
#include "dtbench/param_set.hpp"
#include "dtbench/requests.hpp"
#include "powersgd.h"

namespace dtb::strategy::bucketed {

class CommHook {
 public:
  virtual ~CommHook() = default;

  // The factor gradients are multiplied by as they are copied into a bucket
  // (besides 1 / accumulation steps).
  virtual float copyScale() const = 0;
  // The buckets were (re)built: make what each needs.
  virtual void attach(const std::vector<Bucket>& /*buckets*/, const ParamSet& /*params*/) {}
  // Starts bucket `index`'s collectives; called in bucket order on every rank.
  virtual void launch(size_t index, Bucket& bucket, Requests& requests) = 0;
  // Every launched request completed: further rounds, and the averaged
  // gradients written back into each bucket's data.
  virtual void finish(std::vector<Bucket>& /*buckets*/) {}
  // Memory the hook holds beside the buckets, in bytes.
  virtual uint64_t bufferBytes() const { return 0; }
  // The bytes its algorithm all-reduces this step (the collectives' data
  // size S, summed), once every bucket was launched and before finish():
  // the strategy's own theory of its traffic (the metric theory.bus_bytes).
  virtual uint64_t allreducedBytes(const std::vector<Bucket>& buckets) const {
    uint64_t bytes = 0;
    for (const Bucket& b : buckets) bytes += b.data.bytes();
    return bytes;
  }
};

// `name` is one of kCommHook's choices (the host checked it); `device` is
// where the buckets live and `dtype` what they hold (powersgd works on host
// buckets only so far, and the compressing hooks on f32 buckets only).
std::unique_ptr<CommHook> makeCommHook(const std::string& name, const dtb_host_t* host, int world,
                                       const PowerSgdOptions& powerSgd, const dtb_device_t& device,
                                       dtb_dtype_t dtype = DTB_DTYPE_F32);

std::unique_ptr<CommHook> makeAllreduceHook(const dtb_host_t* host, int world);
std::unique_ptr<CommHook> makeHalfCompressHook(const dtb_host_t* host, int world, bool bf16,
                                               const dtb_device_t& device);
std::unique_ptr<CommHook> makePowerSgdHook(const dtb_host_t* host, int world, const PowerSgdOptions& options);

}  // namespace dtb::strategy::bucketed
