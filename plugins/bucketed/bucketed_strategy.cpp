#include "bucketed_strategy.h"

#include <algorithm>
#include <string>

#include "bucketed_settings.h"
#include "dtbench/strategy.hpp"

namespace dtb::strategy::bucketed {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

PowerSgdOptions powerSgdOptions(const dtb_host_t* host) {
  PowerSgdOptions o;
  o.rank = static_cast<uint32_t>(kPowerSgdRank.get(host));
  o.startIteration = static_cast<uint64_t>(kPowerSgdStartIter.get(host));
  o.minCompressionRate = kPowerSgdMinCompressionRate.get(host);
  o.errorFeedback = kPowerSgdErrorFeedback.get(host);
  o.warmStart = kPowerSgdWarmStart.get(host);
  o.seed = static_cast<uint64_t>(kPowerSgdSeed.get(host));
  return o;
}

std::vector<uint64_t> gradientBytes(const ParamSet& params) {
  std::vector<uint64_t> bytes;
  for (const dtb_param_t* p : params) bytes.push_back(p->grad.count * dtypeSize(p->grad.dtype));
  return bytes;
}

}  // namespace

BucketedStrategy::BucketedStrategy(const dtb_host_t* host, const dtb_strategy_setup_t& setup)
    : host_(host),
      params_("bucketed", setup, ParamSet::Place::kHostOrGpu, ParamSet::Dtypes::kF32OrHalf),
      device_(params_.size() > 0 ? params_[0].grad.device : dtb_device_t{DTB_DEVICE_HOST, 0}),
      ops_(host, "bucketed"),
      arrived_(params_),
      sums_(host, params_, setup.accumulation_steps),
      optimizer_(host, params_),
      firstBucketBytes_(static_cast<uint64_t>(kFirstBucketMb.get(host) * kMiB)),
      capBytes_(static_cast<uint64_t>(kBucketCapMb.get(host) * kMiB)),
      asView_(kGradientAsBucketView.get(host)),
      findUnused_(kFindUnusedParameters.get(host)),
      hook_(makeCommHook(kCommHook.get(host), host, host->comm_size(host->ctx), powerSgdOptions(host),
                         device_, params_.dtype())),
      inFlight_(host) {
  ops_.require(device_);
  scale_ = hook_->copyScale() / static_cast<float>(sums_.steps());
  for (dtb_param_t* p : params_) modelGrads_.push_back(p->grad.data);
  // With gradient_as_bucket_view the buckets are the gradients' only memory
  // — DDP's reason for the option — so the model's own gradient arrays go
  // back to the system before the buckets are made (a model that cannot
  // release them keeps them).
  if (asView_ && releaseModelStorage(host_, params_.all(), DTB_PARAM_PART_GRAD))
    std::fill(modelGrads_.begin(), modelGrads_.end(), nullptr);
  build(initialBuckets(gradientBytes(params_), firstBucketBytes_, capBytes_, findUnused_));
}

BucketedStrategy::~BucketedStrategy() { unpointGradients(); }

void BucketedStrategy::unpointGradients() {
  for (size_t i = 0; i < params_.size(); ++i) params_[i].grad.data = modelGrads_[i];
}

void BucketedStrategy::build(const Buckets& assignment) {
  unpointGradients();
  buckets_.clear();
  bucketOf_.assign(params_.size(), 0);
  offsetOf_.assign(params_.size(), 0);
  for (const std::vector<uint32_t>& members : assignment) {
    Bucket b;
    b.params = members;
    for (uint32_t index : members) {
      bucketOf_[index] = static_cast<uint32_t>(buckets_.size());
      offsetOf_[index] = b.count;
      b.offsets.push_back(b.count);
      b.count += params_[index].grad.count;
    }
    // With gradient_as_bucket_view the bucket is the gradients' only memory.
    b.data = TypedBuffer(host_, b.count, params_.dtype(), asView_ ? DTB_MEM_GRADS : DTB_MEM_BUFFERS, device_);
    b.pending = static_cast<uint32_t>(members.size());
    buckets_.push_back(std::move(b));
  }
  if (asView_) {
    for (uint32_t i = 0; i < params_.size(); ++i) params_[i].grad.data = slotOf(i);
  }
  hook_->attach(buckets_, params_);
  next_ = 0;
}

void BucketedStrategy::beforeForward(const dtb_step_info_t& step) {
  sums_.beforeForward(step);
  if (rebuildDue_) {
    rebuildDue_ = false;
    rebuildFromRankZero();
  }
}

void BucketedStrategy::rebuildFromRankZero() {
  // Every rank must bucket alike, so rank 0's observed order wins.
  const std::vector<int32_t> order = broadcastReadyOrder();
  std::vector<uint32_t> ready;
  std::vector<bool> seen(params_.size(), false);
  for (int32_t index : order) {
    if (index < 0 || static_cast<size_t>(index) >= params_.size() || seen[index]) {
      throw Error(DTB_STATUS_COMM_FAILURE,
                  "bucketed: rank 0's gradient order is not a permutation of the parameters");
    }
    seen[index] = true;
    ready.push_back(static_cast<uint32_t>(index));
  }
  build(rebuiltBuckets(ready, gradientBytes(params_), firstBucketBytes_, capBytes_));
  std::string detail = std::to_string(buckets_.size()) + " buckets in gradient-ready order, sizes (bytes):";
  for (const Bucket& b : buckets_) detail += " " + std::to_string(b.data.bytes());
  host_->event(host_->ctx, "rebucket", detail.c_str());
}

