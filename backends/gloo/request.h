// One in-flight collective: what the caller waits on. Shared between the
// caller's handle and the communicator's worker thread, so either may let
// go first.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>

#include "dtbench/dtbench.h"

namespace dtb::backend::gloo {

class Request {
 public:
  void finish(dtb_status_t status, std::string message) {
    std::lock_guard lock(mutex_);
    status_ = status;
    message_ = std::move(message);
    done_ = true;
    finished_.notify_all();
  }

  bool done() const {
    std::lock_guard lock(mutex_);
    return done_;
  }

  // Waits up to `timeout`; false when it did not finish in time.
  bool waitFor(std::chrono::milliseconds timeout) const {
    std::unique_lock lock(mutex_);
    return finished_.wait_for(lock, timeout, [this] { return done_; });
  }

  dtb_status_t status() const {
    std::lock_guard lock(mutex_);
    return status_;
  }
  std::string message() const {
    std::lock_guard lock(mutex_);
    return message_;
  }

 private:
  mutable std::mutex mutex_;
  mutable std::condition_variable finished_;
  bool done_ = false;
  dtb_status_t status_ = DTB_STATUS_OK;
  std::string message_;
};

}  // namespace dtb::backend::gloo
