#include "bucketed_strategy.h"

#include <algorithm>
#include <cstring>

#include "dtbench/half.hpp"
#include "dtbench/strategy.hpp"

namespace dtb::strategy::bucketed {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

}  // namespace

BucketedStrategy::BucketedStrategy(const dtb_host_t* host, const dtb_strategy_setup_t& setup)
    : host_(host),
      params_(setup.params, setup.params + setup.param_count),
      accumulation_(setup.accumulation_steps) {
  if (accumulation_ == 0)
    throw Error(DTB_STATUS_INVALID_ARGUMENT, "bucketed: accumulation_steps must be >= 1");
  double capMb = 25, firstMb = 1;
  int32_t asView = 0, findUnused = 0;
  const char* hook = nullptr;
  check(host->config_get_string(host->ctx, "comm_hook", &hook), "comm_hook");
  const std::string hookName = hook;
  hook_ = hookName == "fp16"       ? Hook::kFp16
          : hookName == "bf16"     ? Hook::kBf16
          : hookName == "powersgd" ? Hook::kPowerSgd
                                   : Hook::kAllreduce;
  int64_t rank = 1, start = 1000, seed = 0;
  int32_t feedback = 1, warm = 1;
  check(host->config_get_int(host->ctx, "powersgd_rank", &rank), "powersgd_rank");
  check(host->config_get_int(host->ctx, "powersgd_start_iter", &start), "powersgd_start_iter");
  check(host->config_get_float(host->ctx, "powersgd_min_compression_rate", &powerSgd_.minCompressionRate),
        "powersgd_min_compression_rate");
  check(host->config_get_bool(host->ctx, "powersgd_error_feedback", &feedback), "powersgd_error_feedback");
  check(host->config_get_bool(host->ctx, "powersgd_warm_start", &warm), "powersgd_warm_start");
  check(host->config_get_int(host->ctx, "powersgd_seed", &seed), "powersgd_seed");
  powerSgd_.rank = static_cast<uint32_t>(rank);
  powerSgd_.startIteration = static_cast<uint64_t>(start);
  powerSgd_.errorFeedback = feedback != 0;
  powerSgd_.warmStart = warm != 0;
  powerSgd_.seed = static_cast<uint64_t>(seed);
  check(host->config_get_float(host->ctx, "bucket_cap_mb", &capMb), "bucket_cap_mb");
  check(host->config_get_float(host->ctx, "first_bucket_mb", &firstMb), "first_bucket_mb");
  check(host->config_get_bool(host->ctx, "gradient_as_bucket_view", &asView), "gradient_as_bucket_view");
  check(host->config_get_bool(host->ctx, "find_unused_parameters", &findUnused), "find_unused_parameters");
  capBytes_ = static_cast<uint64_t>(capMb * kMiB);
  firstBucketBytes_ = static_cast<uint64_t>(firstMb * kMiB);
  asView_ = asView != 0;
  findUnused_ = findUnused != 0;
  world_ = host->comm_size(host->ctx);
  // The default hook pre-divides by the world size while copying into the
  // bucket; the compression hooks divide after casting, as DDP's do.
  scale_ = 1.0f /
           static_cast<float>((hook_ == Hook::kAllreduce ? world_ : 1) * static_cast<int64_t>(accumulation_));

  const uint32_t stateFloats = host_->optim_state_floats(host_->ctx);
  std::vector<uint64_t> bytes;
  for (uint32_t i = 0; i < params_.size(); ++i) {
    dtb_param_t* p = params_[i];
    requireHostF32("bucketed", *p);
    if (p->index != i)
      throw Error(DTB_STATUS_INVALID_ARGUMENT, "bucketed: parameters must come in index order");
    elements_ += p->grad.count;
    bytes.push_back(p->grad.count * sizeof(float));
    modelGrads_.push_back(p->grad.data);
    accumulated_.push_back(accumulation_ > 1 ? hostAllocZeroed<float>(host_, p->grad.count, DTB_MEM_GRADS)
                                             : nullptr);
    state_.push_back(hostAllocZeroed<float>(host_, p->value.count * stateFloats, DTB_MEM_OPTIMIZER));
  }
  ready_.assign(params_.size(), false);
  // With gradient_as_bucket_view the buckets are the gradients' only memory
  // — DDP's reason for the option — so the model's own gradient arrays go
  // back to the system before the buckets are made (a model that cannot
  // release them keeps them).
  if (asView_ && releaseModelStorage(host_, params_, DTB_PARAM_PART_GRAD))
    std::fill(modelGrads_.begin(), modelGrads_.end(), nullptr);
  build(initialBuckets(bytes, firstBucketBytes_, capBytes_, findUnused_));
}