void BucketedStrategy::gradReady(dtb_param_t* param) {
  const uint32_t i = arrived_.arrive(param);
  if (!sums_.lastMicroStep()) {  // no_sync: accumulate locally, nothing crosses the wire
    sums_.add(i);
    return;
  }
  if (recording_) readyOrder_.push_back(i);
  // Into the bucket (the gradient itself with gradient_as_bucket_view).
  sums_.takeSum(i, slotOf(i), scale_);
  markReady(i);
}

void BucketedStrategy::markReady(uint32_t index) {
  if (--buckets_[bucketOf_[index]].pending == 0) launchReady();
}

void BucketedStrategy::launchReady() {
  // Strictly in bucket order, as DDP: every rank issues the same collectives
  // in the same order whatever order its own gradients finished in.
  while (next_ < buckets_.size() && buckets_[next_].pending == 0) {
    const size_t before = inFlight_.size();
    hook_->launch(next_, buckets_[next_], inFlight_);
    for (size_t k = before; k < inFlight_.size(); ++k) {
      launchedNs_.push_back(host_->now_ns(host_->ctx));
      bucketOfRequest_.push_back(next_);
    }
    ++next_;
  }
}

void BucketedStrategy::finishBackward() {
  if (!sums_.lastMicroStep()) {
    arrived_.reset();
    return;
  }
  if (findUnused_) {
    // DDP marks them ready: they are reduced with what they hold (zero, or
    // what earlier micro-batches accumulated).
    for (uint32_t i = 0; i < params_.size(); ++i) {
      if (arrived_.arrived(i)) continue;
      sums_.takeSum(i, slotOf(i), scale_, /*withGradient=*/false);
      markReady(i);
    }
  }
  // Every launched collective is waited for, even after a failure.
  try {
    inFlight_.waitAll([&](size_t k, dtb_status_t) {
      host_->trace_span(host_->ctx, ("allreduce bucket " + std::to_string(bucketOfRequest_[k])).c_str(),
                        "comm", launchedNs_[k], host_->now_ns(host_->ctx));
    });
  } catch (...) {
    launchedNs_.clear();
    bucketOfRequest_.clear();
    throw;
  }
  launchedNs_.clear();
  bucketOfRequest_.clear();
  // Its theory: a ring all-reduce of S bytes moves 2(N-1)/N S per rank.
  const double world = host_->comm_size(host_->ctx);
  host_->metric_add(host_->ctx, "theory.bus_bytes",
                    static_cast<double>(hook_->allreducedBytes(buckets_)) * 2 * (world - 1) / world);
  hook_->finish(buckets_);
  if (!findUnused_)
    arrived_.requireAll(
        "Every parameter must take part in the loss on every rank, or set find_unused_parameters = true (as "
        "DistributedDataParallel requires)");
  if (!asView_) copyBack();
  for (Bucket& b : buckets_) b.pending = static_cast<uint32_t>(b.params.size());
  arrived_.reset();
  next_ = 0;
  if (recording_) {
    recording_ = false;
    rebuildDue_ = !findUnused_;  // as DDP: no rebuild when unused parameters are searched for
  }
}

void BucketedStrategy::copyBack() {
  for (uint32_t i = 0; i < params_.size(); ++i) {
    const Bucket& b = buckets_[bucketOf_[i]];
    ops_.copy(params_[i].grad, 0, b.data.tensor(), offsetOf_[i], params_[i].grad.count);
  }
}

std::vector<int32_t> BucketedStrategy::broadcastReadyOrder() {
  std::vector<int32_t> order(readyOrder_.begin(), readyOrder_.end());
  if (device_.type == DTB_DEVICE_HOST) {
    dtb_tensor_t tensor = hostTensor(order.data(), order.size(), DTB_DTYPE_I32);
    issueAndWait(host_, "broadcast of the bucket order",
                 [&](dtb_request_t* r) { return host_->comm_broadcast(host_->ctx, &tensor, 0, r); });
    return order;
  }
  // A GPU backend broadcasts GPU memory: the indices go as f32 values
  // (exact below 2^24 parameters) through a buffer on the GPU.
  std::vector<float> values(order.begin(), order.end());
  HostBuffer<float> onGpu(host_, values.size(), DTB_MEM_BUFFERS, device_);
  const dtb_tensor_t inHost = hostTensor(values.data(), values.size(), DTB_DTYPE_F32);
  dtb_tensor_t tensor = onGpu.tensor();
  ops_.copy(tensor, 0, inHost, 0, values.size());
  issueAndWait(host_, "broadcast of the bucket order",
               [&](dtb_request_t* r) { return host_->comm_broadcast(host_->ctx, &tensor, 0, r); });
  ops_.copy(inHost, 0, tensor, 0, values.size());
  for (size_t k = 0; k < values.size(); ++k) order[k] = static_cast<int32_t>(values[k]);
  return order;
}

void BucketedStrategy::memoryReport(dtb_memory_report_t* out) const {
  replicatedMemoryReport(params_, optimizer_, sums_.bytes(),
                         (asView_ ? 0 : params_.bytes()) + hook_->bufferBytes(), out);
}

}  // namespace dtb::strategy::bucketed
