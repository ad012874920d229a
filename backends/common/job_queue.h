// The queue a backend's own thread takes its collectives from, in the order
// they were issued. The thread runs them while the caller computes (as
// Horovod's background thread does). Between collectives it may look for the
// next one for a while (`spin`) before it sleeps: the next usually follows at
// once (the next bucket, the next call of a sweep), and a thread wake-up
// costs more here than a 4 KiB all-reduce (bench/mpi_allreduce, with Open
// MPI polling hard: 14 µs per call sleeping at once, 7 µs with a 50 µs spin,
// MPI's own 4 µs). Spinning
// takes a core from compute, so it pays only where the wake-up is the cost:
// the MPI backend spins, Gloo's (whose LeNet steps ran 4-18 % slower with
// it) does not.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>

namespace dtb::backend {

template <typename Job>
class JobQueue {
 public:
  explicit JobQueue(std::chrono::microseconds spin = std::chrono::microseconds{0}) : spin_(spin) {}

  void push(Job job) {
    {
      std::lock_guard lock(mutex_);
      jobs_.push_back(std::move(job));
      pushed_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_one();
  }

  // The next job; nullopt once stop() was called and nothing is left.
  std::optional<Job> pop() {
    const auto until = std::chrono::steady_clock::now() + spin_;
    while (pushed_.load(std::memory_order_acquire) == popped_ && std::chrono::steady_clock::now() < until) {
      std::this_thread::yield();
    }
    std::unique_lock lock(mutex_);
    wake_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
    if (jobs_.empty()) return std::nullopt;
    Job job = std::move(jobs_.front());
    jobs_.pop_front();
    ++popped_;
    return job;
  }

  // pop() returns what is left, then nullopt.
  void stop() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
  }

 private:
  const std::chrono::microseconds spin_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job> jobs_;
  bool stopping_ = false;
  std::atomic<uint64_t> pushed_{0};
  uint64_t popped_ = 0;  // the popping thread's own count
};

}  // namespace dtb::backend
