#include "host/wait_guard.h"

#include <algorithm>

namespace dtb::core {
namespace {

int64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::unique_ptr<WaitGuard>& processGuard() {
  static std::unique_ptr<WaitGuard> guard;
  return guard;
}

}  // namespace

void WaitGuard::Watch::begin(const char* op, std::chrono::milliseconds timeout,
                             std::chrono::steady_clock::time_point start) {
  timeout = std::min<std::chrono::milliseconds>(timeout, std::chrono::hours(24 * 365));  // no overflow below
  op_.store(op, std::memory_order_relaxed);
  timeoutMs_.store(timeout.count(), std::memory_order_relaxed);
  deadlineNs_.store(
      std::chrono::duration_cast<std::chrono::nanoseconds>(start.time_since_epoch() + timeout).count(),
      std::memory_order_release);
}

WaitGuard::WaitGuard(std::chrono::milliseconds grace, std::chrono::milliseconds period, Expired expired)
    : grace_(grace), period_(period), expired_(std::move(expired)) {
  thread_ = std::thread([this] { look(); });
}

WaitGuard::~WaitGuard() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stop_.notify_all();
  thread_.join();
}

void WaitGuard::add(Watch* watch) {
  std::lock_guard lock(mutex_);
  watches_.push_back(watch);
}

void WaitGuard::remove(Watch* watch) {
  std::lock_guard lock(mutex_);
  watches_.erase(std::remove(watches_.begin(), watches_.end(), watch), watches_.end());
}

void WaitGuard::look() {
  std::unique_lock lock(mutex_);
  while (!stop_.wait_for(lock, period_, [this] { return stopping_; })) {
    if (fired_) continue;
    const int64_t now = nowNs();
    for (Watch* watch : watches_) {
      const int64_t deadline = watch->deadlineNs_.load(std::memory_order_acquire);
      if (deadline == 0 || now - deadline < std::chrono::nanoseconds(grace_).count()) continue;
      fired_ = true;
      const std::string message =
          watch->who_ + ": a wait for " + watch->op_.load(std::memory_order_relaxed) +
          " is still inside the backend " + std::to_string((now - deadline) / 1000000) + " ms after its " +
          std::to_string(watch->timeoutMs_.load(std::memory_order_relaxed)) +
          " ms timeout: the backend is blocked in a call nothing can interrupt, most likely for "
          "a peer that stopped or left; this rank ends";
      lock.unlock();  // the handler may take its time; watches may come and go meanwhile
      expired_(message);
      lock.lock();
      break;
    }
  }
}

WaitGuard* WaitGuard::process() { return processGuard().get(); }

void WaitGuard::installForProcess(std::unique_ptr<WaitGuard> guard) { processGuard() = std::move(guard); }

}  // namespace dtb::core
