// How a wait on a GPU collective ends, the way PyTorch's NCCL watchdog ends
// it: poll the collective's completion and the communicator's asynchronous
// error until one of them answers or the timeout passes; on an error or the
// timeout, abort the communicator, so that no kernel is left spinning on a
// peer that is gone and nothing hangs. No CUDA here: the plugin watches NCCL
// through this interface, the tests watch a scripted fake.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "dtbench/dtbench.h"

namespace dtb::backend::nccl {

// What a wait polls. Each call must return at once.
class Watched {
 public:
  virtual ~Watched() = default;
  // The collective has completed on the device (its event has fired).
  virtual bool finished() = 0;
  // The communicator's asynchronous error (a peer's connection broke, an
  // internal NCCL error), or nothing while it is healthy.
  virtual std::optional<std::string> failure() = 0;
  // Aborts the communicator: its kernels stop, its resources go.
  virtual void abort() = 0;
};

struct Verdict {
  dtb_status_t status = DTB_STATUS_OK;  // OK, COMM_FAILURE (the communicator failed) or TIMEOUT
  std::string why;                      // empty when OK; otherwise what the communicator said, or the wait
};

// Polls `watched` until it finishes, fails or `timeout` passes; aborts it on
// failure or timeout (once, before returning). Spins for the first
// microseconds (a small collective ends within them), then sleeps briefly
// between polls so a long wait leaves the core to others.
Verdict watch(Watched& watched, std::chrono::milliseconds timeout);

// A communicator's life after an abort: every later call fails at once with
// the reason it was aborted, instead of reaching NCCL with a freed handle.
class Health {
 public:
  bool aborted() const { return !reason_.empty(); }
  const std::string& reason() const { return reason_; }
  void abortedBecause(std::string reason) {
    if (reason_.empty()) reason_ = reason.empty() ? "aborted" : std::move(reason);
  }

 private:
  std::string reason_;
};

}  // namespace dtb::backend::nccl
