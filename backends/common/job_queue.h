// The queue a backend's own thread takes its collectives from, in the order
// they were issued. The thread runs them while the caller computes (as
// Horovod's background thread does). Between collectives it may look for the
// next one for a while (`spin`) before it sleeps: the next usually follows at
// once (the next bucket, the next call of a sweep), and a thread wake-up
// costs more here than a 4 KiB all-reduce (bench/mpi_allreduce, with Open
// MPI polling hard: 14 µs per call sleeping at once, 7 µs with a 50 µs spin,
// MPI's own 4 µs). Spinning takes a core from compute, so it pays only where
// the wake-up is the cost: the MPI backend spins, Gloo's (whose LeNet steps
// ran 4-18 % slower with it) does not.
//
// With a `cycle`, a push into an empty queue wakes nobody: the thread looks
// again every cycle, as Horovod's does (1 ms by default). That is for a
// backend whose callers run the collective they wait for themselves
// (tryPop): the thread then only starts the ones nobody waits for yet, and
// a caller that issues and waits pays no wake-up. A push behind a job still
// queued wakes the thread: the caller is issuing without waiting.
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
  explicit JobQueue(std::chrono::microseconds spin = std::chrono::microseconds{0},
                    std::chrono::microseconds cycle = std::chrono::microseconds{0})
      : spin_(spin), cycle_(cycle) {}

  void push(Job job) {
    bool queued = false;
    {
      std::lock_guard lock(mutex_);
      queued = !jobs_.empty();
      jobs_.push_back(std::move(job));
      pushed_.fetch_add(1, std::memory_order_release);
    }
    // A job pushed behind one nobody took is one more the caller goes on
    // without waiting for (buckets, prefetches): the thread starts now.
    if (cycle_.count() == 0 || queued) wake_.notify_one();
  }

  // The next job, waiting for one; nullopt once stop() was called and
  // nothing is left.
  std::optional<Job> pop() {
    for (;;) {
      if (!awaitWork(true)) return std::nullopt;
      if (std::optional<Job> job = tryPop()) return job;
    }
  }

  // Returns when there may be a job (one was pushed, or a cycle passed),
  // after spinning (`spin`: the thread has just run one, and the next
  // usually follows) then sleeping; false once stop() was called and
  // nothing is left.
  bool awaitWork(bool spin) {
    const auto until = std::chrono::steady_clock::now() + (spin ? spin_ : std::chrono::microseconds{0});
    while (pushed_.load(std::memory_order_acquire) == popped_.load(std::memory_order_acquire) &&
           std::chrono::steady_clock::now() < until) {
      std::this_thread::yield();
    }
    std::unique_lock lock(mutex_);
    const auto ready = [this] { return stopping_ || !jobs_.empty(); };
    if (cycle_.count() == 0) {
      wake_.wait(lock, ready);
    } else {
      wake_.wait_for(lock, cycle_, ready);
    }
    return !(stopping_ && jobs_.empty());
  }

  // The front job if there is one, without waiting. Any thread may take
  // jobs; whoever runs them keeps their order (the backend's run lock).
  std::optional<Job> tryPop() {
    return tryPopIf([](const Job&, size_t) { return true; });
  }

  // The front job if `take(front, queued)` says so (queued: jobs in the
  // queue, the front one included), without waiting.
  template <typename Take>
  std::optional<Job> tryPopIf(Take&& take) {
    std::lock_guard lock(mutex_);
    if (jobs_.empty() || !take(jobs_.front(), jobs_.size())) return std::nullopt;
    Job job = std::move(jobs_.front());
    jobs_.pop_front();
    popped_.fetch_add(1, std::memory_order_release);
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
  const std::chrono::microseconds cycle_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job> jobs_;
  bool stopping_ = false;
  std::atomic<uint64_t> pushed_{0};
  std::atomic<uint64_t> popped_{0};
};

}  // namespace dtb::backend
