#include "watchdog.h"

#include <thread>

namespace dtb::backend::nccl {

Verdict watch(Watched& watched, std::chrono::milliseconds timeout) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto spinUntil = start + std::chrono::microseconds(200);
  const auto deadline = start + timeout;
  for (;;) {
    // The error first: a collective whose peer died never finishes, and a
    // failed communicator's event may still fire for work it abandoned.
    if (std::optional<std::string> failure = watched.failure()) {
      watched.abort();
      return {DTB_STATUS_COMM_FAILURE, *failure};
    }
    if (watched.finished()) return {};
    const auto now = Clock::now();
    if (now >= deadline) {
      watched.abort();
      return {DTB_STATUS_TIMEOUT, "not finished after " + std::to_string(timeout.count()) + " ms"};
    }
    if (now < spinUntil) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }
}

}  // namespace dtb::backend::nccl
