// What the gradient profile times a backward with: points marked as each
// gradient is reported ready, read as seconds after backward began once it
// ended. On the host that is the host's clock. For a GPU model that calls
// grad_ready with the gradient's work still queued (model.h's gpu_stream)
// the host's clock would say when the work was queued; there the marks are
// CUDA events on the model's stream, which say when the GPU computed it.
#pragma once

#include <memory>
#include <vector>

namespace dtb::core {

class BackwardClock {
 public:
  virtual ~BackwardClock() = default;
  // Backward begins: forgets the marks so far.
  virtual void begin() = 0;
  // A point of this backward (a gradient ready, its end).
  virtual void mark() = 0;
  // Seconds from begin() to each mark since, in order.
  virtual std::vector<double> read() = 0;
};

std::unique_ptr<BackwardClock> makeHostClock();
// CUDA events on `stream` (a cudaStream_t of GPU `device`); GpuUnavailable
// in a build without CUDA.
std::unique_ptr<BackwardClock> makeGpuStreamClock(void* stream, int device);

}  // namespace dtb::core
