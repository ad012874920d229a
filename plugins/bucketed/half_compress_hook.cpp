// fp16_compress_hook / bf16_compress_hook: the bucket cast to half
// precision, divided by the world size there (and rounded again), all-reduced
// (sum) in half precision, cast back: half the bytes on the wire.
#include "comm_hook.h"
#include "dtbench/half.hpp"

namespace dtb::strategy::bucketed {
namespace {

class HalfCompressHook : public CommHook {
 public:
  HalfCompressHook(const dtb_host_t* host, int world, bool bf16) : host_(host), world_(world), bf16_(bf16) {}

  float copyScale() const override { return 1.0f; }  // divided after the cast, as DDP's hooks do

  void attach(const std::vector<Bucket>& buckets, const ParamSet&) override {
    compressed_.clear();
    for (const Bucket& b : buckets) compressed_.emplace_back(host_, b.count, DTB_MEM_BUFFERS);
  }

  void launch(size_t index, Bucket& bucket, Requests& requests) override {
    HostBuffer<uint16_t>& out = compressed_[index];
    const float world = static_cast<float>(world_);
    const float* in = bucket.f32();
    for (uint64_t k = 0; k < bucket.count; ++k) {
      out[k] = bf16_ ? floatToBfloat16(bfloat16ToFloat(floatToBfloat16(in[k])) / world)
                     : floatToHalf(halfToFloat(floatToHalf(in[k])) / world);
    }
    dtb_tensor_t tensor = out.tensor(bf16_ ? DTB_DTYPE_BF16 : DTB_DTYPE_F16);
    requests.issue("allreduce of a bucket", [&](dtb_request_t* r) {
      return host_->comm_allreduce(host_->ctx, &tensor, DTB_REDUCE_SUM, r);
    });
  }

  void finish(std::vector<Bucket>& buckets) override {
    for (size_t b = 0; b < buckets.size(); ++b) {
      float* data = buckets[b].f32();
      for (uint64_t k = 0; k < buckets[b].count; ++k)
        data[k] = bf16_ ? bfloat16ToFloat(compressed_[b][k]) : halfToFloat(compressed_[b][k]);
    }
  }

  uint64_t allreducedBytes(const std::vector<Bucket>& buckets) const override {
    uint64_t bytes = 0;
    for (const Bucket& b : buckets) bytes += b.count * sizeof(uint16_t);
    return bytes;
  }

  uint64_t bufferBytes() const override {
    uint64_t bytes = 0;
    for (const HostBuffer<uint16_t>& c : compressed_) bytes += c.bytes();
    return bytes;
  }

 private:
  const dtb_host_t* host_;
  int world_;
  bool bf16_;
  std::vector<HostBuffer<uint16_t>> compressed_;  // per bucket: what crosses the wire
};

}  // namespace

std::unique_ptr<CommHook> makeHalfCompressHook(const dtb_host_t* host, int world, bool bf16) {
  return std::make_unique<HalfCompressHook>(host, world, bf16);
}

}  // namespace dtb::strategy::bucketed
