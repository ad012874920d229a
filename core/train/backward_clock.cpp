#include "train/backward_clock.h"

#include <chrono>

#include "cuda/gpu_stream_order.h"

namespace dtb::core {
namespace {

class HostClock final : public BackwardClock {
 public:
  void begin() override {
    marks_.clear();
    begin_ = std::chrono::steady_clock::now();
  }
  void mark() override {
    marks_.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - begin_).count());
  }
  std::vector<double> read() override { return marks_; }

 private:
  std::chrono::steady_clock::time_point begin_ = std::chrono::steady_clock::now();
  std::vector<double> marks_;
};

class GpuStreamClock final : public BackwardClock {
 public:
  GpuStreamClock(void* stream, int device) : marks_(stream, device) {}
  void begin() override { marks_.begin(); }
  void mark() override { marks_.mark(); }
  std::vector<double> read() override { return marks_.read(); }

 private:
  GpuStreamMarks marks_;
};

}  // namespace

std::unique_ptr<BackwardClock> makeHostClock() { return std::make_unique<HostClock>(); }

std::unique_ptr<BackwardClock> makeGpuStreamClock(void* stream, int device) {
  return std::make_unique<GpuStreamClock>(stream, device);
}

}  // namespace dtb::core
