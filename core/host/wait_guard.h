// Ends a rank whose backend is stuck in a wait: the host's side of
// dtb_rendezvous_t.wait_guard_ms (ABI 1.5). With it a backend may run a
// collective in the waiting thread inside a call nothing can interrupt —
// MPI's blocking collectives, which spare the two thread hand-offs that
// cost more than a small all-reduce (bench/mpi_allreduce) — and a peer that
// never joins still cannot hang the run: past the wait's deadline plus the
// grace, the guard reports the rank's error and the process ends.
//
// Watching costs a wait two atomic stores and wakes nobody: the guard's own
// thread looks on a fixed period (Horovod's background thread also works on
// a cycle rather than being woken per tensor).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace dtb::core {

class WaitGuard {
 public:
  // Called once, on the guard's thread, with what is stuck; it must end the
  // process (a worker reports the error and exits). Tests may record it.
  using Expired = std::function<void(const std::string& message)>;

  WaitGuard(std::chrono::milliseconds grace, std::chrono::milliseconds period, Expired expired);
  ~WaitGuard();
  WaitGuard(const WaitGuard&) = delete;
  WaitGuard& operator=(const WaitGuard&) = delete;

  std::chrono::milliseconds grace() const { return grace_; }

  // One communicator's waits, one at a time (the Communicator serialises
  // them). `who` names the backend and rank in the message.
  class Watch {
   public:
    explicit Watch(std::string who) : who_(std::move(who)) {}
    // A wait of `op` that may last `timeout` began at `start` (the caller's
    // clock reading: a wait of a small collective takes about as long as
    // two more).
    void begin(const char* op, std::chrono::milliseconds timeout,
               std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now());
    void end() { deadlineNs_.store(0, std::memory_order_release); }

   private:
    friend class WaitGuard;
    const std::string who_;
    std::atomic<const char*> op_{""};
    std::atomic<int64_t> timeoutMs_{0};
    std::atomic<int64_t> deadlineNs_{0};  // steady clock; 0: no wait now
  };
  void add(Watch* watch);
  void remove(Watch* watch);

  // The guard of this process, when the process installed one (a worker
  // does; tests that run ranks as threads need not): connectBackend then
  // tells backends their waits are guarded.
  static WaitGuard* process();
  static void installForProcess(std::unique_ptr<WaitGuard> guard);

 private:
  void look();  // the thread

  const std::chrono::milliseconds grace_;
  const std::chrono::milliseconds period_;
  Expired expired_;
  std::mutex mutex_;
  std::condition_variable stop_;
  bool stopping_ = false;
  bool fired_ = false;
  std::vector<Watch*> watches_;
  std::thread thread_;
};

}  // namespace dtb::core