BucketedStrategy::~BucketedStrategy() {
  release();
  for (float* buffer : accumulated_) host_->free(host_->ctx, buffer);
  for (float* buffer : state_) host_->free(host_->ctx, buffer);
}

void BucketedStrategy::release() {
  for (Bucket& b : buckets_) {
    host_->free(host_->ctx, b.data);
    host_->free(host_->ctx, b.compressed);
  }
  buckets_.clear();
  // The model's gradients are its own memory again (NULL where it gave
  // that memory back: the next buckets are made at once).
  for (size_t i = 0; i < params_.size(); ++i) params_[i]->grad.data = modelGrads_[i];
}

void BucketedStrategy::build(const Buckets& assignment) {
  release();
  bucketOf_.assign(params_.size(), 0);
  slotOf_.assign(params_.size(), 0);
  for (const std::vector<uint32_t>& members : assignment) {
    Bucket b;
    b.params = members;
    for (uint32_t index : members) {
      bucketOf_[index] = static_cast<uint32_t>(buckets_.size());
      slotOf_[index] = static_cast<uint32_t>(b.offsets.size());
      b.offsets.push_back(b.count);
      b.count += params_[index]->grad.count;
    }
    // With gradient_as_bucket_view the bucket is the gradients' only memory.
    b.data = hostAllocZeroed<float>(host_, b.count, asView_ ? DTB_MEM_GRADS : DTB_MEM_BUFFERS);
    if (hook_ == Hook::kPowerSgd) {
      // Each gradient as a matrix: its first dimension by the rest.
      std::vector<BucketTensor> tensors;
      for (size_t k = 0; k < members.size(); ++k) {
        const dtb_tensor_t& g = params_[members[k]]->grad;
        const uint64_t rows = g.ndim > 0 && g.shape[0] > 0 ? static_cast<uint64_t>(g.shape[0]) : 1;
        tensors.push_back({b.offsets[k], rows, g.count / rows});
      }
      b.powerSgd = std::make_unique<PowerSgdBucket>(powerSgd_, std::move(tensors), b.count, buckets_.size());
    }
    if (hook_ != Hook::kAllreduce) {
      b.compressed = hostAllocZeroed<uint16_t>(host_, b.count, DTB_MEM_BUFFERS);
    }
    b.pending = static_cast<uint32_t>(members.size());
    buckets_.push_back(std::move(b));
  }
  if (asView_) {
    for (const Bucket& b : buckets_) {
      for (size_t k = 0; k < b.params.size(); ++k) params_[b.params[k]]->grad.data = b.data + b.offsets[k];
    }
  }
  next_ = 0;
}

void BucketedStrategy::beforeForward(const dtb_step_info_t& step) {
  sync_ = step.micro_step + 1 == accumulation_;
  if (rebuildDue_) {
    rebuildDue_ = false;
    rebuildFromRankZero();
  }
}

