#include "train/gpu_hand_off.h"

#include <optional>

#include "cuda/gpu_stream_order.h"
#include "cuda/gpu_tensor_ops.h"
#include "host/communicator.h"

namespace dtb::core {
namespace {

// Its event and the host's stream are made at the first hook, not before:
// a step is made for a model before it trains.
class EventHandOff final : public GpuHandOff {
 public:
  EventHandOff(void* modelStream, int device, const Communicator* comm, bool strategyWaits)
      : model_(modelStream), device_(device), comm_(comm), strategyWaits_(strategyWaits) {}

  void hostAfterModel() override {
    void* host = hostStream();
    if (strategyWaits_ || (comm_ && !comm_->collectivesStreamKnown())) {
      order_->finish(model_);  // every later stream's work comes after it
      return;
    }
    order_->after(host, model_);
    if (void* chosen = strategyStream()) order_->after(chosen, model_);
  }

  void modelAfterHost() override {
    void* host = hostStream();
    order_->after(model_, host);
    if (void* chosen = strategyStream()) order_->after(model_, chosen);
  }

 private:
  void* hostStream() {
    if (!order_) {
      host_ = gpuWorkStream(device_);
      order_.emplace(device_);
    }
    return host_;
  }
  // Asked each time: a strategy may choose its stream at any point.
  void* strategyStream() const { return comm_ ? comm_->strategyStream() : nullptr; }

  void* model_;
  int device_;
  const Communicator* comm_;
  bool strategyWaits_;
  void* host_ = nullptr;
  std::optional<GpuStreamOrder> order_;
};

}  // namespace

std::unique_ptr<GpuHandOff> makeGpuHandOff(void* modelStream, int device, const Communicator* comm,
                                           bool strategyWaits) {
  return std::make_unique<EventHandOff>(modelStream, device, comm, strategyWaits);
}

}  // namespace dtb::core
