#include <algorithm>
#include <cstring>
#include <string>

#include "first_failure.h"
#include "gradients.h"

namespace dtb::strategy::zero {

PartitionedGradients::PartitionedGradients(const dtb_host_t* host, const Layout& layout, ModelViews& views,
                                           GradientSettings settings)
    : Gradients(host, layout, views, settings),
      staging_(host, layout.maxPadded, layout.dtype, layout.device),
      ops_(host, "zero"),
      staged_(layout.size(), nullptr) {
  for (size_t u = 0; u < layout.size(); ++u) {
    slices_.emplace_back(host, layout[u].shard, layout.dtype, DTB_MEM_GRADS, layout.device);
    pending_.push_back(static_cast<uint32_t>(layout[u].params.size()));
  }
}

PartitionedGradients::~PartitionedGradients() {
  reductions_.drain();
  for (size_t u = 0; u < layout_.size(); ++u) views_.pointGrads(u, nullptr);
}

void PartitionedGradients::beforeBackwardLayer(uint32_t layer) {
  for (uint32_t u : layout_.layerUnits[layer]) {
    if (!staged_[u]) stage(u);
  }
}

void PartitionedGradients::stage(size_t u) {
  // The oldest of two reductions in flight finishes, and gives its staging
  // buffer back, before another unit starts filling one. One that failed
  // stops backward here, as the host's error.
  while (reductions_.inFlight() >= 2) {
    const Reductions::Completed done = reductions_.completeOldest();
    release(done);
    check(done.status, "zero: reduction");
  }
  staged_[u] = staging_.acquire();
  // The padding is reduced too: keep it zero.
  const Unit& unit = layout_[u];
  ops_.zero(layout_.flat(staged_[u], unit.padded), unit.elements, unit.padded - unit.elements);
  views_.pointGrads(u, staged_[u]);
}

void PartitionedGradients::unstage(size_t u) {
  views_.pointGrads(u, nullptr);  // the whole gradients are gone: only the slice stays
  staging_.release(staged_[u]);
  staged_[u] = nullptr;
}

void PartitionedGradients::release(const Reductions::Completed& done) {
  if (done.ok()) {
    unstage(done.unit);
    return;
  }
  // After a failure (a timeout) the collective may still run in the
  // backend: its staging buffer is never handed out again (the pool frees
  // it with the strategy).
  views_.pointGrads(done.unit, nullptr);
  staged_[done.unit] = nullptr;
}

void PartitionedGradients::arrived(uint32_t i) {
  const size_t u = layout_.unitOf[i];
  if (!staged_[u]) {
    // A model that wrote gradients without announcing the layer: take the
    // unit's gradients from the model's own memory (those not computed yet
    // are overwritten in the staging buffer when they are).
    if (!views_.modelGrad(i)) {
      throw Error(DTB_STATUS_INVALID_ARGUMENT,
                  std::string("zero: the model reported the gradient of '") + views_.param(i).name +
                      "' before calling layer_begin for its layer in backward; a model that implements "
                      "release_param must announce every layer in both passes");
    }
    stage(u);
    const Unit& unit = layout_[u];
    const dtb_tensor_t staged = layout_.flat(staged_[u], unit.padded);
    for (size_t k = 0; k < unit.params.size(); ++k) {
      const uint64_t count = views_.param(unit.params[k]).grad.count;
      ops_.copy(staged, unit.offsets[k], layout_.flat(views_.modelGrad(unit.params[k]), count), 0, count);
    }
  }
  if (--pending_[u] == 0) issueReady();
}

void PartitionedGradients::issueReady() {
  // In one order on every rank, whatever order this rank's gradients came in.
  const std::vector<size_t>& order = layout_.backwardOrder;
  while (nextIssue_ < order.size() && pending_[order[nextIssue_]] == 0) {
    const size_t u = order[nextIssue_++];
    reductions_.issue(u, staged_[u]);
  }
}

void PartitionedGradients::finishBackward(bool /*complete: the complete units were reduced in backward*/) {
  FirstFailure failure;
  failure.run([&] { reductions_.finish([this](const Reductions::Completed& done) { release(done); }); });
  for (size_t u = 0; u < layout_.size(); ++u) {
    pending_[u] = static_cast<uint32_t>(layout_[u].params.size());
    if (staged_[u]) unstage(u);  // units that never completed
  }
  nextIssue_ = 0;
  failure.rethrow();
}

uint64_t PartitionedGradients::heldElements() const {
  uint64_t held = 0;
  for (const TypedBuffer& s : slices_) held += s.size();
  return held;
}

}  // namespace dtb::strategy::zero
