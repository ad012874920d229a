// The host's side of a GPU model that calls its hooks without waiting for
// its GPU (model.h's gpu_stream, since 1.13). Before 1.13 a GPU layer waited
// for its stream before every grad_ready and layer_begin, so that what the
// strategy then queued on the gradient (copies into a bucket, a collective)
// found it computed: ResNet-50 has 161 gradients, and each wait left the
// GPU idle while the host queued the next layer. Now the step orders the
// streams with CUDA events instead: before a hook, the host's streams of
// the model's GPU wait for the model's work queued so far; after
// layer_begin (ZeRO-3's gathers), the model's stream waits for what the hook
// queued. The host itself waits for neither.
//
// Where the host cannot know every stream the hook's work runs on, it waits
// for the model's stream before the hook instead, as the model did before:
// a strategy built before 1.13 (it was promised a gradient computed when
// grad_ready is called, and may work on it with CUDA calls of its own), or
// collectives on a stream the host does not know
// (Communicator::collectivesStreamKnown).
#pragma once

#include <memory>

namespace dtb::core {

class Communicator;

class GpuHandOff {
 public:
  virtual ~GpuHandOff() = default;
  // Before a hook: the work queued from now on on the host's stream of the
  // model's GPU (tensor copies, mixed precision's rounding, a GPU backend's
  // collectives) and on a stream the strategy chose for its collectives
  // runs after the model's work queued so far. Staging's copies on the
  // legacy default stream follow too: it waits for the host's stream, a
  // blocking one.
  virtual void hostAfterModel() = 0;
  // After layer_begin: the model's work queued from now on runs after what
  // the hook queued on those streams.
  virtual void modelAfterHost() = 0;
};

// Between `modelStream` (a cudaStream_t of GPU `device`) and the host's
// streams of that GPU: gpuWorkStream(device), and `comm`'s strategy-chosen
// stream when there is one (null comm: none). `strategyWaits`: the strategy
// predates 1.13, so the host waits for the model's stream before each hook.
// Its CUDA objects are made at the first call, which throws GpuUnavailable
// in a build without CUDA.
std::unique_ptr<GpuHandOff> makeGpuHandOff(void* modelStream, int device, const Communicator* comm,
                                           bool strategyWaits);

}  // namespace dtb::core
