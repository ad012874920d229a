// DDP's default hook (allreduce_hook): gradients pre-divided by the world
// size on their way into the bucket, the bucket all-reduced (sum) in f32.
#include "comm_hook.h"

namespace dtb::strategy::bucketed {
namespace {

class AllreduceHook : public CommHook {
 public:
  AllreduceHook(const dtb_host_t* host, int world) : host_(host), world_(world) {}
  float copyScale() const override { return 1.0f / static_cast<float>(world_); }
  void launch(size_t, Bucket& bucket, Requests& requests) override {
    dtb_tensor_t tensor = bucket.data.tensor();
    requests.issue("allreduce of a bucket", [&](dtb_request_t* r) {
      return host_->comm_allreduce(host_->ctx, &tensor, DTB_REDUCE_SUM, r);
    });
  }

 private:
  const dtb_host_t* host_;
  int world_;
};

}  // namespace

std::unique_ptr<CommHook> makeAllreduceHook(const dtb_host_t* host, int world) {
  return std::make_unique<AllreduceHook>(host, world);
}

}  // namespace dtb::strategy::bucketed
