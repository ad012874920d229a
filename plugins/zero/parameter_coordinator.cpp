#include "parameter_coordinator.h"

#include <algorithm>

#include "dtbench/plugin.hpp"

namespace dtb::strategy::zero {

ParameterCoordinator::ParameterCoordinator(const dtb_host_t* host, const Layout& layout, bool prefetch,
                                           Holder holder)
    : host_(host),
      layout_(layout),
      prefetch_(prefetch),
      holder_(std::move(holder)),
      gathered_(host, layout.maxPadded, layout.dtype, layout.device),
      resident_(layout.size(), nullptr),
      inFlight_(layout.size(), nullptr) {}

ParameterCoordinator::~ParameterCoordinator() {
  for (dtb_request_t& request : inFlight_) {
    if (request) host_->comm_wait(host_->ctx, request, DTB_TIMEOUT_DEFAULT);  // abandoned after a failure
  }
}

void ParameterCoordinator::beforeLayer(uint32_t layer, dtb_pass_t pass) {
  if (pass == DTB_PASS_FORWARD && recording_ &&
      std::find(forwardOrder_.begin(), forwardOrder_.end(), layer) == forwardOrder_.end()) {
    forwardOrder_.push_back(layer);
  }
  const size_t current = layout_.layerUnits[layer].empty() ? kNone : layout_.layerUnits[layer][0];
  const size_t next = prefetch_ ? nextUnit(layer, pass) : kNone;
  release(current, next);
  if (current != kNone && holder_.sharded(current)) {
    if (!resident_[current]) startGather(current);
    finishGather(current);
  }
  if (next != kNone && holder_.sharded(next) && !resident_[next]) startGather(next);
}

void ParameterCoordinator::releaseAll() { release(kNone, kNone); }

size_t ParameterCoordinator::nextUnit(uint32_t layer, dtb_pass_t pass) const {
  const auto at = std::find(forwardOrder_.begin(), forwardOrder_.end(), layer);
  if (at == forwardOrder_.end()) return kNone;
  const ptrdiff_t step = pass == DTB_PASS_FORWARD ? 1 : -1;
  for (ptrdiff_t k = (at - forwardOrder_.begin()) + step; k >= 0 && k < ptrdiff_t(forwardOrder_.size());
       k += step) {
    if (!layout_.layerUnits[forwardOrder_[k]].empty()) return layout_.layerUnits[forwardOrder_[k]][0];
  }
  return kNone;
}

void ParameterCoordinator::startGather(size_t u) {
  resident_[u] = gathered_.acquire();
  dtb_tensor_t mine = layout_.flat(holder_.ownedSlice(u), layout_[u].shard);
  dtb_tensor_t all = layout_.flat(resident_[u], layout_[u].padded);
  check(host_->comm_allgather(host_->ctx, &mine, &all, &inFlight_[u]), "zero: parameter all-gather");
  host_->metric_add(host_->ctx, "zero.parameter_gathers", 1);  // stored per step (step_metric)
}

void ParameterCoordinator::finishGather(size_t u) {
  if (inFlight_[u]) {
    const dtb_status_t status = host_->comm_wait(host_->ctx, inFlight_[u], DTB_TIMEOUT_DEFAULT);
    inFlight_[u] = nullptr;
    check(status, "parameter all-gather");
  }
  holder_.point(u, resident_[u]);
}

void ParameterCoordinator::release(size_t keep1, size_t keep2) {
  for (size_t u = 0; u < layout_.size(); ++u) {
    if (!resident_[u] || u == keep1 || u == keep2) continue;
    finishGather(u);  // a prefetch nobody used still completes before its buffer is reused
    holder_.point(u, nullptr);
    gathered_.release(resident_[u]);
    resident_[u] = nullptr;
  }
}

}  // namespace dtb::strategy::zero