void BucketedStrategy::rebuildFromRankZero() {
  // Every rank must bucket alike, so rank 0's observed order wins.
  std::vector<int32_t> order(params_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int32_t>(readyOrder_[i]);
  dtb_tensor_t tensor = hostTensor(order.data(), order.size(), DTB_DTYPE_I32);
  dtb_request_t request = nullptr;
  check(host_->comm_broadcast(host_->ctx, &tensor, 0, &request), "broadcast of the bucket order");
  check(host_->comm_wait(host_->ctx, request, DTB_TIMEOUT_DEFAULT), "broadcast of the bucket order");
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
  std::vector<uint64_t> bytes;
  for (dtb_param_t* p : params_) bytes.push_back(p->grad.count * sizeof(float));
  build(rebuiltBuckets(ready, bytes, firstBucketBytes_, capBytes_));
  std::string detail = std::to_string(buckets_.size()) + " buckets in gradient-ready order, sizes (bytes):";
  for (const Bucket& b : buckets_) detail += " " + std::to_string(b.count * sizeof(float));
  host_->event(host_->ctx, "rebucket", detail.c_str());
}

void BucketedStrategy::gradReady(dtb_param_t* param) {
  const uint32_t i = param->index;
  if (i >= params_.size() || params_[i] != param) {
    throw Error(DTB_STATUS_INVALID_ARGUMENT,
                std::string("bucketed: '") + param->name + "' is not a parameter of this model");
  }
  if (ready_[i]) {
    throw Error(DTB_STATUS_INVALID_ARGUMENT, std::string("bucketed: the gradient of '") + param->name +
                                                 "' was reported ready twice in one backward");
  }
  ready_[i] = true;
  const auto* grad = static_cast<const float*>(param->grad.data);
  const uint64_t count = param->grad.count;
  if (!sync_) {  // no_sync: accumulate locally, nothing crosses the wire
    float* sum = accumulated_[i];
    for (uint64_t k = 0; k < count; ++k) sum[k] += grad[k];
    return;
  }
  if (recording_) readyOrder_.push_back(i);
  Bucket& b = buckets_[bucketOf_[i]];
  float* slot = b.data + b.offsets[slotOf_[i]];  // the gradient itself with gradient_as_bucket_view
  if (float* sum = accumulated_[i]) {
    for (uint64_t k = 0; k < count; ++k) {
      slot[k] = (sum[k] + grad[k]) * scale_;
      sum[k] = 0.0f;
    }
  } else {
    for (uint64_t k = 0; k < count; ++k) slot[k] = grad[k] * scale_;
  }
  markReady(i);
}

void BucketedStrategy::markReady(uint32_t index) {
  if (--buckets_[bucketOf_[index]].pending == 0) launchReady();
}

void BucketedStrategy::launchReady() {
  // Strictly in bucket order, as DDP: every rank issues the same collectives
  // in the same order whatever order its own gradients finished in.
  while (next_ < buckets_.size() && buckets_[next_].pending == 0) {
    Bucket& b = buckets_[next_];
    dtb_tensor_t tensor = hostTensor(b.data, b.count, DTB_DTYPE_F32);
    b.launchedNs = host_->now_ns(host_->ctx);
    if (hook_ == Hook::kPowerSgd) {
      if (compressing()) {  // the uncompressed tensors and the Ps, summed
        b.powerSgd->compress(b.data);
        dtb_tensor_t plain =
            hostTensor(b.powerSgd->uncompressed().data(), b.powerSgd->uncompressed().size(), DTB_DTYPE_F32);
        dtb_tensor_t ps = hostTensor(b.powerSgd->ps().data(), b.powerSgd->ps().size(), DTB_DTYPE_F32);
        check(host_->comm_allreduce(host_->ctx, &plain, DTB_REDUCE_SUM, &b.request), "allreduce of a bucket");
        check(host_->comm_allreduce(host_->ctx, &ps, DTB_REDUCE_SUM, &b.factors),
              "allreduce of PowerSGD's P");
        ++next_;
        continue;
      }
      // Before powersgd_start_iter: DDP's default hook, divide then sum.
      const float inverse = 1.0f / static_cast<float>(world_);
      for (uint64_t k = 0; k < b.count; ++k) b.data[k] *= inverse;
    } else if (hook_ != Hook::kAllreduce) {
      // compressed = half(bucket) / world, rounded to half again.
      const bool fp16 = hook_ == Hook::kFp16;
      const float world = static_cast<float>(world_);
      for (uint64_t k = 0; k < b.count; ++k) {
        b.compressed[k] = fp16 ? floatToHalf(halfToFloat(floatToHalf(b.data[k])) / world)
                               : floatToBfloat16(bfloat16ToFloat(floatToBfloat16(b.data[k])) / world);
      }
      tensor = hostTensor(b.compressed, b.count, fp16 ? DTB_DTYPE_F16 : DTB_DTYPE_BF16);
    }
    check(host_->comm_allreduce(host_->ctx, &tensor, DTB_REDUCE_SUM, &b.request), "allreduce of a bucket");
    ++next_;
  }
}

void BucketedStrategy::finishBackward() {
  if (!sync_) {
    ready_.assign(params_.size(), false);
    return;
  }
  std::string unused;
  if (findUnused_) {
    // DDP marks them ready: they are reduced with what they hold (zero, or
    // what earlier micro-batches accumulated).
    for (uint32_t i = 0; i < params_.size(); ++i) {
      if (ready_[i]) continue;
      Bucket& b = buckets_[bucketOf_[i]];
      float* slot = b.data + b.offsets[slotOf_[i]];
      float* sum = accumulated_[i];
      for (uint64_t k = 0; k < params_[i]->grad.count; ++k) {
        slot[k] = sum ? sum[k] * scale_ : 0.0f;
        if (sum) sum[k] = 0.0f;
      }
      markReady(i);
    }
  } else {
    unused = namesNotReady(params_, ready_);
  }
  // Wait for every launched bucket exactly once, even after a failure.
  dtb_status_t status = DTB_STATUS_OK;
  for (size_t k = 0; k < next_; ++k) {
    Bucket& b = buckets_[k];
    const dtb_status_t waited = host_->comm_wait(host_->ctx, b.request, DTB_TIMEOUT_DEFAULT);
    b.request = nullptr;
    if (status == DTB_STATUS_OK) status = waited;
    host_->trace_span(host_->ctx, ("allreduce bucket " + std::to_string(k)).c_str(), "comm", b.launchedNs,
                      host_->now_ns(host_->ctx));
  }
  if (compressing()) {  // its Ps were launched with the buckets: wait for them whatever happened
    const dtb_status_t factors = finishPowerSgd(status == DTB_STATUS_OK);
    if (status == DTB_STATUS_OK) status = factors;
  }
  check(status, "allreduce of a bucket");
  if (hook_ == Hook::kFp16 || hook_ == Hook::kBf16) {  // decompress
    for (Bucket& b : buckets_) {
      for (uint64_t k = 0; k < b.count; ++k) {
        b.data[k] = hook_ == Hook::kFp16 ? halfToFloat(b.compressed[k]) : bfloat16ToFloat(b.compressed[k]);
      }
    }
  }
  if (!unused.empty()) {
    throw Error(
        DTB_STATUS_INVALID_ARGUMENT,
        "bucketed: these parameters received no gradient in this step: " + unused +
            ". Every parameter must take part in the loss on every rank, or set find_unused_parameters = "
            "true (as DistributedDataParallel requires)");
  }
  if (!asView_) {
    for (const Bucket& b : buckets_) {
      for (size_t k = 0; k < b.params.size(); ++k) {
        dtb_param_t* p = params_[b.params[k]];
        std::memcpy(p->grad.data, b.data + b.offsets[k], p->grad.count * sizeof(float));
      }
    }
  }
  for (Bucket& b : buckets_) b.pending = static_cast<uint32_t>(b.params.size());
  ready_.assign(params_.size(), false);
  next_ = 0;
  ++iteration_;
  if (recording_) {
    recording_ = false;
    rebuildDue_ = !findUnused_;  // as DDP: no rebuild when unused parameters are searched for
  }
}

dtb_status_t BucketedStrategy::finishPowerSgd(bool proceed) {
  // Wait for every bucket's P all-reduce; then every bucket's Q goes out,
  // in bucket order on every rank, and each bucket is decompressed.
  dtb_status_t status = DTB_STATUS_OK;
  for (Bucket& b : buckets_) {
    const dtb_status_t waited = host_->comm_wait(host_->ctx, b.factors, DTB_TIMEOUT_DEFAULT);
    b.factors = nullptr;
    if (status == DTB_STATUS_OK) status = waited;
  }
  if (!proceed || status != DTB_STATUS_OK) return status;
  size_t issued = 0;
  for (; issued < buckets_.size(); ++issued) {
    Bucket& b = buckets_[issued];
    b.powerSgd->computeQs(world_);
    dtb_tensor_t qs = hostTensor(b.powerSgd->qs().data(), b.powerSgd->qs().size(), DTB_DTYPE_F32);
    status = host_->comm_allreduce(host_->ctx, &qs, DTB_REDUCE_SUM, &b.factors);
    if (status != DTB_STATUS_OK) break;
  }
  for (size_t k = 0; k < issued; ++k) {
    Bucket& b = buckets_[k];
    const dtb_status_t waited = host_->comm_wait(host_->ctx, b.factors, DTB_TIMEOUT_DEFAULT);
    b.factors = nullptr;
    if (status == DTB_STATUS_OK) status = waited;
    if (waited == DTB_STATUS_OK) b.powerSgd->decompress(b.data, world_);
  }
  return status;
}

void BucketedStrategy::step() { updateEach(host_, params_, state_); }

void BucketedStrategy::memoryReport(dtb_memory_report_t* out) const {
  const uint64_t bytes = elements_ * sizeof(float);
  out->param_bytes = bytes;
  out->grad_bytes = accumulation_ > 1 ? 2 * bytes : bytes;
  out->optimizer_bytes = bytes * host_->optim_state_floats(host_->ctx);
  out->buffer_bytes = (asView_ ? 0 : bytes) + (hook_ != Hook::kAllreduce ? elements_ * sizeof(uint16_t) : 0);
}

}  // namespace dtb::strategy::bucketed
