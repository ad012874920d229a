#include "frame_switch.h"

#include <algorithm>
#include <limits>

namespace dtb::netswitch {
namespace {

// A frame this much past its time counts as late: the machine did not keep up.
constexpr int64_t kLateNs = 1'000'000;

}  // namespace

FrameSwitch::FrameSwitch(size_t ports, size_t queueLimitBytes, Send send)
    : send_(std::move(send)), ports_(ports, ShapedPort(queueLimitBytes)), macs_(ports) {}

void FrameSwitch::receive(size_t ingress, const unsigned char* frame, size_t length, int64_t nowNs) {
  const bool unshaped = shape_.latencyNs == 0 && shape_.bytesPerSecond == 0;
  for (const size_t port : macs_.route(ingress, frame, length)) {
    ++counters_.frames;
    Frame copy(frame, frame + length);
    // Unshaped, a frame waits only behind frames a shape queued before.
    if (unshaped && ports_[port].queuedBytes() == 0) {
      send_(port, copy);
    } else if (!ports_[port].enqueue(std::move(copy), nowNs)) {
      ++counters_.dropped;
    }
  }
}

int64_t FrameSwitch::sendDue(int64_t nowNs) {
  int64_t nextDue = std::numeric_limits<int64_t>::max();
  for (size_t port = 0; port < ports_.size(); ++port) {
    counters_.late +=
        ports_[port].deliverDue(nowNs, kLateNs, [&](const Frame& frame) { send_(port, frame); });
    nextDue = std::min(nextDue, ports_[port].nextDueNs());
  }
  return nextDue;
}

std::string FrameSwitch::control(const std::string& line) {
  const std::string reply = runControlCommand(line, shape_, counters_);
  for (ShapedPort& port : ports_) port.setShape(shape_);
  return reply;
}

}  // namespace dtb::netswitch
