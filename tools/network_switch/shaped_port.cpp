#include "shaped_port.h"

#include <algorithm>
#include <cmath>

namespace dtb::netswitch {

bool ShapedPort::enqueue(Frame frame, int64_t nowNs) {
  if (queuedBytes_ + frame.size() > queueLimitBytes_ && !queue_.empty()) return false;
  // The wire takes a frame once the one before it has left (the rate), and
  // never before the delay has passed; max() with the last frame also keeps
  // the order when a new shape shortens the delay.
  int64_t dueNs = std::max(nowNs + shape_.latencyNs, lastDueNs_);
  if (shape_.bytesPerSecond > 0)
    dueNs +=
        std::llround(static_cast<double>(frame.size() + kWireOverheadBytes) * 1e9 / shape_.bytesPerSecond);
  lastDueNs_ = dueNs;
  queuedBytes_ += frame.size();
  queue_.push_back({dueNs, std::move(frame)});
  return true;
}

size_t ShapedPort::deliverDue(int64_t nowNs, int64_t lateNs,
                              const std::function<void(const Frame&)>& deliver) {
  size_t late = 0;
  while (!queue_.empty() && queue_.front().dueNs <= nowNs) {
    if (nowNs - queue_.front().dueNs > lateNs) ++late;
    deliver(queue_.front().frame);
    queuedBytes_ -= queue_.front().frame.size();
    queue_.pop_front();
  }
  return late;
}

}  // namespace dtb::netswitch
