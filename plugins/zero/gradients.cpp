#include "gradients.h"

#include "first_failure.h"

namespace dtb::strategy::zero {

Gradients::Gradients(const dtb_host_t* host, const Layout& layout, ModelViews& views,
                     GradientSettings settings)
    : layout_(layout),
      views_(views),
      reductions_(host, layout, settings.reduceScatter, settings.accumulation,
                  [this](size_t u) { return slice(u); }) {}

WholeGradients::WholeGradients(const dtb_host_t* host, const Layout& layout, ModelViews& views,
                               GradientSettings settings)
    : Gradients(host, layout, views, settings) {
  for (size_t u = 0; u < layout.size(); ++u) {
    whole_.emplace_back(host, layout[u].padded, layout.dtype, DTB_MEM_GRADS, layout.device);
    views.pointGrads(u, whole_[u].data());
    // The reduced slice overwrites this rank's part of the whole gradients,
    // unless micro-batches must be summed apart.
    summed_.emplace_back();
    if (settings.accumulation > 1)
      summed_[u] = TypedBuffer(host, layout[u].shard, layout.dtype, DTB_MEM_GRADS, layout.device);
  }
}

WholeGradients::~WholeGradients() {
  reductions_.drain();
  for (size_t u = 0; u < layout_.size(); ++u) views_.pointGrads(u, nullptr);
}

void WholeGradients::finishBackward(bool complete) {
  // Every reduction that started is waited for, even after one could not
  // start.
  FirstFailure failure;
  if (complete) {
    failure.run([&] {
      for (size_t u : layout_.backwardOrder) reductions_.issue(u, whole_[u].data());
    });
  }
  failure.run([&] { reductions_.finish([](const Reductions::Completed&) {}); });
  failure.rethrow();
}

void* WholeGradients::slice(size_t u) {
  return summed_[u] ? summed_[u].data() : whole_[u].at(layout_.rank * layout_[u].shard);
}

uint64_t WholeGradients::heldElements() const {
  uint64_t held = 0;
  for (size_t u = 0; u < layout_.size(); ++u) held += whole_[u].size() + summed_[u].size();
  return held;
}

}  // namespace dtb::strategy::zero
