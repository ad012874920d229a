// powerSGD_hook: DDP's default hook (divide, then sum) for the first
// start_powerSGD_iter steps, then each bucket compressed to low-rank factors
// (powersgd.h): the uncompressed tensors and the Ps all-reduced with the
// bucket's launch, the Qs in a second round once backward is done.
#include <memory>

#include "comm_hook.h"

namespace dtb::strategy::bucketed {
namespace {

class PowerSgdHook : public CommHook {
 public:
  PowerSgdHook(const dtb_host_t* host, int world, const PowerSgdOptions& options)
      : host_(host), world_(world), options_(options) {}

  float copyScale() const override { return 1.0f; }

  void attach(const std::vector<Bucket>& buckets, const ParamSet& params) override {
    state_.clear();
    for (size_t b = 0; b < buckets.size(); ++b) {
      // Each gradient as a matrix: its first dimension by the rest.
      std::vector<BucketTensor> tensors;
      for (size_t k = 0; k < buckets[b].params.size(); ++k) {
        const dtb_tensor_t& g = params[buckets[b].params[k]].grad;
        const uint64_t rows = g.ndim > 0 && g.shape[0] > 0 ? static_cast<uint64_t>(g.shape[0]) : 1;
        tensors.push_back({buckets[b].offsets[k], rows, g.count / rows});
      }
      state_.push_back(std::make_unique<PowerSgdBucket>(options_, std::move(tensors), buckets[b].count, b));
    }
  }

  void launch(size_t index, Bucket& bucket, Requests& requests) override {
    if (!compressing()) {
      const float inverse = 1.0f / static_cast<float>(world_);
      float* data = bucket.f32();
      for (uint64_t k = 0; k < bucket.count; ++k) data[k] *= inverse;
      allreduce(requests, "allreduce of a bucket", data, bucket.count);
      return;
    }
    PowerSgdBucket& s = *state_[index];
    s.compress(bucket.f32());  // the uncompressed tensors and the Ps, summed
    allreduce(requests, "allreduce of a bucket", s.uncompressed().data(), s.uncompressed().size());
    allreduce(requests, "allreduce of PowerSGD's P", s.ps().data(), s.ps().size());
  }

  void finish(std::vector<Bucket>& buckets) override {
    if (compressing()) {
      // The Qs go out in bucket order on every rank; then each bucket is
      // decompressed.
      Requests qs(host_);
      for (const auto& s : state_) {
        s->computeQs(world_);
        allreduce(qs, "allreduce of PowerSGD's Q", s->qs().data(), s->qs().size());
      }
      qs.waitAll();
      for (size_t b = 0; b < buckets.size(); ++b) state_[b]->decompress(buckets[b].f32(), world_);
    }
    ++iteration_;
  }

  uint64_t allreducedBytes(const std::vector<Bucket>& buckets) const override {
    if (!compressing()) return CommHook::allreducedBytes(buckets);
    uint64_t floats = 0;  // the uncompressed tensors, the Ps and the Qs of every bucket
    for (const auto& s : state_) floats += s->uncompressed().size() + s->ps().size() + s->qs().size();
    return floats * sizeof(float);
  }

  uint64_t bufferBytes() const override {
    uint64_t bytes = 0;
    for (const auto& s : state_) bytes += s->bytes();
    return bytes;
  }

 private:
  bool compressing() const { return iteration_ >= options_.startIteration; }
  void allreduce(Requests& requests, const char* what, float* data, uint64_t count) {
    dtb_tensor_t tensor = hostTensor(data, count, DTB_DTYPE_F32);
    requests.issue(what, [&](dtb_request_t* r) {
      return host_->comm_allreduce(host_->ctx, &tensor, DTB_REDUCE_SUM, r);
    });
  }

  const dtb_host_t* host_;
  int world_;
  PowerSgdOptions options_;
  uint64_t iteration_ = 0;                              // synchronised steps so far (PowerSGD's state.iter)
  std::vector<std::unique_ptr<PowerSgdBucket>> state_;  // per bucket
};

}  // namespace

std::unique_ptr<CommHook> makePowerSgdHook(const dtb_host_t* host, int world,
                                           const PowerSgdOptions& options) {
  return std::make_unique<PowerSgdHook>(host, world, options);
}

}  // namespace dtb::strategy::bucketed
