// Times of CUDA events on the host's steady clock, the one the run's trace
// keeps, so NCCL's collectives show where they ran on the GPU, under the
// host's phases (a collective issued during backward, overlapping it).
//
// CUDA events carry no host time, only times between events. So an anchor
// event is recorded on a stream with nothing left to run: it is reached at
// once, and its time on the GPU is the host's when it was recorded (to a
// launch's latency, microseconds). A later event's time is the anchor's plus
// cudaEventElapsedTime between them. That is a float of milliseconds, whose
// 24 bits keep microseconds for 16 s: a launch takes the newest anchor, made
// again at most once a second and only on an idle stream. Each anchor is an
// event of its own, so a launch's stays valid after a newer one is made.
#pragma once

#include <cuda_runtime.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>

namespace dtb::backend::nccl {

struct GpuAnchor {
  cudaEvent_t event = nullptr;
  int64_t hostNs = 0;  // steady-clock nanoseconds when it was recorded
  ~GpuAnchor();
};

class GpuClock {
 public:
  // Before a launch on `stream`: a new anchor when the stream (and the
  // legacy default stream, which a blocking stream waits for) has nothing
  // left to run and the last is a second old; the newest either way (null
  // while none could be made yet).
  std::shared_ptr<const GpuAnchor> anchorFor(cudaStream_t stream);

  // `event`'s time on the host's clock: finished, and recorded after `anchor`.
  static std::optional<int64_t> hostNs(const GpuAnchor& anchor, cudaEvent_t event);

 private:
  std::shared_ptr<const GpuAnchor> anchor_;
  std::chrono::steady_clock::time_point anchoredAt_{};
};

}  // namespace dtb::backend::nccl
