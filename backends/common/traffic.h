// What a backend's collectives moved and how long it was busy: the counters
// its counters() hands the host (host/communicator.cpp reads them before and
// after each step). Updated from whichever thread issues or runs the
// collectives, hence atomic.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

#include "dtbench/backend.h"

namespace dtb::backend {

class Traffic {
 public:
  // One collective issued that sends, and receives, `bytes`: every algorithm
  // of these backends is symmetric over the ranks.
  void collective(uint64_t bytes) {
    sent_ += bytes;
    received_ += bytes;
    ++collectives_;
  }
  // One point-to-point message (ABI 1.9): moves one way only.
  void sent(uint64_t bytes) {
    sent_ += bytes;
    ++collectives_;
  }
  void received(uint64_t bytes) {
    received_ += bytes;
    ++collectives_;
  }
  void busy(std::chrono::nanoseconds time) { busyNs_ += static_cast<uint64_t>(time.count()); }

  dtb_comm_counters_t counters() const {
    dtb_comm_counters_t c{};
    c.bytes_sent = sent_;
    c.bytes_received = received_;
    c.collectives = collectives_;
    c.busy_ns = busyNs_;
    return c;
  }

 private:
  std::atomic<uint64_t> sent_{0}, received_{0}, collectives_{0}, busyNs_{0};
};

}  // namespace dtb::backend
