// Where a ZeRO stage keeps the gradients, and when it reduces them.
//   WholeGradients (stage 1): every rank writes whole gradients, as plain
//     data parallelism does; after backward each unit is reduced and this
//     rank keeps its slice (DeepSpeed's stage 1 optimizer).
//   PartitionedGradients (stages 2-3): only this rank's reduced slice is
//     kept. A unit's gradients are written into a recycled staging buffer
//     as backward reaches its layer, and reduced as soon as they are all
//     written; at most two reductions are in flight, so whole gradients
//     never exist for every layer at once (DeepSpeed's double buffering).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "buffer_pool.h"
#include "dtbench/tensor_ops.hpp"
#include "dtbench/typed_buffer.hpp"
#include "layout.h"
#include "reductions.h"

namespace dtb::strategy::zero {

struct GradientSettings {
  bool reduceScatter = true;
  uint32_t accumulation = 1;
};

class Gradients {
 public:
  virtual ~Gradients() = default;
  Gradients(const Gradients&) = delete;
  Gradients& operator=(const Gradients&) = delete;

  void beforeForward(uint32_t microStep) { reductions_.setMicroStep(microStep); }
  // Backward is about to compute `layer`.
  virtual void beforeBackwardLayer(uint32_t /*layer*/) {}
  // Parameter i's gradient is written.
  virtual void arrived(uint32_t i) = 0;
  // Backward is over: every reduction issued (unless `complete` is false: a
  // gradient never came, and the step fails) and waited for; throws the
  // first failure.
  virtual void finishBackward(bool complete) = 0;
  // This rank's reduced slice of unit u's gradients, summed over the step.
  virtual void* slice(size_t u) = 0;
  // Gradient elements held, and buffer bytes at their peak (memory report).
  virtual uint64_t heldElements() const = 0;
  virtual uint64_t bufferBytes() const { return reductions_.bufferBytes(); }
  const char* reduction() const {
    return reductions_.reduceScatter() ? "reduce-scatter" : "all-reduce and keep the slice";
  }

 protected:
  Gradients(const dtb_host_t* host, const Layout& layout, ModelViews& views, GradientSettings settings);

  const Layout& layout_;
  ModelViews& views_;
  Reductions reductions_;
};

class WholeGradients final : public Gradients {
 public:
  WholeGradients(const dtb_host_t* host, const Layout& layout, ModelViews& views, GradientSettings settings);
  ~WholeGradients() override;
  void arrived(uint32_t /*i*/) override {}
  void finishBackward(bool complete) override;
  void* slice(size_t u) override;
  uint64_t heldElements() const override;

 private:
  std::vector<TypedBuffer> whole_;   // per unit: the gradients backward writes
  std::vector<TypedBuffer> summed_;  // with accumulation: the slice summed apart
};

class PartitionedGradients final : public Gradients {
 public:
  PartitionedGradients(const dtb_host_t* host, const Layout& layout, ModelViews& views,
                       GradientSettings settings);
  ~PartitionedGradients() override;
  void beforeBackwardLayer(uint32_t layer) override;
  void arrived(uint32_t i) override;
  void finishBackward(bool complete) override;
  void* slice(size_t u) override { return slices_[u].data(); }
  uint64_t heldElements() const override;
  uint64_t bufferBytes() const override { return Gradients::bufferBytes() + staging_.peakBytes(); }

 private:
  void stage(size_t u);  // gives unit u a staging buffer
  void unstage(size_t u);
  void release(const Reductions::Completed& done);  // its staging buffer, unless the reduction failed
  void issueReady();

  BufferPool staging_;
  TensorOps ops_;
  std::vector<TypedBuffer> slices_;
  std::vector<void*> staged_;      // per unit: where this backward writes its gradients
  std::vector<uint32_t> pending_;  // per unit: gradients still to come this backward
  size_t nextIssue_ = 0;           // backwardOrder position of the next reduction to issue
};

}  // namespace dtb::strategy::zero
