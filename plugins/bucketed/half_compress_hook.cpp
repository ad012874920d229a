// fp16_compress_hook / bf16_compress_hook: the bucket cast to half
// precision, divided by the world size there (and rounded again), all-reduced
// (sum) in half precision, cast back: half the bytes on the wire. On the
// host the casts are loops of ours; on a GPU the host's tensor_copy converts
// (ABI 1.10), where the division is a multiplication by 1 / world in f32
// before the rounding (the same result whenever the world is a power of two).
#include "comm_hook.h"
#include "dtbench/half.hpp"
#include "dtbench/tensor_ops.hpp"
#include "dtbench/typed_buffer.hpp"

namespace dtb::strategy::bucketed {
namespace {

class HalfCompressHook : public CommHook {
 public:
  HalfCompressHook(const dtb_host_t* host, int world, bool bf16, const dtb_device_t& device)
      : host_(host), world_(world), bf16_(bf16), device_(device), ops_(host, "bucketed") {}

  float copyScale() const override { return 1.0f; }  // divided after the cast, as DDP's hooks do

  void attach(const std::vector<Bucket>& buckets, const ParamSet&) override {
    compressed_.clear();
    for (const Bucket& b : buckets)
      compressed_.emplace_back(host_, b.count, halfType(), DTB_MEM_BUFFERS, device_);
  }

  void launch(size_t index, Bucket& bucket, Requests& requests) override {
    TypedBuffer& out = compressed_[index];
    if (device_.type == DTB_DEVICE_HOST) {
      auto* half = static_cast<uint16_t*>(out.data());
      const float world = static_cast<float>(world_);
      const float* in = bucket.f32();
      for (uint64_t k = 0; k < bucket.count; ++k) {
        half[k] = bf16_ ? floatToBfloat16(bfloat16ToFloat(floatToBfloat16(in[k])) / world)
                        : floatToHalf(halfToFloat(floatToHalf(in[k])) / world);
      }
    } else {
      ops_.copy(out.tensor(), 0, bucket.data.tensor(), 0, bucket.count);                             // cast
      ops_.copy(out.tensor(), 0, out.tensor(), 0, bucket.count, 1.0f / static_cast<float>(world_));  // divide
    }
    dtb_tensor_t tensor = out.tensor();
    requests.issue("allreduce of a bucket", [&](dtb_request_t* r) {
      return host_->comm_allreduce(host_->ctx, &tensor, DTB_REDUCE_SUM, r);
    });
  }

  void finish(std::vector<Bucket>& buckets) override {
    for (size_t b = 0; b < buckets.size(); ++b) {
      if (device_.type != DTB_DEVICE_HOST) {
        ops_.copy(buckets[b].data.tensor(), 0, compressed_[b].tensor(), 0, buckets[b].count);
        continue;
      }
      float* data = buckets[b].f32();
      const auto* half = static_cast<const uint16_t*>(compressed_[b].data());
      for (uint64_t k = 0; k < buckets[b].count; ++k)
        data[k] = bf16_ ? bfloat16ToFloat(half[k]) : halfToFloat(half[k]);
    }
  }

  uint64_t allreducedBytes(const std::vector<Bucket>& buckets) const override {
    uint64_t bytes = 0;
    for (const Bucket& b : buckets) bytes += b.count * sizeof(uint16_t);
    return bytes;
  }

  uint64_t bufferBytes() const override {
    uint64_t bytes = 0;
    for (const TypedBuffer& c : compressed_) bytes += c.bytes();
    return bytes;
  }

 private:
  dtb_dtype_t halfType() const { return bf16_ ? DTB_DTYPE_BF16 : DTB_DTYPE_F16; }

  const dtb_host_t* host_;
  int world_;
  bool bf16_;
  dtb_device_t device_;  // the buckets', and so these buffers'
  TensorOps ops_;
  std::vector<TypedBuffer> compressed_;  // per bucket: what crosses the wire
};

}  // namespace

std::unique_ptr<CommHook> makeHalfCompressHook(const dtb_host_t* host, int world, bool bf16,
                                               const dtb_device_t& device) {
  return std::make_unique<HalfCompressHook>(host, world, bf16, device);
}

}  // namespace dtb::strategy::bucketed
