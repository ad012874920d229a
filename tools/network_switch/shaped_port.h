// One port of the emulated switch, shaped as netem's delay followed by a
// token-bucket rate would shape it: a frame leaves latency after it came in,
// or once the frames before it have left, and then takes its wire time
// (its bytes at the link's rate). Frames leave in the order they came; the
// queue is bounded (a switch's buffer), and what overflows is dropped for
// TCP to resend, as a real switch does. The bound is deep (64 MiB by
// default: seconds at the slowest profile), so that TCP meets the
// profile's latency and rate, not drops and retransmission timeouts:
// a clean latency-bandwidth line; shallow buffers are not modelled.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <vector>

#include "link_shape.h"

namespace dtb::netswitch {

using Frame = std::vector<unsigned char>;

// Ethernet's bytes on the wire that a TAP frame does not carry: preamble and
// start delimiter (8), frame check sequence (4), inter-frame gap (12).
inline constexpr size_t kWireOverheadBytes = 24;

class ShapedPort {
 public:
  explicit ShapedPort(size_t queueLimitBytes) : queueLimitBytes_(queueLimitBytes) {}

  void setShape(const LinkShape& shape) { shape_ = shape; }

  // Schedules the frame; false when the queue is full and it was dropped.
  bool enqueue(Frame frame, int64_t nowNs);
  // When the first queued frame is due; max() when none is queued.
  int64_t nextDueNs() const {
    return queue_.empty() ? std::numeric_limits<int64_t>::max() : queue_.front().dueNs;
  }
  // Hands every frame due by nowNs to deliver, in order; returns how many
  // of them left more than lateNs after they were due (a switch that cannot
  // keep up with its profile).
  size_t deliverDue(int64_t nowNs, int64_t lateNs, const std::function<void(const Frame&)>& deliver);

  size_t queuedBytes() const { return queuedBytes_; }

 private:
  struct Queued {
    int64_t dueNs;
    Frame frame;
  };
  LinkShape shape_;
  size_t queueLimitBytes_;
  std::deque<Queued> queue_;
  size_t queuedBytes_ = 0;
  int64_t lastDueNs_ = 0;  // when the last frame queued leaves the wire
};

}  // namespace dtb::netswitch
