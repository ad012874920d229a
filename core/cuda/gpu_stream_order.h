// Ordering and timing one GPU's streams with CUDA events, the host waiting
// for nothing: how the host takes over a model's work still queued on its
// stream (train/gpu_hand_off.h) and times when each gradient was computed
// (train/backward_clock.h). A build without CUDA has the same calls; the
// constructors throw GpuUnavailable.
#pragma once

#include <cstddef>
#include <vector>

namespace dtb::core {

// One event, recorded anew for each ordering: CUDA takes the event's state
// when a stream is told to wait for it, so later records do not disturb an
// earlier wait, and the host never waits for the event itself.
class GpuStreamOrder {
 public:
  explicit GpuStreamOrder(int device);
  ~GpuStreamOrder();
  GpuStreamOrder(const GpuStreamOrder&) = delete;
  GpuStreamOrder& operator=(const GpuStreamOrder&) = delete;

  // The work queued on `waiting` (a cudaStream_t of this GPU) from now on
  // runs after the work `queued` has queued so far. The same stream:
  // nothing to do. A CUDA error is std::runtime_error saying which.
  void after(void* waiting, void* queued);
  // Returns once `stream`'s work queued so far has run: the host waits
  // (where a stream cannot be ordered by events).
  void finish(void* stream);

 private:
  // (Unused in a build without CUDA, whose calls only throw.)
  [[maybe_unused]] int device_;
  [[maybe_unused]] void* event_ = nullptr;  // a cudaEvent_t, untimed
};

// Points in one stream's work, timed by CUDA events: when the GPU reached
// them, not when the host queued them. Events are made as marks first need
// them and reused by every later begin().
class GpuStreamMarks {
 public:
  GpuStreamMarks(void* stream, int device);
  ~GpuStreamMarks();
  GpuStreamMarks(const GpuStreamMarks&) = delete;
  GpuStreamMarks& operator=(const GpuStreamMarks&) = delete;

  // Forgets the marks so far and records the origin after the work queued.
  void begin();
  // Records a point after the work queued so far.
  void mark();
  // Seconds from the origin to each mark since begin(), in order; waits
  // until the GPU reached the last one.
  std::vector<double> read();

 private:
  void record();  // the next event (made on first use), recorded on the stream

  [[maybe_unused]] void* stream_;  // a cudaStream_t
  [[maybe_unused]] int device_;
  [[maybe_unused]] std::vector<void*> events_;  // cudaEvent_t each, timed; [0] the origin
  [[maybe_unused]] size_t used_ = 0;            // events recorded since begin()
};

}  // namespace dtb::core
