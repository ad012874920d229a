// Ctrl-C (SIGINT) and SIGTERM while a coordinator runs: instead of killing
// it, they raise a flag the launchers poll, so the current run is stopped,
// stored as stopped, and nothing already stored is lost. Default handling
// comes back when the guard goes. One guard at a time.
#pragma once

#include <atomic>

namespace dtb::core {

class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  // Raised by the first SIGINT or SIGTERM since the guard was made.
  const std::atomic<bool>* flag() const;
  bool raised() const { return flag()->load(); }
};

}  // namespace dtb::core
