// One in-flight collective: what the caller waits on. Shared between the
// caller's handle and the backend's worker thread, so either may let go
// first; it crosses the C ABI as a heap-held shared_ptr (toHandle).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "dtbench/backend.h"

namespace dtb::backend {

class Request {
 public:
  void finish(dtb_status_t status, std::string message) {
    std::lock_guard lock(mutex_);
    status_ = status;
    message_ = std::move(message);
    done_ = true;
    spinDone_.store(true, std::memory_order_release);
    finished_.notify_all();
  }

  // Watches for the end without sleeping, up to `spin`: a small collective
  // ends within microseconds, and a condition variable's wake-up costs ~10 µs
  // on a loaded VM — more than the collective. True when it ended.
  bool spinFor(std::chrono::microseconds spin) const {
    if (spinDone_.load(std::memory_order_acquire)) return true;  // a caller ran it: no clock to read
    const auto until = std::chrono::steady_clock::now() + spin;
    while (!spinDone_.load(std::memory_order_acquire)) {
      if (std::chrono::steady_clock::now() >= until) return false;
      std::this_thread::yield();
    }
    return true;
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

  // Someone waits for it: a backend whose callers run their own collectives
  // does not leave this one to a caller that may never come.
  void markWaited() { waited_.store(true, std::memory_order_release); }
  bool waited() const { return waited_.load(std::memory_order_acquire); }

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
  std::atomic<bool> spinDone_{false};  // done_, readable without the mutex
  std::atomic<bool> waited_{false};
  dtb_status_t status_ = DTB_STATUS_OK;
  std::string message_;
};

// Any backend's request type crosses the ABI this way (nccl's has its own).
template <typename R>
dtb_request_t toHandle(std::shared_ptr<R> request) {
  return reinterpret_cast<dtb_request_t>(new std::shared_ptr<R>(std::move(request)));
}
template <typename R = Request>
const std::shared_ptr<R>& fromHandle(dtb_request_t handle) {
  return *reinterpret_cast<std::shared_ptr<R>*>(handle);
}
template <typename R = Request>
void freeHandle(dtb_request_t handle) {
  delete reinterpret_cast<std::shared_ptr<R>*>(handle);
}

// The ABI's wait(): the request's own status, or TIMEOUT naming the backend
// and rank when it did not finish in `timeoutMs`; errors go to host->set_error.
inline dtb_status_t waitForRequest(const dtb_host_t* host, const char* backend, int rank,
                                   dtb_request_t handle, int64_t timeoutMs) {
  const std::shared_ptr<Request>& r = fromHandle(handle);
  if (!r->waitFor(std::chrono::milliseconds(timeoutMs < 0 ? 0 : timeoutMs))) {
    host->set_error(host->ctx, (std::string(backend) + ": rank " + std::to_string(rank) +
                                ": collective not finished after " + std::to_string(timeoutMs) + " ms")
                                   .c_str());
    return DTB_STATUS_TIMEOUT;
  }
  if (r->status() != DTB_STATUS_OK) host->set_error(host->ctx, r->message().c_str());
  return r->status();
}

}  // namespace dtb::backend
